"""What a build hands back: its figures, its problems, and a catalog of the sessions it published."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from sessite.analyze.session import SessionSummary
from sessite.model import Problem

# Lines printed of one kind of problem (one message) before the rest are counted in one line.
SHOWN_PER_KIND = 100


def problem_lines(problems: Iterable[Problem], shown: int = SHOWN_PER_KIND) -> Iterator[str]:
    """``path:line: message`` per problem, in order; past ``shown`` lines of one message, the
    rest of it is one line at the end (200,000 unrecognised files printed 200,001 lines)."""
    items = list(problems)
    counts = Counter(p.message for p in items)
    printed: Counter[str] = Counter()
    for problem in items:
        printed[problem.message] += 1
        if printed[problem.message] <= shown:
            yield str(problem)
    for message, count in counts.items():
        if count > shown:
            yield f"… and {count - shown:,} more like that: {message}"


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
