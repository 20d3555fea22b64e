"""``sessite convert INPUT --to aics|hail|markdown -o OUTPUT``: any format sessite reads, out as an export.

Where the output goes:
- ``-o FOLDER`` (anything not ending in the format's suffix): one file per
  session, ``FOLDER/<session id>.aics.json`` / ``.hail.jsonl`` / ``.md``.
- ``-o FILE.aics.json`` (or ``.json``): one AICS document with every session.
- ``-o FILE.hail.jsonl`` / ``.jsonl`` or ``FILE.md``: exactly one session (HAIL
  and the Markdown transcript hold one each); more is an error.
- ``-o -``: standard output, with the same rule as a file.

Secrets are redacted exactly as in a build (on unless ``--no-redact``; the
archive's sessite.toml patterns and allow-list apply). Files are written
atomically; nothing is written inside a folder given as INPUT.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Sequence

from .exports import SUFFIXES, aics_bytes, export_session
from .model import Problem, Session
from .readers import Problems, discover
from .redact import Redactor

FILE_SUFFIXES = {"aics": (".aics.json", ".json"), "hail": (".hail.jsonl", ".jsonl"), "markdown": (".md", ".markdown")}


class ConvertError(Exception):
    """The conversion cannot be done as asked; nothing was written."""


@dataclass
class ConvertReport:
    sessions: int = 0
    written: list[Path] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    redactions: Counter = field(default_factory=Counter)


def target_kind(output: str | Path, fmt: str) -> str:
    """"stdout", "file" or "folder", from how OUTPUT is spelled."""
    text = str(output)
    if text == "-":
        return "stdout"
    return "file" if text.lower().endswith(FILE_SUFFIXES[fmt]) else "folder"


def convert(source: Path, fmt: str, output: str | Path, redactor: Redactor | None = None,
            include: Sequence[str] = (), exclude: Sequence[str] = ()) -> ConvertReport:
    if fmt not in SUFFIXES:
        raise ConvertError(f"unknown format {fmt!r} (aics, hail or markdown)")
    kind = target_kind(output, fmt)
    source = source.resolve()
    out_path = None if kind == "stdout" else Path(output).resolve()
    if out_path is not None and source.is_dir() and (out_path == source or source in out_path.parents):
        raise ConvertError(f"{output} is inside the input folder {source}; it would be read as sessions next time")
    root = source if source.is_dir() else source.parent
    problems = Problems(root)
    report = ConvertReport()
    sessions: list[Session] = []
    seen: dict[str, str] = {}
    for claim in discover(source, problems, include=include, exclude=exclude).claims:
        try:
            for session in claim.reader.read(claim.path, problems):
                if redactor is not None:
                    session = redactor.value(session)
                display = problems.display(session.source.path)
                if session.id in seen:
                    problems.add(session.source.path, session.source.line, f"session id {session.id} already read from {seen[session.id]}; this copy skipped", "convert")
                    continue
                seen[session.id] = display
                sessions.append(replace(session, source=replace(session.source, path=display)))
        except Exception as exc:  # noqa: BLE001 - a reader bug costs only the rest of that file
            problems.add(claim.path, None, f"{claim.reader.name} reader failed ({type(exc).__name__}: {exc}); the rest of this file is skipped")
    report.problems = problems.items
    report.redactions = redactor.counts if redactor is not None else Counter()
    report.sessions = len(sessions)
    if not sessions:
        raise ConvertError(f"no sessions found in {source}")
    if kind in ("file", "stdout") and fmt != "aics" and len(sessions) > 1:
        raise ConvertError(f"{len(sessions)} sessions found, and a {fmt} file holds one: give a folder for -o (one file per session)")

    if kind == "stdout":
        data = aics_bytes(sessions) if fmt == "aics" else export_session(sessions[0], fmt)
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return report
    assert out_path is not None
    if kind == "file":
        data = aics_bytes(sessions) if fmt == "aics" else export_session(sessions[0], fmt)
        _write(out_path, data)
        report.written.append(out_path)
        return report
    if out_path.exists() and not out_path.is_dir():
        raise ConvertError(f"{output} is a file; give a folder, or a name ending in {FILE_SUFFIXES[fmt][0]}")
    out_path.mkdir(parents=True, exist_ok=True)
    for session in sessions:
        target = out_path / f"{session.id}{SUFFIXES[fmt]}"
        _write(target, export_session(session, fmt))
        report.written.append(target)
    return report


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".sessite-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
