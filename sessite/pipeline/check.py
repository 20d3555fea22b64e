"""``sessite check ARCHIVE``: what a build would redact, and whether its output scan would pass,
without publishing anything.

The sessions are read through the same discovery, readers, settings and Redactor as a
build; what the Redactor replaced is told by comparing each session with its redacted
copy (``findings``), minus what ``exclude_sessions`` and ``hide_events`` leave out. Then,
unless asked to be quick, each session's page and downloads are rendered as the build's
workers render them, into a temporary folder, and scanned as the build scans its output
(``output_scan``): a hit there is a value redaction misses, which a build redacts everywhere
and builds again for, or stops on (``learned_elsewhere``).
"""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessite.analyze.redact import Redactor
from sessite.analyze.redact.allow import digest
from sessite.analyze.redact.findings import Difference, differences, mask
from sessite.config import SiteConfig
from sessite.model import Problem, Problems, Session, walk
from sessite.parallel import default_jobs
from sessite.pipeline.build_context import BuildContext
from sessite.pipeline.cache import source_key
from sessite.pipeline.folder_settings import LeaveOut
from sessite.pipeline.output_scan import Leak, scan_files
from sessite.pipeline.worker import SourceTask, discard, run_sources
from sessite.readers import Claim, discover


@dataclass(frozen=True)
class Finding:
    """One value a build would replace: where (the session's source and line, the field), and a masked preview."""

    kind: str
    path: str  # the file that holds it (a sub-agent's own file, not its parent's)
    line: int | None
    preview: str
    session: str  # the id the session is published under
    field: str
    context: str = ""  # its line, redacted, the value itself masked (findings.around)
    allow: str = ""  # the redact_allow entry that would keep it (a digest, never the value)

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.kind} {self.preview} ({self.field})"


@dataclass
class CheckReport:
    findings: list[Finding] = field(default_factory=list)
    leaks: list[Leak] = field(default_factory=list)  # what the build's output scan would find
    sessions: int = 0
    excluded: int = 0
    files: int = 0
    rendered: bool = False  # the pages were rendered and scanned
    problems: list[Problem] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not self.findings and not self.leaks

    def counts(self) -> Counter[str]:
        return Counter(f.kind for f in self.findings)

    def lines(self) -> list[str]:
        """The listing: each finding numbered (``--allow`` takes the numbers) with its line below it,
        one line per output-scan hit, then the summary."""
        out = []
        for number, f in enumerate(self.findings, 1):
            out.append(f"[{number}] {f}")
            if f.context:
                out.append(f"      {f.context}")
        out += [f"{leak} (redaction misses it: a build redacts it everywhere and builds again)" for leak in self.leaks]
        out.append(self.summary())
        return out

    def summary(self) -> str:
        sessions = f"{self.sessions} session{'s' if self.sessions != 1 else ''}"
        excluded = f", {self.excluded} excluded" if self.excluded else ""
        head = f"checked {sessions} from {self.files} file{'s' if self.files != 1 else ''}{excluded}: "
        if self.clean:
            return head + "nothing would be redacted" + ("" if self.rendered else " (pages not scanned: --quick)")
        parts = []
        if self.findings:
            total = len(self.findings)
            kinds = ", ".join(f"{kind} {n}" for kind, n in self.counts().most_common())
            parts.append(f"{total} value{'s' if total != 1 else ''} would be redacted ({kinds})")
        if self.leaks:
            parts.append(f"{len(self.leaks)} in the rendered pages would survive redaction (a build would run twice)")
        return head + "; ".join(parts)

    def as_json(self) -> dict[str, Any]:
        return {
            "clean": self.clean,
            "sessions": self.sessions,
            "excluded": self.excluded,
            "files": self.files,
            "rendered": self.rendered,
            "counts": dict(self.counts().most_common()),
            "findings": [
                {
                    "kind": f.kind,
                    "path": f.path,
                    "line": f.line,
                    "preview": f.preview,
                    "session": f.session,
                    "field": f.field,
                    "context": f.context,
                    "allow": f.allow,
                }
                for f in self.findings
            ],
            "output": [{"file": leak.url, "kind": leak.kind, "preview": mask(leak.value)} for leak in self.leaks],
            "problems": [str(p) for p in self.problems],
        }


