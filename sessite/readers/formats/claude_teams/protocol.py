"""The protocol messages Claude Code sends between team members, double-encoded in ``text``.

A message's ``text`` is either what an agent wrote, or a JSON object as a string: an idle
notice (``idle_notification``), a shutdown handshake (``shutdown_request``, ``shutdown_response``,
``shutdown_approved``), a task handed over (``task_assignment``), a plan to approve
(``plan_approval_request`` / ``_response``). Each is shown as what it is, in words; a type
this reader does not know is shown by its fields.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sessite.model import Kind
from sessite.readers._util import text_of
from sessite.readers.labels import humanize
from sessite.readers.safejson import as_text, loads


@dataclass(frozen=True)
class Said:
    """How one protocol message is shown."""

    kind: Kind
    title: str
    text: str


def decode(text: Any) -> dict[str, Any] | None:
    """The protocol object a message's ``text`` encodes (it may also be an object already), else None."""
    if isinstance(text, dict):
        value: Any = text
    elif isinstance(text, str) and text.lstrip().startswith("{"):
        try:
            value = loads(text)
        except ValueError:
            return None  # a message that only starts with a brace
    else:
        return None
    return value if isinstance(value, dict) and isinstance(value.get("type"), str) and value["type"] else None


def describe(payload: dict[str, Any], sender: str, recipient: str) -> Said:
    """The words for a decoded protocol message from ``sender`` to ``recipient``."""
    kind = payload["type"]
    words = _WORDS.get(kind)
    label = humanize(kind)
    if words is None:
        return Said(Kind.SYSTEM, f"{label}: {sender} → {recipient}", _fields(payload))
    return words(payload, sender, recipient, label)


def _idle(p: dict[str, Any], sender: str, recipient: str, label: str) -> Said:
    reason = text_of(p.get("idleReason"))
    who = text_of(p.get("from")) or sender
    return Said(Kind.SYSTEM, f"{label}: {who} → {recipient}", f"{who} is idle" + (f" ({reason})" if reason else ""))


def _shutdown_request(p: dict[str, Any], sender: str, recipient: str, label: str) -> Said:
    reason = text_of(p.get("reason"))
    text = f"{sender} asks {recipient} to shut down" + (f": {reason}" if reason else "")
    return Said(Kind.SYSTEM, f"{label}: {sender} → {recipient}", _with_request(text, p))


def _shutdown_answer(p: dict[str, Any], sender: str, recipient: str, label: str) -> Said:
    approved = p.get("approved")
    if p.get("type") == "shutdown_approved" or approved is True:
        text = f"{sender} approves the shutdown"
    elif approved is False:
        text = f"{sender} declines the shutdown"
    else:
        text = f"{sender} answers the shutdown request"
    extra = text_of(p.get("content")) or text_of(p.get("reason"))
    return Said(
        Kind.SYSTEM, f"{label}: {sender} → {recipient}", _with_request(text + (f": {extra}" if extra else ""), p)
    )


def _task_assignment(p: dict[str, Any], sender: str, recipient: str, label: str) -> Said:
    task = as_text(p.get("taskId")) or "?"
    subject = text_of(p.get("subject"))
    by = text_of(p.get("assignedBy")) or sender
    head = f"Task #{task} assigned to {recipient} by {by}"
    body = text_of(p.get("description"))
    return Said(
        Kind.TASK_START,
        f"Task #{task}: {subject}" if subject else f"Task #{task}",
        "\n\n".join(x for x in (head, body) if x),
    )


def _plan_request(p: dict[str, Any], sender: str, recipient: str, label: str) -> Said:
    plan = text_of(p.get("plan")) or ""
    return Said(
        Kind.SYSTEM,
        f"{label}: {sender} → {recipient}",
        _with_request(f"{sender} asks {recipient} to approve a plan\n\n{plan}".strip(), p),
    )


def _plan_response(p: dict[str, Any], sender: str, recipient: str, label: str) -> Said:
    approved = p.get("approved")
    verdict = "approves" if approved is True else "rejects" if approved is False else "answers"
    feedback = text_of(p.get("feedback")) or text_of(p.get("content"))
    text = f"{sender} {verdict} {recipient}'s plan" + (f": {feedback}" if feedback else "")
    return Said(Kind.SYSTEM, f"{label}: {sender} → {recipient}", _with_request(text, p))


def _with_request(text: str, p: dict[str, Any]) -> str:
    request = text_of(p.get("requestId"))
    return f"{text}\n\nRequest {request}" if request else text


def _fields(p: dict[str, Any]) -> str:
    """A message of a type this reader does not know: each field on a line of its own."""
    lines = []
    for key, value in p.items():
        if key == "type":
            continue
        shown = as_text(value)
        lines.append(f"- {key}: {shown}" if "\n" not in shown else f"- {key}:\n\n```\n{shown}\n```")
    return "\n".join(lines)


Words = Callable[[dict[str, Any], str, str, str], Said]
_WORDS: dict[str, Words] = {
    "idle_notification": _idle,
    "shutdown_request": _shutdown_request,
    "shutdown_response": _shutdown_answer,
    "shutdown_approved": _shutdown_answer,
    "task_assignment": _task_assignment,
    "plan_approval_request": _plan_request,
    "plan_approval_response": _plan_response,
}
