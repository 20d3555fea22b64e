"""What every part of one build reads besides its sources, in one typed value.

The template context gets only the site-wide values templates and their helpers
use (``site_globals``); where pages are spooled and where jinja keeps compiled
templates are the build's business and travel here, not as private keys of the
template context.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sessite.config import SiteConfig
from sessite.pipeline import sealed
from sessite.render.renderer import Renderer


def site_globals(config: SiteConfig) -> dict[str, Any]:
    """``site`` in every template: ``site.title``, ``site.base_url``, ``site.exports``, ``site.search_engines``;
    ``forge_url`` and ``prices`` feed the git-ref and cost helpers."""
    return {
        "title": config.title,
        "base_url": config.base_url.rstrip("/") + "/" if config.base_url else "",
        "forge_url": config.forge_url,
        "prices": config.prices,
        "exports": config.exports,
        "search_engines": config.search_engines,
        "commits": bool(config.repos),  # session pages list their commits (sessite/outputs/commit_pages.py)
    }


@dataclass(frozen=True)
class BuildContext:
    config: SiteConfig
    site: dict[str, Any]  # site_globals(config)
    bytecode_dir: Path | None  # jinja's compiled templates, in the build cache
    spool_dir: Path | None = None  # where workers render pages into files (SiteWriter.spool_dir), once one is needed

    @classmethod
    def for_config(cls, config: SiteConfig, cache_dir: Path) -> BuildContext:
        """Jinja's compiled templates are code: kept only in a private folder of this user's files."""
        bytecode: Path | None = cache_dir / "templates"
        try:
            sealed.private_dir(cache_dir)
            sealed.private_folder_of_ours(cache_dir / "templates")
        except OSError:
            bytecode = None  # a cache folder not ours alone: templates compiled each build
        return cls(config, site_globals(config), bytecode)

    def with_spool(self, spool_dir: Path) -> BuildContext:
        return replace(self, spool_dir=spool_dir)

    def renderer(self) -> Renderer:
        """A renderer of this site's pages (user templates first)."""
        return Renderer(self.site, self.config.template_dirs, self.bytecode_dir)
