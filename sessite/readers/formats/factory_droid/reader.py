"""The Factory Droid reader: ``~/.factory/sessions/<folder>/<id>.jsonl`` (with ``<id>.settings.json``),
and the output of ``droid exec --output-format stream-json`` kept in a ``.jsonl`` file.

One file is one session. The session store is read by ``store``, a stream by ``stream``;
every line is shown, merged or counted with a reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sessite.model import GitRefs, Problems, Session
from sessite.readers._util import named, text_of
from sessite.readers.base import Reader, Sniff
from sessite.readers.files import iter_jsonl
from sessite.readers.formats.factory_droid import store, stream
from sessite.readers.formats.factory_droid.state import DroidFile
from sessite.readers.formats.factory_droid.vocabulary import AGENT, NAME
from sessite.readers.platform import Platform, unique


class FactoryDroidReader(Reader):
    name = NAME
    agent = AGENT

    def detect(self, sniffed: Sniff) -> bool:
        if sniffed.path.suffix.lower() != ".jsonl":
            return False
        head = sniffed.object_line()
        first = head[2] if head is not None else None
        if first is None:
            return False
        if first.get("type") == "session_start":
            return isinstance(first.get("id"), str) and any(k in first for k in ("cwd", "owner", "sessionTitle"))
        return _stream_records(list(sniffed.json_lines(6)))

    def companions(self, path: Path) -> list[Path]:
        settings = _settings(path)
        return [settings] if settings is not None else []

    def session_key(self, sniffed: Sniff) -> str | None:
        head = sniffed.object_line()
        first = head[2] if head is not None else None
        return text_of(first.get("id")) if first is not None and first.get("type") == "session_start" else None

    def default_folders(self, plat: Platform) -> list[Path]:
        """``~/.factory/sessions`` on every system (``%USERPROFILE%\\.factory`` on Windows)."""
        return unique([plat.home / ".factory" / "sessions"])

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        f = DroidFile(path, problems)
        streamed: bool | None = None
        for line, rec in iter_jsonl(path, problems):
            if streamed is None:
                streamed = rec.get("type") != "session_start"
            try:
                (stream.record if streamed else store.record)(f, line, rec)
            except Exception as exc:  # noqa: BLE001 - one odd record costs that record, never the file
                f.unreadable(line, "record", rec, exc)
        settings = _settings(path)
        if settings is not None:
            store.settings(f, settings, problems)
        if streamed is None:
            return
        facts = f.facts
        yield f.finish(
            facts.session_id or path.stem,
            cwd=facts.cwd,
            title=facts.title,
            git=GitRefs(branches=tuple(facts.branches), commits=tuple(facts.commits)),
            usage=facts.usage,
            meta=facts.meta,
        )


def _settings(path: Path) -> Path | None:
    candidate = path.with_name(f"{path.stem}.settings.json")
    return candidate if candidate.is_file() else None


def _stream_records(records: list[dict[str, Any]]) -> bool:
    """Records of Droid's stream: most of them stream-shaped (one damaged record, its type
    or session id broken, does not hide the rest) and at least one only Droid writes."""
    streamed = sum(_streamed(r) for r in records)
    return streamed > 0 and 2 * streamed > len(records) and any(_droid_only(r) for r in records)


def _streamed(record: dict[str, Any]) -> bool:
    return named(record.get("type"), stream.STREAM_TYPES) and bool(stream.session_of(record))


def _droid_only(record: dict[str, Any]) -> bool:
    """A record only Droid's stream writes (Claude Code's stream has no flat ``text`` messages,
    ``toolName`` calls or ``finalText`` completions)."""
    kind = record.get("type")
    return (
        (kind == "message" and isinstance(record.get("text"), str) and "role" in record)
        or (kind == "tool_call" and isinstance(record.get("toolName"), str))
        or (kind == "completion" and "finalText" in record)
    )


READER = FactoryDroidReader()
