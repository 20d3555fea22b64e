"""``sessite convert INPUT --to aics|hail|markdown|html -o OUTPUT``: any format sessite reads, out as an export.

Where the output goes:
- ``-o FOLDER`` (anything not ending in the format's suffix): one file per
  session, ``FOLDER/<session id>.aics.json`` / ``.hail.jsonl`` / ``.md``.
- ``-o FILE.aics.json`` (or ``.json``): one AICS document with every session.
- ``-o FILE.hail.jsonl`` / ``.jsonl``, ``FILE.md`` or ``FILE.html``: exactly one session
  (HAIL, the Markdown transcript and the single HTML file hold one each); more is an error.
- ``--to html``: the session's page as one self-contained file (``sessite/outputs/single_file.py``).
- ``-o -``: standard output, with the same rule as a file.

Secrets are redacted exactly as in a build (on unless ``--no-redact``; the
archive's sessite.toml patterns and allow-list apply). Files are written
atomically; nothing is written inside a folder given as INPUT. INPUT may be a
gzip file (``.gz``, such as a site's download): it is read as what it holds.
"""

from __future__ import annotations

import gzip
import os
import sys
import tempfile
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import BinaryIO

from sessite.analyze.image_metadata import session_without_image_metadata
from sessite.analyze.redact import Redactor
from sessite.interchange.aics import aics_chunks
from sessite.interchange.formats import export_chunks
from sessite.model import Problem, Problems, Session
from sessite.outputs.single_file import SingleFilePacker, SingleFileSettings
from sessite.pipeline.folder_settings import LeaveOut
from sessite.readers import discover
from sessite.readers.limits import MAX_GUNZIP_BYTES, MIB
from sessite.readers.merge import copy_id

FILE_SUFFIXES = {
    "aics": (".aics.json", ".json"),
    "hail": (".hail.jsonl", ".jsonl"),
    "markdown": (".md", ".markdown"),
    "html": (".html", ".htm"),
}
Chunks = Callable[[Session], Iterable[bytes]]  # one session's file, in pieces


class ConvertError(Exception):
    """The conversion cannot be done as asked; nothing was written."""


@dataclass
class ConvertReport:
    sessions: int = 0
    written: list[Path] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    redactions: Counter = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)  # what a file changed to fit (--to html: images shrunk)


def target_kind(output: str | Path, fmt: str) -> str:
    """ "stdout", "file" or "folder", from how OUTPUT is spelled."""
    text = str(output)
    if text == "-":
        return "stdout"
    return "file" if text.lower().endswith(FILE_SUFFIXES[fmt]) else "folder"


def convert(
    source: Path,
    fmt: str,
    output: str | Path,
    redactor: Redactor | None = None,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    packer: SingleFilePacker | None = None,
    leave: LeaveOut | None = None,
) -> ConvertReport:
    """``packer`` makes the files of ``--to html`` (default settings when None); ``leave``: the
    sessions and events sessite.toml leaves out (``exclude_sessions``, ``hide_events``)."""
    if fmt not in FILE_SUFFIXES:
        raise ConvertError(f"unknown format {fmt!r} (aics, hail, markdown or html)")
    kind = target_kind(output, fmt)
    source = source.resolve()
    out_path = None if kind == "stdout" else Path(output).resolve()
    if out_path is not None and source.is_dir() and (out_path == source or source in out_path.parents):
        raise ConvertError(f"{output} is inside the input folder {source}; it would be read as sessions next time")
    report = ConvertReport()
    if source.is_file() and source.name.lower().endswith(".gz"):
        sessions, report.problems = _read_gzipped(source, redactor, include, exclude, leave)
    else:
        sessions, report.problems = _read(
            source, source if source.is_dir() else source.parent, redactor, include, exclude, leave
        )
    report.redactions = redactor.counts if redactor is not None else Counter()
    report.sessions = len(sessions)
    if not sessions:
        left_out = f" ({leave.excluded} left out by exclude_sessions)" if leave is not None and leave.excluded else ""
        why = "".join(f"\n{p}" for p in report.problems[:_PROBLEMS_SHOWN])  # a cap met says so
        more = len(report.problems) - _PROBLEMS_SHOWN
        raise ConvertError(
            f"no sessions found in {source}{left_out}{why}" + (f"\n… and {more:,} more" if more > 0 else "")
        )
    if kind in ("file", "stdout") and fmt != "aics" and len(sessions) > 1:
        raise ConvertError(
            f"{len(sessions)} sessions found, and a {fmt} file holds one: give a folder for -o (one file per session)"
        )
    chunks = _html_chunks(packer or SingleFilePacker(SingleFileSettings()), report) if fmt == "html" else None
    _write_sessions(sessions, fmt, kind, out_path, output, report, chunks or (lambda s: export_chunks(s, fmt)))
    return report


def _html_chunks(packer: SingleFilePacker, report: ConvertReport) -> Chunks:
    """``--to html``: each session packed into one file; what was shrunk goes into the report."""

    def chunks(session: Session) -> Iterable[bytes]:
        packed = packer.pack(session)
        report.notes.extend(f"{session.id}: {change}" for change in packed.changes)
        return (packed.data,)

    return chunks


