"""Site settings: everything a build needs to know besides the archive itself."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class SiteConfig:
    archive: Path
    output: Path | None  # None: serve picks a temporary folder
    title: str = "Session archive"
    base_url: str = ""  # absolute URL of the published site, for the few places that need one
    redact: bool = True
    redact_patterns: tuple[tuple[str, str], ...] = ()  # more (kind, regex) secret patterns (sessite.toml redact_patterns)
    redact_allow: tuple[str, ...] = ()  # exact values never redacted (sessite.toml redact_allow)
    include: tuple[str, ...] = ()  # globs (relative to the archive) a source must match to be read; () = all
    exclude: tuple[str, ...] = ()  # globs of sources (files or folders) never read
    exports: tuple[str, ...] = ("aics", "hail", "markdown")  # per-session downloads beside each page; () = none
    strict: bool = False  # exit non-zero when any problem was found
    template_dirs: tuple[Path, ...] = ()  # user templates, searched before the package's
    static_dirs: tuple[Path, ...] = ()  # user static files, copied over the package's
    progress: bool = True
    archives: tuple[Path, ...] = ()  # more roots built into the same site (sessite build --discover)
    forge_url: tuple[str, ...] = ()  # forge for git-ref links: a preset (github, gitlab, gitea, bitbucket, none) or URL patterns; see refs.Forge
    cache_dir: Path | None = None  # incremental-build state (default: the user's cache folder)
    clean: bool = False  # ignore the cache: a full build
    jobs: int = 0  # worker processes (0: one per core)
    part_bytes: int = 0  # a session whose page would pass about this much HTML is split into parts (0: sitegen.parts.PART_BYTES)
    prices: dict | None = None  # model-name prefix -> {input, output, cache_read, cache_write} in USD per million tokens, for estimated costs; None: the built-in estimate (insights.DEFAULT_PRICES); {}: no costs
    extra: dict = field(default_factory=dict)


def aggregate_jobs(config: Any, cap: int = 4) -> int:
    """Processes a site-wide output may fork for its own work (search chunks, ref pages):
    the build's ``jobs``, else one per core, at most ``cap``."""
    return max(1, min(getattr(config, "jobs", 0) or os.cpu_count() or 1, cap))
