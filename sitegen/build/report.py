"""What a build hands back: its figures, its problems, and a catalog of the sessions it published."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from sitegen.analyze.session import SessionSummary
from sitegen.model import Problem


@dataclass(frozen=True)
class CatalogEntry:
    """One session as the preview server's tools know it: its summary and where to read it again."""

    summary: SessionSummary
    reader: str
    path: Path  # the claimed source (file or folder), absolute
    group: tuple[Path, ...] = ()  # other files of the same session, read with it (Claim.group)

    @property
    def sources(self) -> tuple[Path, ...]:
        return (self.path, *self.group)


@dataclass
class BuildReport:
    output: Path
    sessions: int = 0
    files: int = 0
    ignored: int = 0
    problems: list[Problem] = field(default_factory=list)
    redactions: Counter = field(default_factory=Counter)
    excluded: int = 0  # sessions left out (exclude_sessions in sessite.toml)
    leaks: list[str] = field(default_factory=list)  # what the output scan found (then nothing was published)
    seconds: float = 0.0
    sizes: dict[str, int] = field(default_factory=dict)  # url -> bytes of every published file
    pages: int = 0
    published: bool = False
    changed: bool = False  # False when the build found the published site already current
    reused: int = 0  # sources taken from the cache
    changed_urls: set[str] = field(default_factory=set)  # files written with new bytes, or removed
    deferred: list[str] = field(default_factory=list)  # aggregates left as they were (see build's ``defer``)
    catalog: list[CatalogEntry] | None = None  # one entry per session, for the preview server's tools
    cache_dir: Path | None = None  # where this build's cached aggregate items are (see cached_items)

    def summary_line(self) -> str:
        sessions = f"{self.sessions} session{'s' if self.sessions != 1 else ''}"
        files = f"{self.files} file{'s' if self.files != 1 else ''}"
        head = f"built {sessions} from {files} in {self.seconds:.1f}s"
        extras = [f"{len(self.problems)} problem{'s' if len(self.problems) != 1 else ''}"]
        redacted = sum(self.redactions.values())
        if redacted:
            extras.append(f"{redacted} secret{'s' if redacted != 1 else ''} redacted")
        if self.excluded:
            extras.append(f"{self.excluded} session{'s' if self.excluded != 1 else ''} excluded")
        if self.ignored:
            extras.append(f"{self.ignored} other file{'s' if self.ignored != 1 else ''} ignored")
        if self.reused:
            extras.append(f"{self.reused} unchanged")
        line = f"{head} ({', '.join(extras)})"
        if not self.published:
            return line + "; previous site left unchanged"
        return line + (f" → {self.output}" if self.changed else f"; {self.output} already up to date")
