"""The prompt queue: what the user typed while the agent was busy.

``queue-operation`` records follow Claude Code's input queue: ``enqueue`` (with the
text), then ``dequeue`` (it is sent as the next user turn), ``remove`` (folded into the
running turn) or ``popAll`` (the user took it back into the input box to edit). A sent
prompt usually has a copy of its own later (a ``user`` record, or a 2.1.x
``queued_command`` attachment); then the queue record is merged into that copy. But
Claude Code 2.1.1x wrote no copy at all for a prompt folded into a running turn: the
queue record is the only place the user's words are, so it becomes the USER message,
where it was typed. A prompt taken back, or still queued when the log ends, was never
sent (counted, not shown); so is a queued background-task notification.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sessite.model import Event
from sessite.readers import ledger
from sessite.readers.base import as_text
from sessite.readers.formats.claude_code.content import classify_user_text
from sessite.readers.formats.claude_code.state import Transcript, content_id
from sessite.readers.formats.claude_code.vocabulary import SKIP_TYPES

BOOKKEEPING = SKIP_TYPES["queue-operation"]
_TAKEN_BACK = "queue-operation (a queued prompt the user took back to edit; what they sent is shown)"
_COPIED = "queue-operation (a queued prompt, shown where it was sent)"
_NOTICE = "queue-operation (a queued background-task notification)"
_NOTICES = ("<agent-notification>", "<task-notification>")
_LONG = 24


@dataclass
class Queued:
    """One ``enqueue`` record and what became of it."""

    lineno: int
    rec: dict[str, Any]
    ts: datetime | None
    text: str
    key: str  # the text with its whitespace folded, to find its copy
    position: int  # where in the transcript's events it was typed
    state: str = "queued"  # queued, sent, taken back
    copied: bool = False


def read_queue_operation(t: Transcript, lineno: int, rec: dict[str, Any], ts: datetime | None) -> None:
    operation = rec.get("operation")
    text = _text(rec.get("content"))
    if operation == "enqueue" and text.strip():
        t.queue.append(Queued(lineno, rec, ts, text, _key(text), len(t.events)))
        t.pending()  # its fate is known once the log is read (``settle``)
        return
    live = [q for q in t.queue if q.state == "queued"]
    if operation in ("dequeue", "remove") and live:
        key = _key(text)
        chosen = next((q for q in live if key and q.key == key), live[0])
        chosen.state = "sent"
    elif operation == "popAll":
        for queued in live:
            queued.state = "taken back"
    t.skip(BOOKKEEPING, lineno)


def note_prompt(t: Transcript, text: str) -> None:
    """A prompt the user sent (a ``user`` record, a queued command): the queued copy it repeats is merged."""
    if not t.queue or not text.strip():
        return
    key = _key(text)
    for queued in t.queue:
        # A short prompt ("stop") must be the whole of its copy; a longer one may be part of it.
        if not queued.copied and (queued.key == key or (len(queued.key) >= _LONG and queued.key in key)):
            queued.copied = True
            return


def settle(t: Transcript) -> None:
    """Give every queued prompt its fate; a sent one with no copy becomes a USER event where it was typed."""
    shown: list[tuple[int, Event]] = []
    for queued in t.queue:
        if queued.copied:
            t.merge(queued.lineno, _COPIED)
        elif queued.text.lstrip().startswith(_NOTICES):
            t.skip(_NOTICE, queued.lineno)
        elif queued.state == "taken back":
            t.skip(_TAKEN_BACK, queued.lineno)
        elif queued.state == "queued":
            t.skip(BOOKKEEPING, queued.lineno)
        else:
            shown.append((queued.position, _event(t, queued)))
    t.queue = []
    t.insert(shown)


def _event(t: Transcript, queued: Queued) -> Event:
    kind, title, clean, meta = classify_user_text(queued.text)
    ledger.shown(t.path, queued.lineno)
    return Event(
        id=t.ids.take(f"{t.prefix}{content_id(queued.rec)}"),
        kind=kind,
        timestamp=queued.ts,
        text=clean,
        title=title,
        line=queued.lineno,
        meta={**meta, "queued": True, "only_in_queue": True},
    )


def _text(content: Any) -> str:
    """A queue record's text: a string, or (2.0.x) a list of text blocks."""
    if isinstance(content, list):
        return "\n\n".join(as_text(b.get("text")) for b in content if isinstance(b, dict) and b.get("type") == "text")
    return content if isinstance(content, str) else ""


def _key(text: str) -> str:
    return " ".join(text.split())
