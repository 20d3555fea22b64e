"""An inbox: every message one member was sent, ``[{from, text, summary?, timestamp, color?, read}]``.

The file is named for its owner, the recipient; a message's ``text`` is what the sender wrote,
or a protocol message (``protocol``). Record n, for the fidelity ledger, is the n-th entry.
A message read before from another copy of the inbox is merged into the first.
"""

from __future__ import annotations

from typing import Any

from sessite.model import Kind
from sessite.readers._util import shown
from sessite.readers.files import iter_json_array
from sessite.readers.formats.claude_teams.layout import Inbox
from sessite.readers.formats.claude_teams.protocol import decode, describe
from sessite.readers.formats.claude_teams.state import TeamBuilder
from sessite.readers.formats.claude_teams.vocabulary import MESSAGE_SHOWN, NOT_OBJECT_MESSAGE, SAME_MESSAGE
from sessite.readers.safejson import as_text


def read_inbox(b: TeamBuilder, inbox: Inbox) -> None:
    """Each message of one inbox file, in the file's order (the session orders them by time)."""
    for index, (_, entry) in enumerate(iter_json_array(inbox.path, b.problems), start=1):
        try:
            _message(b, inbox, index, entry)
        except Exception as exc:  # noqa: BLE001 - one odd message costs that message, never the file
            b.path = inbox.path
            b.unreadable(index, "inbox message", entry, exc)


def _message(b: TeamBuilder, inbox: Inbox, index: int, entry: Any) -> None:
    path = inbox.path
    if not isinstance(entry, dict):
        b.problem(path, index, f"inbox entry is not an object ({shown(entry)}); left out")
        b.skip_at(path, index, NOT_OBJECT_MESSAGE)
        return
    sender = b.text(path, index, entry, "from", "message") or "?"
    raw = entry.get("text")
    payload = decode(raw)
    if payload is None and raw is not None and not isinstance(raw, str):
        b.problem(path, index, f"message text is not text ({shown(raw)}); shown as it is")
    key = (inbox.recipient, sender, as_text(entry.get("timestamp")), as_text(raw))
    if key in b.facts.messages:
        b.merge_at(path, index, SAME_MESSAGE)
        return
    b.facts.messages.add(key)
    stamp = b.time(path, index, entry.get("timestamp"), "timestamp")
    meta: dict[str, Any] = {"from": sender, "to": inbox.recipient}
    meta.update((k, v) for k, v in entry.items() if k not in MESSAGE_SHOWN)
    if inbox.copy:
        meta["copy"] = inbox.copy
    if payload is not None:
        said = describe(payload, sender, inbox.recipient)
        meta["message"] = payload
        b.put(path, index, "message", kind=said.kind, timestamp=stamp, title=said.title, text=said.text, meta=meta)
        return
    b.put(
        path,
        index,
        "message",
        kind=Kind.ASSISTANT,
        timestamp=stamp,
        title=f"{sender} → {inbox.recipient}",
        text=as_text(raw),
        model=b.facts.models.get(sender),
        meta=meta,
    )
