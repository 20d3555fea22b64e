"""Credentials a command prints: ``heroku auth:token``, ``gh auth token``, ``gcloud auth
print-access-token``, ``aws ecr get-login-password``… print a bare token (often a UUID or
a long base64 run, with no shape of its own) as their output.

Pasted together (``$ heroku auth:token`` and the next line) a rule sees both: see
``TOKEN_OUTPUT``. A call and its result are two events: ``command_outputs`` finds the
result of each such call (by its call id) and replaces the token that opens it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import replace

from sessite.analyze.redact.types import RuleSpec
from sessite.model import Event, Kind

_TOKEN_COMMANDS = (
    r"(?:heroku[ \t]+auth:token|gh[ \t]+auth[ \t]+token|gcloud[ \t]+auth[ \t]+(?:application-default[ \t]+)?"
    r"print-(?:access|identity)-token|aws[ \t]+ecr(?:-public)?[ \t]+get-login-password|doctl[ \t]+auth[ \t]+token"
    r"|vault[ \t]+print[ \t]+token|az[ \t]+account[ \t]+get-access-token[^\n]*?tsv|op[ \t]+read[ \t]+\S+)"
)
_COMMAND = re.compile(_TOKEN_COMMANDS)
_TOKEN = r"[A-Za-z0-9_\-.=+/:]{20,}"
_FIRST_TOKEN = re.compile(r"\s*(" + _TOKEN + r")[ \t]*(?:\r?\n|\Z)")

# The command and its output pasted together: the first line after it that is a token alone (or,
# with the line breaks folded, the token right after it).
TOKEN_OUTPUT: RuleSpec = (
    "command-token",
    ("token", "ecr", "print"),
    _TOKEN_COMMANDS
    + r"(?:[^\n\\]*(?:\r?\n|\\n)(?:[ \t]*(?:\r?\n|\\n))*[ \t]*|[ \t]+)(?P<secret>"
    + _TOKEN
    + r")(?![^\s\\])",
)


Note = Callable[[str, str], None]


def command_outputs(events: tuple[Event, ...], counts: Counter[str], note: Note) -> tuple[Event, ...]:
    """``events`` with the token replaced where a token-printing call's result starts with one
    (``note`` is told each value replaced)."""
    calls = {e.call_id for e in _walk(events) if e.kind == Kind.TOOL_CALL and e.call_id and _prints_token(e)}
    if not calls:
        return events
    return _events(events, calls, counts, note)


def _walk(events: tuple[Event, ...]) -> list[Event]:
    out: list[Event] = []
    pending = list(reversed(events))
    while pending:
        event = pending.pop()
        out.append(event)
        pending.extend(reversed(event.children))
    return out


def _prints_token(call: Event) -> bool:
    command = call.command or (call.tool_input.get("command") if isinstance(call.tool_input, dict) else None)
    return isinstance(command, str) and _COMMAND.search(command) is not None


def _events(events: tuple[Event, ...], calls: set[str], counts: Counter[str], note: Note) -> tuple[Event, ...]:
    out = list(events)
    for index, event in enumerate(events):
        new = event
        if event.children:
            children = _events(event.children, calls, counts, note)
            if children is not event.children:
                new = replace(new, children=children)
        if event.kind == Kind.TOOL_RESULT and event.call_id in calls:
            text = _without_token(event.text, counts, note)
            blocks = tuple(replace(b, text=_without_token(b.text, counts, note)) for b in event.blocks)
            if text is not event.text or any(a.text is not b.text for a, b in zip(blocks, event.blocks)):
                new = replace(new, text=text, blocks=blocks)
        out[index] = new
    return tuple(out) if any(a is not b for a, b in zip(out, events)) else events


def _without_token(text: str, counts: Counter[str], note: Note) -> str:
    if not isinstance(text, str) or not text:
        return text
    found = _FIRST_TOKEN.match(text)
    if found is None or "[REDACTED:" in found.group(1):
        return text
    counts["command-token"] += 1
    note("command-token", found.group(1))
    return f"{text[: found.start(1)]}[REDACTED:command-token]{text[found.end(1) :]}"
