"""Old Cursor builds: chat tabs kept per workspace under ``ItemTable`` key
``workbench.panel.aichat.view.aichat.chatdata``, one Session per tab."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sessite.model import Event, Kind, Problems, Session, SourceRef, make_session_id
from sessite.readers import ledger
from sessite.readers._util import Ids, obj, project_of, text_of
from sessite.readers.base import as_text, parse_time
from sessite.readers.formats.cursor.keys import AGENT, LEGACY_CHAT_KEY, NAME
from sessite.readers.formats.cursor.store import Store

# Looked up with the raw ``type`` value, whatever JSON it holds.
_KINDS: dict[Any, Kind] = {"user": Kind.USER, "ai": Kind.ASSISTANT}
_EMPTY = "empty bubble (an unsent message box)"


def legacy_chats(store: Store, path: Path, problems: Problems) -> Iterator[Session]:
    """One Session per chat tab with at least one event; its bubbles are the store's next records."""
    data = store.item(LEGACY_CHAT_KEY)
    tabs = obj(data).get("tabs")
    if not isinstance(tabs, list):
        return
    for index, tab in enumerate(tabs):
        if not isinstance(tab, dict):
            continue
        listed = tab.get("bubbles")
        bubbles: list[Any] = listed if isinstance(listed, list) else []
        first = store.records.block(path, len(bubbles))
        tab_id = text_of(tab.get("tabId")) or str(index)
        skipped: Counter[str] = Counter()
        try:
            events = _tab_events(bubbles, first, path, skipped)
        except Exception as exc:  # noqa: BLE001 - one odd tab must not stop the store
            problems.add(path, None, f"cursor: could not interpret chat tab {tab_id} ({type(exc).__name__}: {exc})")
            for number in range(first, first + len(bubbles)):
                ledger.not_shown(path, number, "chat tab that could not be read")
            continue
        if not events:
            continue
        for event in events:
            ledger.shown(path, event.line)
        models = tuple(dict.fromkeys(e.model for e in events if e.model))
        yield Session(
            id=make_session_id(NAME, f"chat-{tab_id}"),
            source=SourceRef(str(path), NAME),
            agent=AGENT,
            events=tuple(events),
            title=text_of(tab.get("chatTitle")),
            ended=parse_time(tab.get("lastSendTime")),
            cwd=store.folder,
            project=project_of(store.folder),
            models=models,
            meta={"layout": "chat tab (old Cursor)"},
            skipped=dict(skipped),
        )


def _tab_events(bubbles: list[Any], first: int, path: Path, skipped: Counter[str]) -> list[Event]:
    ids = Ids()
    events: list[Event] = []
    for position, bubble in enumerate(bubbles):
        bubble = obj(bubble)
        line = first + position
        bid = text_of(bubble.get("id")) or f"b{position}"
        kind = _KINDS.get(bubble.get("type")) if isinstance(bubble.get("type"), (str, int)) else None
        text = as_text(bubble.get("text") if bubble.get("text") is not None else bubble.get("rawText"))
        if kind is None:
            title = f"Cursor chat bubble {bubble.get('type')!r}"
            events.append(Event(id=ids.take(bid), kind=Kind.UNKNOWN, title=title, raw=bubble, line=line))
        elif text.strip():
            model = text_of(bubble.get("modelType")) if kind == Kind.ASSISTANT else None
            events.append(Event(id=ids.take(bid), kind=kind, text=text, model=model, line=line))
        else:
            skipped[_EMPTY] += 1
            ledger.not_shown(path, line, _EMPTY)
    return events
