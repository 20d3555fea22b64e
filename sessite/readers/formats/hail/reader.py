"""The HAIL reader: JSONL (header, events, stats lines) or one HAIL JSON document.

A file sessite exported itself is given back as it was (``sessite_extension``);
anything else is read record by record into a ``HailAssembly``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from sessite.model import Problems, Session
from sessite.readers.base import Reader, Sniff
from sessite.readers.files import iter_jsonl, load_json
from sessite.readers.formats.hail.acp import is_acp_header, read_acp
from sessite.readers.formats.hail.assemble import HailAssembly
from sessite.readers.formats.hail.detect import (
    DETECT_BYTES,
    is_acp_file,
    is_json_document,
    looks_like_hail,
    top_level_keys,
)
from sessite.readers.sessite_extension import read_hail_file


class HailReader(Reader):
    name = "hail"
    claims_directories = False

    def detect(self, sniffed: Sniff) -> bool:
        return looks_like_hail(sniffed)

    def session_key(self, sniffed: Sniff) -> str | None:
        """The header's session_id: successive uploads of one session (opensession re-syncs a
        growing session) are read together and merged by event_id."""
        line = sniffed.object_line(DETECT_BYTES)
        if line is None:
            return None
        head, _first, obj = line
        if obj is not None and obj.get("type") == "header":
            sid = obj.get("session_id")
        elif is_acp_header(obj):
            sid = obj.get("sessionId") if obj is not None else None
        else:
            sid = top_level_keys(head).get("session_id") if obj is None else None
        if isinstance(sid, (str, int)) and not isinstance(sid, bool) and str(sid).strip():
            return f"hail:{sid}"
        return None

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        if is_json_document(path):
            yield from self._read_document(path, problems)
            return
        if is_acp_file(path):
            session = read_acp(path, problems)  # opensession's ACP-shaped storage
            if session is not None:
                yield session
            return
        exported = read_hail_file(path, problems)  # sessite's own export: its extension gives back every field
        if exported is not None:
            yield exported
        else:
            yield from self._read_jsonl(path, problems)

    def _read_jsonl(self, path: Path, problems: Problems) -> Iterator[Session]:
        builder = HailAssembly(path, problems, json_mode=False)
        for lineno, obj in iter_jsonl(path, problems):
            kind = obj.get("type")
            if kind == "header":
                builder.add_header(obj, lineno)
            elif kind == "event":
                builder.add_event(obj, lineno)
            elif kind == "stats":
                builder.add_stats(obj, lineno)
            else:
                builder.add_unknown_line(obj, lineno)
        session = builder.finish()
        if session is not None:
            yield session

    def _read_document(self, path: Path, problems: Problems) -> Iterator[Session]:
        doc = load_json(path, problems)
        if doc is None:
            return
        if not isinstance(doc, dict):
            problems.add(path, None, f"HAIL JSON: top level is {type(doc).__name__}, expected an object")
            return
        builder = HailAssembly(path, problems, json_mode=True)
        builder.add_header({k: v for k, v in doc.items() if k not in ("events", "stats")}, None)
        events = doc.get("events")
        if not isinstance(events, list):
            problems.add(path, None, "HAIL JSON: 'events' is missing or not an array")
            events = []
        for index, obj in enumerate(events):
            if not isinstance(obj, dict):
                problems.add(path, None, f"HAIL JSON: events[{index}] is {type(obj).__name__}, not an object; skipped")
                builder.skip(index + 1, "event that is not an object")
                continue
            builder.add_event(obj, index + 1)
        stats = doc.get("stats")
        if isinstance(stats, dict):
            builder.add_stats(stats, None)
        elif stats is not None:
            problems.add(path, None, "HAIL JSON: 'stats' is not an object; ignored")
        session = builder.finish()
        if session is not None:
            yield session


READER = HailReader()