def _read(
    source: Path,
    root: Path,
    redactor: Redactor | None,
    include: Sequence[str],
    exclude: Sequence[str],
    leave: LeaveOut | None = None,
) -> tuple[list[Session], list[Problem]]:
    """Every session in ``source`` (redacted, source paths shown relative to ``root``) and the problems met."""
    problems = Problems(root, Redactor().text if redactor is not None else None)
    sessions: list[Session] = []
    seen: dict[str, str] = {}
    for claim in discover(source, problems, include=include, exclude=exclude).claims:
        try:
            for session in claim.read(problems):
                display = problems.display(session.source.path)  # (before redaction, as in a build)
                read_id = session.id
                if redactor is not None:
                    session = redactor.value(replace(session, source=replace(session.source, path=display)))
                    display = session.source.path
                session = session_without_image_metadata(session)
                kept = leave.session(session, read_id, claim.path, problems) if leave is not None else session
                if kept is None:
                    continue
                session = kept
                if session.id in seen:
                    new_id = copy_id(session.id, str(claim.path), seen.keys())
                    problems.add(
                        session.source.path,
                        session.source.line,
                        f"session id {session.id} already read from {seen[session.id]}; "
                        f"this file's session is kept as {new_id}",
                        "convert",
                    )
                    session = replace(session, id=new_id)
                seen[session.id] = display
                sessions.append(replace(session, source=replace(session.source, path=display)))
        except Exception as exc:  # noqa: BLE001 - a reader bug costs only the rest of that file
            problems.add(
                claim.path,
                None,
                f"{claim.reader.name} reader failed ({type(exc).__name__}: {exc}); the rest of this file is skipped",
            )
    return sessions, problems.items


def _read_gzipped(
    source: Path,
    redactor: Redactor | None,
    include: Sequence[str],
    exclude: Sequence[str],
    leave: LeaveOut | None = None,
) -> tuple[list[Session], list[Problem]]:
    """A gzip file (e.g. a site's ``<id>.hail.jsonl.gz`` download): read what it holds, as if it were
    ``source`` without ``.gz``. The readers take plain files, so it is unpacked to a temporary one."""
    shown = source.name
    with tempfile.TemporaryDirectory(prefix="sessite-convert-") as tmp:
        plain = Path(tmp) / shown[: -len(".gz")]
        try:
            with gzip.open(source, "rb") as packed, open(plain, "wb") as fh:
                _copy_capped(packed, fh, source)
        except (OSError, EOFError, zlib.error) as exc:
            raise ConvertError(f"{source} is not a readable gzip file ({exc})") from None
        sessions, problems = _read(plain, Path(tmp), redactor, include, exclude, leave)
    named = plain.name
    sessions = [replace(s, source=replace(s.source, path=shown)) if s.source.path == named else s for s in sessions]
    return sessions, [
        replace(p, source=shown + p.source[len(named) :]) if p.source.startswith(named) else p for p in problems
    ]


_PROBLEMS_SHOWN = 10  # problem lines shown when nothing could be converted


def _copy_capped(packed: gzip.GzipFile, fh: BinaryIO, source: Path) -> None:
    """Unpack ``packed`` into ``fh``, refusing past ``MAX_GUNZIP_BYTES`` (a 2 MB gzip of spaces
    unpacks to 2 GB: its temporary file would fill the disk)."""
    written = 0
    while chunk := packed.read(MIB):
        written += len(chunk)
        if written > MAX_GUNZIP_BYTES:
            raise ConvertError(
                f"{source}: unpacks to more than {MAX_GUNZIP_BYTES // MIB} MB (the cap on a gzip file); not read"
            )
        fh.write(chunk)


def _write_sessions(
    sessions: list[Session],
    fmt: str,
    kind: str,
    out_path: Path | None,
    output: str | Path,
    report: ConvertReport,
    chunks: Chunks,
) -> None:
    """Write the export where ``kind`` says (``chunks`` makes one session's file); record each file written."""
    if kind == "stdout":
        for chunk in _one_file(sessions, fmt, chunks):
            sys.stdout.buffer.write(chunk)
        sys.stdout.buffer.flush()
        return
    assert out_path is not None
    if kind == "file":
        _write(out_path, _one_file(sessions, fmt, chunks))
        report.written.append(out_path)
        return
    if out_path.exists() and not out_path.is_dir():
        raise ConvertError(f"{output} is a file; give a folder, or a name ending in {FILE_SUFFIXES[fmt][0]}")
    out_path.mkdir(parents=True, exist_ok=True)
    for session in sessions:
        target = out_path / f"{session.id}{FILE_SUFFIXES[fmt][0]}"
        _write(target, chunks(session))
        report.written.append(target)


def _one_file(sessions: list[Session], fmt: str, chunks: Chunks) -> Iterable[bytes]:
    """The pieces of a single-file export: every session for AICS, the only one otherwise."""
    return aics_chunks(sessions) if fmt == "aics" else chunks(sessions[0])


def _write(path: Path, chunks: Iterable[bytes]) -> None:
    """Write the pieces to ``path`` atomically (a temporary file beside it, then a rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".sessite-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            for chunk in chunks:
                fh.write(chunk)
        os.chmod(tmp, 0o666 & ~_umask())  # a file to share, not mkstemp's owner-only 0600
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    """The process's umask (read by setting it back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
