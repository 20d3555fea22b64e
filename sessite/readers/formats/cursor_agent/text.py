"""The older plain-text agent transcripts: ``agent-transcripts/<id>.txt``.

Blocks start with a line ``user:`` or ``assistant:``. A user block is the turn as the model
got it (``<user_query>`` and the context around it). An assistant block runs
``<think>…</think>`` (thinking), prose, ``[Tool call] <Name>`` followed by its arguments as
indented ``key: value`` lines, and ``[Tool result] <Name>`` (the output itself is not
kept). A result answers the oldest open call of its name. Records are numbered by the line
each item starts on; a role line inside a code fence is text, not a new block.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sessite.model import Kind
from sessite.readers.formats.cursor_agent.session import CursorBuilder

_ROLE = re.compile(r"^(user|assistant):\s*$")
_CALL = re.compile(r"^\[Tool (call|result)\] (.+?)\s*$")
_ARG = re.compile(r"^  ([\w.-]{1,80}): ?(.*)$")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
NOT_KEPT = "not kept in the .txt transcript"


@dataclass
class _Item:
    kind: str  # user, think, text, call, result
    line: int
    rows: list[str] = field(default_factory=list)
    name: str = ""


def looks_like(head: str) -> bool:
    """A ``.txt`` transcript: it opens with ``user:`` and a ``<user_query>`` (or ``assistant:``) soon after."""
    lines = [row for row in head.split("\n")[:40] if row.strip()]
    return (
        bool(lines)
        and lines[0].strip() == "user:"
        and any(row.strip() in ("<user_query>", "assistant:") for row in lines[1:])
    )


def items(text: str) -> list[_Item]:
    """The transcript's items in order, each with the 1-based line it starts on."""
    out: list[_Item] = []
    role: str | None = None
    fenced = False
    current: _Item | None = None
    for number, row in enumerate(text.split("\n"), 1):
        if not fenced and (match := _ROLE.match(row)):
            role, current = match.group(1), None
            if role == "user":
                current = _Item("user", number)
                out.append(current)
            continue
        if role is None:
            continue
        if role == "assistant" and not fenced:
            if (call := _CALL.match(row)) is not None:
                current = _Item(call.group(1), number, name=call.group(2))
                out.append(current)
                continue
            if row.strip() == "<think>" or row.startswith("<think>"):
                current = _Item("think", number, [row.strip()[len("<think>") :]])
                out.append(current)
                if "</think>" in row:
                    current.rows[0] = current.rows[0].split("</think>", 1)[0]
                    current = None
                continue
            if current is not None and current.kind == "think" and "</think>" in row:
                current.rows.append(row.split("</think>", 1)[0])
                current = None
                continue
            if current is not None and current.kind in ("call", "result") and (row.startswith("  ") or not row.strip()):
                current.rows.append(row)
                continue
            if current is None or current.kind in ("call", "result"):
                if not row.strip():
                    continue
                current = _Item("text", number)
                out.append(current)
        if current is not None:
            current.rows.append(row)
        if _FENCE.match(row):
            fenced = not fenced
    return out


def read_text(b: CursorBuilder, text: str) -> None:
    open_calls: list[tuple[str, str]] = []  # (call id, name), oldest first
    for item in items(text):
        body = "\n".join(item.rows).strip("\n")
        if item.kind == "user":
            b.user_turn(body, item.line, f"t{item.line}")
        elif item.kind == "think":
            if body.strip():
                b.emit(f"t{item.line}", kind=Kind.THINKING, text=body.strip(), line=item.line)
            else:
                b.skip("empty thinking", line=item.line)
        elif item.kind == "text":
            b.emit(f"t{item.line}", kind=Kind.ASSISTANT, text=body.strip(), line=item.line)
        elif item.kind == "call":
            call_id = f"txt-{item.line}"
            open_calls.append((call_id, item.name))
            b.tool_call(call_id, item.name, _args(item.rows), item.line)
        else:
            match = next((c for c in open_calls if c[1] == item.name), None)
            if match is not None:
                open_calls.remove(match)
            call_id = match[0] if match else f"txt-{item.line}"
            b.tool_result(
                call_id, item.name, body.strip(), item.line, meta={} if body.strip() else {"output": NOT_KEPT}
            )


def _args(rows: list[str]) -> dict[str, str]:
    """``  key: value`` lines; a deeper-indented or unkeyed line continues the value before it."""
    args: dict[str, str] = {}
    key: str | None = None
    for row in rows:
        match = _ARG.match(row)
        if match is not None and not row.startswith("   "):
            key = match.group(1)
            args[key] = match.group(2)
        elif key is not None and row.strip():
            args[key] += "\n" + row[2:]
    return args
