"""Old Cursor builds: chat tabs kept per workspace under ``ItemTable`` key
``workbench.panel.aichat.view.aichat.chatdata``, one Session per tab."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sitegen.model import Event, Kind, Problems, Session, SourceRef, make_session_id
from sitegen.readers._util import Ids, obj, project_of, text_of
from sitegen.readers.base import as_text, parse_time
from sitegen.readers.cursor.keys import AGENT, LEGACY_CHAT_KEY, NAME
from sitegen.readers.cursor.store import Store

# Looked up with the raw ``type`` value, whatever JSON it holds.
_KINDS: dict[Any, Kind] = {"user": Kind.USER, "ai": Kind.ASSISTANT}


def legacy_chats(store: Store, path: Path, problems: Problems) -> Iterator[Session]:
    """One Session per chat tab with at least one event."""
    data = store.item(LEGACY_CHAT_KEY)
    tabs = obj(data).get("tabs")
    if not isinstance(tabs, list):
        return
    for index, tab in enumerate(tabs):
        if not isinstance(tab, dict):
            continue
        tab_id = text_of(tab.get("tabId")) or str(index)
        try:
            events = _tab_events(tab)
        except Exception as exc:  # noqa: BLE001 - one odd tab must not stop the store
            problems.add(path, None, f"cursor: could not interpret chat tab {tab_id} ({type(exc).__name__}: {exc})")
            continue
        if not events:
            continue
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
        )


def _tab_events(tab: dict[str, Any]) -> list[Event]:
    ids = Ids()
    events: list[Event] = []
    for position, bubble in enumerate(tab.get("bubbles") or [] if isinstance(tab.get("bubbles"), list) else []):
        bubble = obj(bubble)
        bid = text_of(bubble.get("id")) or f"b{position}"
        kind = _KINDS.get(bubble.get("type")) if isinstance(bubble.get("type"), (str, int)) else None
        text = as_text(bubble.get("text") if bubble.get("text") is not None else bubble.get("rawText"))
        if kind is None:
            events.append(
                Event(
                    id=ids.take(bid), kind=Kind.UNKNOWN, title=f"Cursor chat bubble {bubble.get('type')!r}", raw=bubble
                )
            )
        elif text.strip():
            events.append(
                Event(
                    id=ids.take(bid),
                    kind=kind,
                    text=text,
                    model=text_of(bubble.get("modelType")) if kind == Kind.ASSISTANT else None,
                )
            )
    return events
