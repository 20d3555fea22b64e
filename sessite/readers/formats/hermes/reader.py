"""The Hermes Agent reader: one session per ``<id>.jsonl`` (with the ``session_<id>.json``
snapshot beside it as a companion), or per ``session_<id>.json`` alone.

The JSON-lines file is the transcript Hermes appends to, every message stamped; the snapshot
is rewritten whole on each turn and keeps no times, and after a context compression it holds
messages the transcript lacks (and lacks some it has). So the transcript is the session, and
each snapshot message it does not hold is put after the last message both share.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sessite.model import Problems, Session
from sessite.readers._util import text_of
from sessite.readers.base import Reader, Sniff, parse_time
from sessite.readers.builder import SessionBuilder
from sessite.readers.files import iter_jsonl, load_json
from sessite.readers.formats.hermes.messages import add_message, key
from sessite.readers.platform import Platform

NAME = "hermes"
_SNAPSHOT = re.compile(r"^session_(.+)\.json$")
_SNAPSHOT_KEYS = ('"session_id"', '"messages"')
_TRANSCRIPT = re.compile(r"^\d{8}_\d{6}_[0-9a-f]{6,}\.jsonl$")
_ROLES = ("user", "assistant", "tool", "system")


class HermesReader(Reader):
    name = NAME
    agent = NAME
    dot_names = (".hermes",)

    def detect(self, sniffed: Sniff) -> bool:
        if sniffed.is_dir:
            return False
        suffix = sniffed.path.suffix.lower()
        if suffix == ".jsonl":
            line = sniffed.object_line()
            if line is None:
                return False
            head, first, found = line
            if found is None:
                return first.startswith('{"role": "session_meta"')  # a first line longer than the sniff
            if found.get("role") == "session_meta":
                return True
            # A transcript Hermes rewrote (after a compression) starts with a message: its name tells.
            return bool(_TRANSCRIPT.match(sniffed.path.name)) and found.get("role") in _ROLES and "timestamp" in found
        if suffix == ".json" and _SNAPSHOT.match(sniffed.path.name):
            head = sniffed.text(4096)
            return (
                head.lstrip().startswith("{")
                and all(k in head for k in _SNAPSHOT_KEYS[:1])
                and ('"platform"' in head or '"system_prompt"' in head or '"session_start"' in head)
            )
        return False

    def holds_nothing(self, sniffed: Sniff) -> str | None:
        """``sessions.json``, the gateway's index of chats (key, session id, platform), and
        ``request_dump_<session>_<time>.json``, a request Hermes kept because the API refused it."""
        name = sniffed.path.name
        if name == "sessions.json" and '"session_key"' in sniffed.text(4096):
            return "Hermes's index of chats (sessions.json): the sessions are the files beside it"
        if name.startswith("request_dump_") and name.endswith(".json") and '"request"' in sniffed.text(4096):
            return "Hermes's dump of an API request that failed (request_dump): no conversation of its own"
        return None

    def default_folders(self, plat: Platform) -> list[Path]:
        """``$HERMES_HOME/sessions``, else ``~/.hermes/sessions`` (Hermes runs under WSL on
        Windows: the same path in the Linux home)."""
        return [(plat.var("HERMES_HOME") or plat.home / ".hermes") / "sessions"]

    def companions(self, path: Path) -> list[Path]:
        snapshot = _snapshot_of(path)
        return [snapshot] if snapshot is not None else []

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        if path.suffix.lower() == ".jsonl":
            yield _transcript(path, problems)
            return
        data = load_json(path, problems)
        if data is None:
            return
        if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
            problems.add(path, None, "hermes: a session snapshot needs an object with a messages list; skipped")
            return
        b = SessionBuilder(NAME, path, problems, label=NAME)
        for index, message in enumerate(data["messages"], 1):
            _one(b, index, message)
        yield _finish(b, _SNAPSHOT.match(path.name), data, {})


def _snapshot_of(path: Path) -> Path | None:
    if path.suffix.lower() != ".jsonl":
        return None
    snapshot = path.with_name(f"session_{path.stem}.json")
    return snapshot if snapshot.is_file() else None


def _one(b: SessionBuilder, index: int, message: Any, prefix: str = "m") -> None:
    """The ``index``-th snapshot message (``prefix`` ``s`` for one added to a transcript)."""
    if not isinstance(message, dict):
        b.report(index, f"message #{index} is a {type(message).__name__}, not an object; skipped")
        b.skip("message that is not an object", line=index)
        return
    add_message(b, f"{prefix}{index}", index, message)


def _transcript(path: Path, problems: Problems) -> Session:
    b = SessionBuilder(NAME, path, problems, label=NAME)
    meta: dict[str, Any] = {}
    keys: dict[tuple[str, str], str] = {}  # message -> the id base of its events
    count = 0
    for line, record in iter_jsonl(path, problems):
        if record.get("role") == "session_meta":
            meta = meta or record
            b.skip("the tool schemas Hermes offered the model (session_meta)", line=line)
            continue
        count += 1
        keys.setdefault(key(record), f"m{count}")
        add_message(b, f"m{count}", line, record)
    snapshot = _snapshot_of(path)
    data: dict[str, Any] = {}
    if snapshot is not None:
        loaded = load_json(snapshot, problems)
        data = loaded if isinstance(loaded, dict) else {}
        _reconcile(b, snapshot, data, keys)
    return _finish(b, None, data, meta, raw_id=path.stem)


def _reconcile(b: SessionBuilder, snapshot: Path, data: dict[str, Any], keys: dict[tuple[str, str], str]) -> None:
    """The snapshot's messages the transcript lacks, each after the last message both hold."""
    messages = data.get("messages")
    if not isinstance(messages, list):
        return
    transcript, b.path = b.path, snapshot
    anchor: str | None = None  # id base of the last shared message
    extra: dict[str | None, list[Any]] = {}
    for index, message in enumerate(messages, 1):
        known = keys.get(key(message)) if isinstance(message, dict) else None
        if known is not None:
            b.merged(index, "the snapshot's copy of a message the transcript holds")
            anchor = known
            continue
        before = len(b.events)
        _one(b, index, message, "s")
        extra.setdefault(anchor, []).extend(b.events[before:])
        del b.events[before:]
    b.path = transcript
    for anchor_base, events in extra.items():
        at = 0
        if anchor_base is not None:
            at = max(
                (i + 1 for i, e in enumerate(b.events) if e.id.split("-")[0] == anchor_base), default=len(b.events)
            )
        b.events[at:at] = events


def _finish(
    b: SessionBuilder, named: re.Match[str] | None, data: dict[str, Any], meta: dict[str, Any], raw_id: str = ""
) -> Session:
    raw = text_of(data.get("session_id")) or raw_id or (named.group(1) if named else b.path.stem)
    for source in (meta, data):
        b.model(text_of(source.get("model")))
    facts = {
        "platform": text_of(meta.get("platform")) or text_of(data.get("platform")),
        "endpoint": text_of(data.get("base_url")),
    }
    started = parse_time(meta.get("timestamp")) or parse_time(data.get("session_start"))
    ended = parse_time(data.get("last_updated"))
    events_end = b.span()[1]
    return b.finish(
        raw,
        started=started,
        ended=max(ended, events_end) if ended and events_end else (ended or events_end),
        meta={k: v for k, v in facts.items() if v},
    )


READER = HermesReader()
