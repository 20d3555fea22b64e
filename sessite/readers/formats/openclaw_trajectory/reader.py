"""The OpenClaw trace reader: one session per ``<id>.trajectory.jsonl`` whose transcript is gone;
beside its transcript a trace is recognised and said to hold no conversation of its own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sessite.model import Problems, Session
from sessite.readers._util import text_of
from sessite.readers.base import Reader, Sniff
from sessite.readers.builder import SessionBuilder
from sessite.readers.files import iter_jsonl
from sessite.readers.formats.openclaw_trajectory.events import add_record
from sessite.readers.platform import Platform

NAME = "openclaw_trajectory"
SUFFIX = ".trajectory.jsonl"
SCHEMA = '"traceSchema":"openclaw-trajectory"'


def transcript_of(path: Path) -> Path:
    return path.with_name(path.name[: -len(SUFFIX)] + ".jsonl")


def _is_trace(sniffed: Sniff) -> bool:
    if sniffed.is_dir or not sniffed.path.name.endswith(SUFFIX):
        return False
    head = sniffed.text(4096).lstrip()
    return head.startswith("{") and SCHEMA in head.replace(" ", "")


class OpenClawTrajectoryReader(Reader):
    name = NAME
    agent = "openclaw"  # its folder also holds the transcripts, which the pi reader reads
    dot_names = (".openclaw",)

    def detect(self, sniffed: Sniff) -> bool:
        return _is_trace(sniffed) and not transcript_of(sniffed.path).is_file()

    def holds_nothing(self, sniffed: Sniff) -> str | None:
        """A trace whose transcript the pi reader did not take (it reads it with the transcript
        otherwise), and OpenClaw's index of sessions, ``sessions.json``."""
        if sniffed.path.name == "sessions.json":
            head = sniffed.text(4096)
            if '"sessionId"' in head and '"sessionFile"' in head:
                return "OpenClaw's index of sessions (sessions.json): the sessions are the files beside it"
            return None
        if _is_trace(sniffed):
            return (
                f"OpenClaw's run trace of {transcript_of(sniffed.path).name}, which holds the conversation (pi reader)"
            )
        return None

    def default_folders(self, plat: Platform) -> list[Path]:
        """``agents`` (one folder per agent, each with ``sessions/``) in ``$OPENCLAW_STATE_DIR``, else
        ``~/.openclaw``; the same on Linux, macOS and Windows (``%USERPROFILE%``)."""
        return [(plat.var("OPENCLAW_STATE_DIR") or plat.home / ".openclaw") / "agents"]

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        b = SessionBuilder(NAME, path, problems, agent="openclaw", label="openclaw trace")
        first: dict[str, Any] = {}
        for line, record in iter_jsonl(path, problems):
            first = first or record
            add_record(b, line, record)
        if not first:
            return
        facts = {
            "session key": text_of(first.get("sessionKey")),
            "workspace": text_of(first.get("workspaceDir")),
            "provider": text_of(first.get("provider")),
            "transcript": f"{transcript_of(path).name} (not here: this trace is all that is left)",
        }
        raw_id = text_of(first.get("sessionId")) or path.name[: -len(SUFFIX)]
        yield b.finish(raw_id, cwd=facts["workspace"], meta={k: v for k, v in facts.items() if v})


READER = OpenClawTrajectoryReader()
