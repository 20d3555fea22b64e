"""The Qwen Code reader: ``~/.qwen/projects/<folder>/chats/<sessionId>.jsonl`` and the older
``~/.qwen/tmp/<project hash>/chats/session-*.json``.

One file is one session. A ``.jsonl`` chat is read twice: once to link records that name
each other (``index``), once to turn each record, in order, into events (``messages``,
``calls``, ``system``, ``telemetry``). Every record is shown, merged into the event that
shows it, or counted with a reason. Copies of one chat (a checkpointing tool keeps
several) share its ``sessionId``: ``session_key`` lets discovery read them together, and
event ids come from the records' own ids, so a record is one event whichever copy it is in.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sessite.model import GitRefs, Kind, Problems, Session, cut_words
from sessite.readers._util import text_of
from sessite.readers.base import Reader, Sniff, parse_time
from sessite.readers.formats.qwen_code import messages, system
from sessite.readers.formats.qwen_code.detect import is_chat_jsonl, is_legacy_document
from sessite.readers.formats.qwen_code.index import index_file
from sessite.readers.formats.qwen_code.legacy import read_document
from sessite.readers.formats.qwen_code.parts import split
from sessite.readers.formats.qwen_code.state import QwenFile
from sessite.readers.formats.qwen_code.vocabulary import AGENT, NAME
from sessite.readers.platform import Platform, unique

HANDLERS = {
    "user": messages.user,
    "assistant": messages.assistant,
    "tool_result": messages.tool_results,
    "system": system.system,
}


class QwenCodeReader(Reader):
    name = NAME
    dot_names = (".qwen",)  # found inside an archived project, too
    agent = AGENT

    def detect(self, sniffed: Sniff) -> bool:
        return is_chat_jsonl(sniffed) or is_legacy_document(sniffed)

    def session_key(self, sniffed: Sniff) -> str | None:
        """The ``sessionId`` of a chat's records: copies of one chat are read together."""
        if sniffed.path.suffix.lower() != ".jsonl":
            return None
        for record in sniffed.json_lines(5):
            key = text_of(record.get("sessionId"))
            if key:
                return key
        return None

    def default_folders(self, plat: Platform) -> list[Path]:
        """``~/.qwen`` (or ``$QWEN_HOME``; sessions go to ``$QWEN_RUNTIME_DIR`` when it is set):
        ``projects`` holds the chats, ``tmp`` the older ones. The same on every system."""
        bases = unique(b for b in (plat.var("QWEN_RUNTIME_DIR"), plat.var("QWEN_HOME"), plat.home / ".qwen") if b)
        return [base / part for base in bases for part in ("projects", "tmp")]

    def discovery_roots(self, folder: Path) -> tuple[Path, ...]:
        """Only the ``chats`` folders: ``tmp`` also holds shell history, logs and checkpoints."""
        try:
            return tuple(sorted(p for p in folder.glob("*/chats") if p.is_dir()))
        except OSError:
            return ()

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        if path.suffix.lower() == ".json":
            yield from read_document(path, problems)
            return
        index = index_file(path, problems)
        if not index.records:
            return
        f = QwenFile(path, problems, index)
        for line, record in index.records:
            _read_record(f, line, record)
        yield _session(f, path)


def _read_record(f: QwenFile, line: int, record: dict[str, Any]) -> None:
    kind = record.get("type")
    _note_facts(f, record)
    try:
        handler = HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is not None:
            handler(f, line, record)
        else:
            _unknown(f, line, record, kind)
    except Exception as exc:  # noqa: BLE001 - one odd record costs that record, never the file
        f.unreadable(line, f"{kind if isinstance(kind, str) else 'untyped'} record", record, exc)


def _note_facts(f: QwenFile, record: dict[str, Any]) -> None:
    """The fields every record repeats: folder, git branch, CLI version."""
    facts = f.facts
    cwd = text_of(record.get("cwd"))
    if cwd:
        facts.cwd = facts.cwd or cwd
        facts.folders.setdefault(cwd)
    branch = text_of(record.get("gitBranch"))
    if branch:
        facts.branches.setdefault(branch)
    version = text_of(record.get("version"))
    if version:
        facts.versions.setdefault(version)


def _unknown(f: QwenFile, line: int, record: dict[str, Any], kind: Any) -> None:
    """A record type this reader does not know: a titled note with its text, never raw JSON."""
    name = kind if isinstance(kind, str) and kind else "untyped"
    f.other(line, f"type {name}")
    f.put(
        text_of(record.get("uuid")) or f"record-{line}",
        None,
        kind=Kind.SYSTEM,
        timestamp=parse_time(record.get("timestamp")),
        title=cut_words(name, 60),
        text=split(record.get("message")).text,
        line=line,
    )


def _session(f: QwenFile, path: Path) -> Session:
    facts = f.facts
    meta = dict(facts.meta)
    if facts.versions:
        meta["Qwen Code version"] = ", ".join(facts.versions)
    others = [p for p in facts.folders if p != facts.cwd]
    if others:
        meta["other folders"] = others
    return f.finish(
        f.index.session_id or path.stem,
        events=f.transcript(),
        cwd=facts.cwd,
        title=f.index.title or facts.prompt,
        git=GitRefs(branches=tuple(facts.branches)),
        meta=meta,
    )


READER = QwenCodeReader()
