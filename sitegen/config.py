"""Site settings: everything a build needs to know besides the archive itself."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class SiteConfig:
    archive: Path
    output: Path | None  # None: serve picks a temporary folder
    title: str = "Session archive"
    base_url: str = ""  # absolute URL of the published site, for the few places that need one
    redact: bool = True
    strict: bool = False  # exit non-zero when any problem was found
    template_dirs: tuple[Path, ...] = ()  # user templates, searched before the package's
    static_dirs: tuple[Path, ...] = ()  # user static files, copied over the package's
    progress: bool = True
    extra: dict = field(default_factory=dict)
