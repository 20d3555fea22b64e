"""Publishing on GitHub Pages: the size limits and the workflow.

- ``pages_limit_warnings`` tells when a built site nears what Pages accepts
  (1 GB per site, 100 MB per file).
- ``github_pages_workflow`` is the workflow ``sessite init --github-pages`` writes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from importlib.metadata import PackageNotFoundError, metadata
from pathlib import Path

from sessite import __version__

# The project's repository when the installed package's metadata does not name one ([project.urls] Source).
REPOSITORY = "https://github.com/sessite/sessite"

PAGES_SITE_LIMIT = 1_000_000_000  # "Published GitHub Pages sites may be no larger than 1 GB"
PAGES_FILE_LIMIT = 100_000_000  # GitHub refuses files over 100 MB
WARN_AT = 0.8  # warn from this fraction of a limit


# ------------------------------------------------------------------ size limits


def _sizes(site: Path) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for dirpath, _, filenames in os.walk(site):
        for name in filenames:
            path = Path(dirpath) / name
            try:
                sizes[path.relative_to(site).as_posix()] = path.stat().st_size
            except OSError:
                continue
    return sizes


def _mb(n: int) -> str:
    return f"{n / 1e9:.2f} GB" if n >= 1e9 else f"{n / 1e6:.1f} MB"


def pages_limit_warnings(
    site: Path | Mapping[str, int], site_limit: int = PAGES_SITE_LIMIT, file_limit: int = PAGES_FILE_LIMIT
) -> list[str]:
    """Warnings for a site (a folder, or url -> size) near or over GitHub Pages' limits."""
    sizes = dict(site) if isinstance(site, Mapping) else _sizes(Path(site))
    total = sum(sizes.values())
    warnings: list[str] = []
    hint = "(smaller: --exports none, or exclude sessions in sessite.toml)"
    if total > site_limit:
        warnings.append(f"the site is {_mb(total)}: over GitHub Pages' {_mb(site_limit)} site limit {hint}")
    elif total > site_limit * WARN_AT:
        warnings.append(f"the site is {_mb(total)}: near GitHub Pages' {_mb(site_limit)} site limit {hint}")
    big = sorted(((size, url) for url, size in sizes.items() if size > file_limit * WARN_AT), reverse=True)
    for size, url in big[:10]:
        word = "over" if size > file_limit else "near"
        warnings.append(f"{url} is {_mb(size)}: {word} GitHub's {_mb(file_limit)} per-file limit")
    if len(big) > 10:
        warnings.append(f"… and {len(big) - 10} more files near or over {_mb(file_limit)}")
    return warnings


# ------------------------------------------------------------------ the workflow

WORKFLOW_PATH = Path(".github/workflows/sessite-pages.yml")


# The workflow, filled in by github_pages_workflow ({{ and }} are literal braces).
_WORKFLOW = """# Publishes the session archive in {archive}/ to GitHub Pages with sessite.
# Written by `sessite init --github-pages`. In the repository's settings, under
# Pages, set "Build and deployment" to "GitHub Actions".
# Secrets are redacted by default; settings live in {archive}/sessite.toml.
name: Publish sessions

on:
  push:
    branches: ["{branch}"]
  workflow_dispatch:

permissions:
  contents: read
  pages: write
  id-token: write

concurrency:
  group: pages
  cancel-in-progress: false

jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "{python}"
      - name: Install sessite
        run: python -m pip install "{install}"{fallback}
      - name: Configure Pages
        id: pages
        uses: actions/configure-pages@v5
      - name: Build the site
        run: sessite build "{archive}" -o "{output}" --base-url "${{{{ steps.pages.outputs.base_url }}}}/" --quiet
      - name: Upload the site
        uses: actions/upload-pages-artifact@v3
        with:
          path: "{output}"

  deploy:
    needs: build
    runs-on: ubuntu-latest
    environment:
      name: github-pages
      url: ${{{{ steps.deployment.outputs.page_url }}}}
    steps:
      - name: Deploy to GitHub Pages
        id: deployment
        uses: actions/deploy-pages@v4
"""


def repository_url() -> str:
    """The project's source repository, as the installed package's metadata names it."""
    try:
        entries = metadata("sessite").get_all("Project-URL") or []
    except PackageNotFoundError:
        entries = []
    for entry in entries:
        label, _, url = entry.partition(",")
        if label.strip().lower() in ("source", "repository") and url.strip().startswith("https://"):
            return url.strip().removesuffix(".git")
    return REPOSITORY


def default_install(version: str = __version__, repository: str | None = None) -> tuple[str, str]:
    """What the workflow installs: this version from PyPI, else the same version from its git tag.

    ``sessite==X`` is the wheel on PyPI once X is released there; until then (or when PyPI is
    down) pip builds the tagged source, ``sessite @ git+<repository>@vX``, which exists as soon
    as the release tag is pushed. Both pin the version that wrote the workflow.
    """
    return f"sessite=={version}", f"sessite @ git+{repository or repository_url()}@v{version}"


def github_pages_workflow(
    archive: str = "sessions",
    output: str = "_site",
    install: str | None = None,
    branch: str = "main",
    python: str = "3.12",
    repository: str | None = None,
) -> str:
    """A GitHub Actions workflow: build the archive with sessite, deploy with the official Pages actions.

    ``install``: one pip requirement to install; by default ``default_install()``'s two, the
    second tried when the first fails."""
    from_git = None
    if install is None:
        install, from_git = default_install(__version__, repository)
    for name, value in (
        ("archive", archive),
        ("output", output),
        ("install", install),
        ("repository", from_git or install),
        ("branch", branch),
        ("python", python),
    ):
        if (
            not value
            or any(c in value for c in "\n\r\"'`$\\")
            or value.startswith(("-", "{", "[", "&", "*", "!", "|", ">", "%", "@"))
        ):
            raise ValueError(f"{name} {value!r} cannot go in the workflow (no quotes, $, backslashes or newlines)")
    fallback = f' || python -m pip install "{from_git}"' if from_git else ""
    return _WORKFLOW.format(
        archive=archive, output=output, install=install, fallback=fallback, branch=branch, python=python
    )
