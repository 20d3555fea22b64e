"""Cursor composers turned into Sessions: bubbles in conversation order, events, folder, names and times.

Composers are read from their ``composerData:<id>`` keys, then from the ones the
``composer.composerData`` index keeps whole (older builds: ``allComposers[i].conversation``),
then the old chat tabs. A store that yields no session says why, in one problem.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessite.model import Problems, Session, SourceRef, make_session_id, user_words
from sessite.readers import ledger
from sessite.readers._util import obj, project_of, text_of
from sessite.readers.base import parse_time
from sessite.readers.formats.cursor.conversation import Conversation
from sessite.readers.formats.cursor.database import DbStore, workspace_map
from sessite.readers.formats.cursor.keys import AGENT, COMPOSER, INDEX_KEY, NAME
from sessite.readers.formats.cursor.legacy import legacy_chats
from sessite.readers.formats.cursor.store import Store

# Composer keys shown in the session's meta, with their labels.
_META_KEYS = (
    ("unifiedMode", "mode"),
    ("forceMode", "forced mode"),
    ("status", "status"),
    ("isAgentic", "agentic"),
    ("_v", "version"),
)
_INDEX_COPY = "copy of a composer stored under its own key"
_NO_COMPOSER = "bubble of a composer that is not stored"


@dataclass
class _Tally:
    """What a store held, to say why it yielded no session."""

    sessions: int = 0
    composers: Counter[str] = field(default_factory=Counter)  # "empty", "listed only"
    tabs: int = 0
    orphans: int = 0  # bubbles of composers the store does not hold


def store_sessions(store: Store, path: Path, problems: Problems) -> Iterator[Session]:
    """Every composer with bubbles in the store, then the old chat tabs; one problem when there is none."""
    folders = workspace_map(path, problems) if isinstance(store, DbStore) else {}
    index = store.item(INDEX_KEY)
    entries = obj(index).get("allComposers")
    entries = [obj(e) for e in entries] if isinstance(entries, list) else []
    names = {text_of(e.get("composerId")): e for e in entries}
    tally = _Tally()
    stored = store.composer_ids()
    for cid in stored:
        data, source = store.composer(cid)
        if not isinstance(data, dict):
            if data is not None:
                problems.add(
                    source, None, f"cursor: {COMPOSER}{cid} is a {type(data).__name__}, not an object; skipped"
                )
            continue
        folder = folders.get(cid) or store.folder
        session = _composer_session(cid, data, store, source, problems, folder, names.get(cid, {}))
        tally.sessions += session is not None
        tally.composers["empty"] += session is None
        if session is not None:
            yield session
    yield from _index_sessions(entries, set(stored), store, path, problems, tally)
    for session in legacy_chats(store, path, problems):
        tally.tabs += 1
        yield session
    orphans = _unread_bubbles(store)
    if tally.sessions + tally.tabs == 0:
        tally.orphans = sum(orphans.values())
        problems.add(path, None, f"cursor: no session in this store: {_why_empty(store, tally)}")
        return
    for file, count in orphans.items():
        problems.add(file, None, f"cursor: {count} bubble(s) belong to no stored composer; not shown")


def _index_sessions(
    entries: list[dict[str, Any]], stored: set[str], store: Store, path: Path, problems: Problems, tally: _Tally
) -> Iterator[Session]:
    """Composers the index keeps whole (older builds): sessions, unless stored under their own key too."""
    for entry in entries:
        cid = text_of(entry.get("composerId"))
        inline = entry.get("conversation")
        count = len(inline) if isinstance(inline, list) else 0
        first = store.records.block(path, count)
        if not count or cid is None:
            tally.composers["listed only"] += cid is not None and cid not in stored
            continue
        if cid in stored:
            for number in range(first, first + count):
                ledger.merged(path, number, _INDEX_COPY)
            continue
        session = _composer_session(cid, entry, store, path, problems, store.folder, entry, first=first)
        tally.sessions += session is not None
        tally.composers["empty"] += session is None
        if session is not None:
            yield session


def _unread_bubbles(store: Store) -> Counter[Path]:
    """Stored bubbles of composers the store does not hold (counted in the ledger), per file."""
    orphans: Counter[Path] = Counter()
    for _key, file, number in store.records.unread():
        ledger.not_shown(file, number, _NO_COMPOSER)
        orphans[file] += 1
    return orphans


def _why_empty(store: Store, tally: _Tally) -> str:
    """One line on why a store yielded nothing."""
    if isinstance(store, DbStore) and not store.tables:
        return "it has neither a cursorDiskKV nor an ItemTable table (not a Cursor database)"
    reasons = []
    if tally.composers["listed only"]:
        reasons.append(
            f"its index lists {tally.composers['listed only']} composer(s) whose messages are kept elsewhere "
            "(Cursor keeps them in globalStorage/state.vscdb)"
        )
    if tally.composers["empty"]:
        reasons.append(f"{tally.composers['empty']} composer(s) have no messages (empty chat tabs)")
    if tally.orphans:
        reasons.append(f"{tally.orphans} bubble(s) belong to no stored composer")
    if not reasons:
        reasons.append("it holds no composers and no chat tabs")
    return "; ".join(reasons)


def _composer_session(
    cid: str,
    data: dict[str, Any],
    store: Store,
    source: Path,
    problems: Problems,
    folder: str | None,
    index_entry: dict[str, Any],
    first: int | None = None,
) -> Session | None:
    """The composer's Session; None for a composer without bubbles (an empty chat tab).
    ``first``: the record number of its first inline bubble, when already given out."""
    inline = data.get("conversation")
    inline = inline if isinstance(inline, list) else []
    if first is None:
        first = store.conversation_first(cid, source, len(inline))
    conversation = Conversation(cid, store, source, problems)
    bubbles = conversation.bubbles(data, inline, first)
    default_model = text_of(obj(data.get("modelConfig")).get("modelName"))
    events, models = conversation.events(bubbles, default_model)
    if not events:
        return None  # Cursor keeps an empty composer for every new chat tab
    for bubble in conversation.shown:
        ledger.shown(bubble.path, bubble.line)
    stamps = [e.timestamp for e in events if e.timestamp]
    started = parse_time(data.get("createdAt")) or parse_time(index_entry.get("createdAt"))
    ended = parse_time(data.get("lastUpdatedAt")) or parse_time(index_entry.get("lastUpdatedAt"))
    title = text_of(data.get("name")) or text_of(index_entry.get("name"))
    return Session(
        id=make_session_id(NAME, cid),
        source=SourceRef(str(source), NAME),
        agent=AGENT,
        events=tuple(events),
        title=(user_words(title) or None) if title else None,
        started=started or (min(stamps) if stamps else None),
        ended=max([t for t in (ended, *stamps) if t], default=None),
        cwd=folder,
        project=project_of(folder),
        models=tuple(models or ([default_model] if default_model else [])),
        meta=_composer_meta(data, index_entry),
        skipped=dict(conversation.skipped),
    )


def _composer_meta(data: dict[str, Any], index_entry: dict[str, Any]) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    for key, label in _META_KEYS:
        if data.get(key) not in (None, "", False):
            meta[label] = data[key]
    if data.get("isArchived") or index_entry.get("isArchived"):
        meta["archived"] = True
    return meta
