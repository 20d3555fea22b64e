"""Cursor composers turned into Sessions: bubbles in conversation order, events, folder, names and times."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sitegen.model import Event, Kind, Problems, Session, SourceRef, make_session_id
from sitegen.readers._util import Ids, as_str, obj, project_of, text_of
from sitegen.readers.base import parse_time
from sitegen.readers.cursor.bubbles import bubble_events, bubble_sort_key
from sitegen.readers.cursor.database import DbStore, workspace_map
from sitegen.readers.cursor.keys import AGENT, BUBBLE, COMPOSER, INDEX_KEY, NAME
from sitegen.readers.cursor.legacy import legacy_chats
from sitegen.readers.cursor.store import Store, parse_value

# Marks a bubble whose stored value is not JSON (it is kept as raw text).
_UNDECODABLE = "\x00undecodable"
# Composer keys shown in the session's meta, with their labels.
_META_KEYS = (
    ("unifiedMode", "mode"),
    ("forceMode", "forced mode"),
    ("status", "status"),
    ("isAgentic", "agentic"),
    ("_v", "version"),
)


def store_sessions(store: Store, path: Path, problems: Problems) -> Iterator[Session]:
    """Every composer with bubbles in the store, then the old chat tabs."""
    folders = workspace_map(path, problems) if isinstance(store, DbStore) else {}
    index = store.item(INDEX_KEY)
    names = (
        {text_of(obj(e).get("composerId")): obj(e) for e in obj(index).get("allComposers") or []}
        if isinstance(obj(index).get("allComposers"), list)
        else {}
    )
    for cid in store.composer_ids():
        data, source = store.composer(cid)
        if not isinstance(data, dict):
            if data is not None:
                problems.add(
                    source, None, f"cursor: {COMPOSER}{cid} is a {type(data).__name__}, not an object; skipped"
                )
            continue
        session = _composer_session(
            cid, data, store, source, problems, folders.get(cid) or store.folder, names.get(cid, {})
        )
        if session is not None:
            yield session
    yield from legacy_chats(store, path, problems)


def _composer_session(
    cid: str,
    data: dict[str, Any],
    store: Store,
    source: Path,
    problems: Problems,
    folder: str | None,
    index_entry: dict[str, Any],
) -> Session | None:
    """The composer's Session; None for a composer without bubbles (an empty chat tab)."""
    skipped: Counter[str] = Counter()
    bubbles = _composer_bubbles(cid, data, store, source, problems, skipped)
    if not bubbles:
        return None  # Cursor keeps an empty composer for every new chat tab
    default_model = text_of(obj(data.get("modelConfig")).get("modelName"))
    events, models = _composer_events(cid, bubbles, default_model, problems, source)
    if not events:
        return None
    stamps = [e.timestamp for e in events if e.timestamp]
    started = parse_time(data.get("createdAt")) or parse_time(index_entry.get("createdAt"))
    ended = parse_time(data.get("lastUpdatedAt")) or parse_time(index_entry.get("lastUpdatedAt"))
    return Session(
        id=make_session_id(NAME, cid),
        source=SourceRef(str(source), NAME),
        agent=AGENT,
        events=tuple(events),
        title=text_of(data.get("name")) or text_of(index_entry.get("name")),
        started=started or (min(stamps) if stamps else None),
        ended=max([t for t in (ended, *stamps) if t], default=None),
        cwd=folder,
        project=project_of(folder),
        models=tuple(models or ([default_model] if default_model else [])),
        meta=_composer_meta(data, index_entry),
        skipped=dict(skipped),
    )


def _composer_bubbles(
    cid: str, data: dict[str, Any], store: Store, source: Path, problems: Problems, skipped: Counter[str]
) -> list[tuple[str, Any]]:
    """(bubbleId, bubble) in conversation order: as the headers list them, inline (older builds),
    or, with neither, every stored bubble of the composer in time order."""
    headers = data.get("fullConversationHeadersOnly")
    inline = data.get("conversation")
    if isinstance(headers, list) and headers:
        return _listed_bubbles(cid, headers, store.bubbles(cid), source, problems, skipped)
    if isinstance(inline, list) and inline:
        return [(text_of(obj(b).get("bubbleId")) or f"b{i}", b) for i, b in enumerate(inline)]
    stored = {
        bid: parse_value(value, problems, source, f"{BUBBLE}{cid}:{bid}") for bid, value in store.bubbles(cid).items()
    }
    return sorted(stored.items(), key=lambda item: bubble_sort_key(item[1]))


def _listed_bubbles(
    cid: str, headers: list[Any], stored: dict[str, Any], source: Path, problems: Problems, skipped: Counter[str]
) -> list[tuple[str, Any]]:
    """The bubbles the headers list, in their order (a value that is not JSON is kept as raw text)."""
    bubbles: list[tuple[str, Any]] = []
    for position, header in enumerate(headers):
        bid = text_of(obj(header).get("bubbleId"))
        if bid is None:
            problems.add(source, None, f"cursor: composer {cid}: header {position} has no bubbleId; skipped")
            continue
        if bid not in stored:
            skipped["bubble listed but not stored"] += 1
            continue
        parsed = parse_value(stored[bid], problems, source, f"{BUBBLE}{cid}:{bid}")
        bubbles.append((bid, parsed if parsed is not None else {_UNDECODABLE: as_str(stored[bid])}))
    return bubbles


def _composer_events(
    cid: str, bubbles: list[tuple[str, Any]], default_model: str | None, problems: Problems, source: Path
) -> tuple[list[Event], list[str]]:
    """Every bubble's events, and the models they name in first-use order."""
    ids = Ids()
    events: list[Event] = []
    models: list[str] = []
    for bid, bubble in bubbles:
        where = f"{BUBBLE}{cid}:{bid}"
        if isinstance(bubble, dict) and _UNDECODABLE in bubble:
            events.append(
                Event(id=ids.take(bid), kind=Kind.UNKNOWN, title="Cursor bubble (not JSON)", raw=bubble[_UNDECODABLE])
            )
            continue
        if not isinstance(bubble, dict):
            if bubble is not None:
                problems.add(
                    source, None, f"cursor: {where} is a {type(bubble).__name__}, not an object; shown as raw JSON"
                )
            events.append(Event(id=ids.take(bid), kind=Kind.UNKNOWN, title="Cursor bubble", raw=bubble))
            continue
        try:
            new = bubble_events(bid, bubble, ids, default_model, problems, source, where)
        except Exception as exc:  # noqa: BLE001 - one odd bubble must not stop the composer
            problems.add(source, None, f"cursor: could not interpret {where} ({type(exc).__name__}: {exc}); raw JSON")
            new = [Event(id=ids.take(bid), kind=Kind.UNKNOWN, title="unreadable Cursor bubble", raw=bubble)]
        for event in new:
            if event.model and event.model not in models:
                models.append(event.model)
        events.extend(new)
    return events, models


def _composer_meta(data: dict[str, Any], index_entry: dict[str, Any]) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    for key, label in _META_KEYS:
        if data.get(key) not in (None, "", False):
            meta[label] = data[key]
    if data.get("isArchived") or index_entry.get("isArchived"):
        meta["archived"] = True
    return meta
