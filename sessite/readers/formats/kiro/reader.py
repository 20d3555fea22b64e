"""The Kiro CLI reader: a saved or exported conversation (``{conversation_id, history}``
JSON, as ``/save`` writes it, or as Entire checkpoints keep it) and the CLI's own store,
``~/.local/share/kiro-cli/data.sqlite3`` (macOS: ``~/Library/Application Support/kiro-cli``).

Kiro CLI's newer engines (``~/.kiro/sessions``) and the Kiro IDE's workspace sessions are
other shapes, not read here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

from sessite.model import Kind, Problems, Session
from sessite.readers._util import SQLITE_ERRORS, SQLITE_HEADER, connect_ro, obj, text_of, to_float
from sessite.readers.base import Reader, Sniff, parse_time
from sessite.readers.files import load_json
from sessite.readers.formats.kiro.conversation import KiroBuilder, entries, read_entry
from sessite.readers.formats.kiro.database import conversation_tables, rows
from sessite.readers.formats.kiro.vocabulary import AGENT, NAME
from sessite.readers.platform import Platform, unique
from sessite.readers.safejson import loads

# A conversation document: ``conversation_id`` and a ``history`` whose first entry is a Kiro one.
_DOCUMENT = re.compile(
    r'"history"\s*:\s*\[\s*(?:\]|\[?\s*\{\s*"(?:user|assistant|request_metadata|additional_context|env_context|content)")'
)


class KiroReader(Reader):
    name = NAME
    agent = AGENT

    def detect(self, sniffed: Sniff) -> bool:
        path = sniffed.path
        if sniffed.is_dir:
            return False
        if path.suffix.lower() == ".json" or path.name == "full.jsonl":  # Entire keeps the document as full.jsonl
            head = sniffed.text(16384).lstrip()
            return head.startswith("{") and '"conversation_id"' in head and _DOCUMENT.search(head) is not None
        if sniffed.raw()[:16] != SQLITE_HEADER or path.suffix.lower() not in (".sqlite3", ".sqlite", ".db"):
            return False
        try:
            with closing(connect_ro(path)) as conn:
                tables = conversation_tables(conn)
        except SQLITE_ERRORS:
            return False
        return "conversations_v2" in tables or (bool(tables) and path.name == "data.sqlite3")

    def default_folders(self, plat: Platform) -> list[Path]:
        bases = [*plat.data_dirs, plat.home / "Library" / "Application Support"]
        return unique(base / "kiro-cli" / "data.sqlite3" for base in bases)

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        if path.suffix.lower() == ".json" or path.name == "full.jsonl":  # Entire keeps the document as full.jsonl
            value = load_json(path, problems)
            if not isinstance(value, dict):
                if value is not None:
                    problems.add(path, None, f"{NAME}: expected a conversation object, got {type(value).__name__}")
                return
            yield from _conversation(path, problems, value, 1, None)
            return
        try:
            found = list(rows(path))
        except SQLITE_ERRORS as exc:
            problems.add(path, None, f"{NAME}: cannot read the database ({exc})")
            return
        first = 1
        for row in found:
            try:
                value = loads(row.value)
            except ValueError as exc:
                problems.add(path, None, f"{NAME}: conversation {row.conversation_id or row.key} is not JSON ({exc})")
                continue
            if not isinstance(value, dict):
                problems.add(path, None, f"{NAME}: conversation {row.conversation_id or row.key} is not an object")
                continue
            yield from _conversation(path, problems, value, first, row)
            first += len(entries(value))


def _conversation(path: Path, problems: Problems, value: dict[str, Any], first: int, row: Any) -> Iterator[Session]:
    b = KiroBuilder(path, problems)
    summary = value.get("latest_summary")
    summary = summary[0] if isinstance(summary, list) and summary else summary
    if text_of(summary):
        b.emit("summary", kind=Kind.COMPACTION, text=summary, title="Summary of the earlier conversation")
    for offset, entry in enumerate(entries(value)):
        read_entry(b, first + offset, entry)
    info = obj(value.get("model_info"))
    b.model(text_of(info.get("model_id")) or text_of(info.get("model_name")) or text_of(value.get("model")))
    raw_id = text_of(value.get("conversation_id")) or ((row.conversation_id or row.key) if row else path.stem)
    yield b.finish(
        raw_id,
        started=parse_time(row.created) if row is not None else None,
        cwd=b.cwd or (row.key if row is not None and row.key else None),
        title=b.title,
        meta=_facts(value, b, row),
    )


def _facts(value: dict[str, Any], b: KiroBuilder, row: Any) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    if b.system:
        facts["operating system"] = b.system
    info = obj(value.get("model_info"))
    if isinstance(info.get("context_window_tokens"), int):
        facts["context window"] = info["context_window_tokens"]
    tools = obj(value.get("tools"))
    offered = sum(len(v) for v in tools.values() if isinstance(v, list))
    if offered:
        facts["tools offered"] = offered
    credits = [to_float(obj(u).get("value")) for u in obj(value.get("user_turn_metadata")).get("usage_info") or ()]
    if any(c is not None for c in credits):
        facts["credits"] = round(sum(c for c in credits if c is not None), 4)
    if row is not None:
        facts["stored in"] = row.table
        updated = parse_time(row.updated)
        if updated is not None:
            facts["updated"] = updated.isoformat()
    return facts


READER = KiroReader()