def check(config: SiteConfig, render: bool = True) -> CheckReport:
    """List what a build of ``config`` would redact; with ``render``, also scan its session pages."""
    report = CheckReport(rendered=render and config.redact)
    redactor = Redactor.for_config(config)
    root = config.archive.resolve()
    problems = Problems(root if root.is_dir() else root.parent, Redactor.scrub_for(config))
    claims = discover(root, problems, include=config.include, exclude=config.exclude).claims
    report.files = len(claims)
    leave = LeaveOut.for_config(config)
    for claim in claims:
        for session in _sessions(claim, problems):
            redacted = redactor.value(session) if redactor is not None else session
            kept = leave.session(redacted, session.id, claim.path, problems)
            if kept is None:
                report.excluded += 1
                continue
            report.sessions += 1
            report.findings.extend(_findings(session, redacted, kept, problems))
    if report.rendered:
        report.leaks = _rendered_leaks(config, claims, problems.root, tuple(sorted(problems.trusted)))
    report.problems = problems.items
    return report


def _sessions(claim: Claim, problems: Problems) -> Iterator[Session]:
    try:
        yield from claim.read(problems)
    except Exception as exc:  # noqa: BLE001 - a reader bug costs only the rest of that file, as in a build
        problems.add(
            claim.path,
            None,
            f"{claim.reader.name} reader failed ({type(exc).__name__}: {exc}); the rest of this file is skipped",
        )


def _findings(original: Session, redacted: Session, kept: Session, problems: Problems) -> Iterator[Finding]:
    """What redaction replaced in ``original``, except in the events ``hide_events`` left out of ``kept``."""
    found = list(differences(original, redacted))
    if not found:
        return
    shown = {e.id for e in walk(kept.events)}
    hidden = {id(a) for a, b in zip(walk(original.events), walk(redacted.events)) if b.id not in shown}
    for d in found:
        if id(d.event) in hidden or (d.event is None and _dropped(d.field, redacted, kept)):
            continue
        path = problems.display(_holder(original.source.path, d.source))
        allow = digest(d.value) if d.value else ""
        yield Finding(d.kind, path, _line(d, original), mask(d.value), kept.id, d.field, d.context, allow)


def _holder(session_file: Path | str, source: str | None) -> Path:
    """The file a finding is in: the session's, or a sub-agent's beside it (``source``)."""
    path = Path(session_file)
    if not source:
        return path
    own = Path(source)
    return own if own.is_absolute() else path.parent / own


def _dropped(name: str, redacted: Session, kept: Session) -> bool:
    """A session field leaving out emptied (a title taken from a hidden prompt)."""
    top = name.split(".", 1)[0].split("[", 1)[0]
    return getattr(redacted, top, None) is not None and getattr(kept, top, None) is None


def _line(found: Difference, session: Session) -> int | None:
    return found.event.line if found.event is not None and found.event.line else session.source.line


def _rendered_leaks(
    config: SiteConfig, claims: list[Claim], display_root: Path | None, trusted: tuple[str, ...] = ()
) -> list[Leak]:
    """Render every session's pages and downloads as a build's workers do, into a temporary
    folder, and scan them as the build scans its output."""
    jobs = config.jobs or default_jobs()
    leaks: list[Leak] = []
    with tempfile.TemporaryDirectory(prefix="sessite-check-") as tmp:
        context = BuildContext.for_config(config, Path(tmp)).with_spool(Path(tmp))
        tasks = [
            SourceTask(source_key(c.reader.name, c.path), c.reader.name, c.path, display_root, c.group, (), trusted)
            for c in claims
        ]
        for result in run_sources(tasks, context, [], jobs):
            for s in result.sessions:
                files = [*(s.pages or []), *s.extra]
                leaks.extend(scan_files(config, files))
                discard(files)
    return leaks


def pick_numbers(spec: str, count: int) -> list[int]:
    """The finding numbers ``spec`` names, 1-based (``all``, ``3``, ``2,5-7``), checked against ``count``."""
    spec = spec.strip().lower()
    if spec == "all":
        return list(range(1, count + 1))
    numbers: list[int] = []
    for part in filter(None, (p.strip() for p in spec.split(","))):
        low, _, high = part.partition("-")
        if not low.isdigit() or (high and not high.isdigit()):
            raise ValueError(f"{part!r} is not a finding number or a range such as 2-5 (or all)")
        first, last = int(low), int(high or low)
        if not 1 <= first <= last <= count:
            raise ValueError(f"{part!r} is outside the findings listed (1 to {count})")
        numbers.extend(range(first, last + 1))
    return sorted(set(numbers))
