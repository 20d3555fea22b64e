"""``ui_messages.json``: what Cline's chat panel showed, each message with its time (``ts``, ms).

It times the history's messages (``conversationHistoryIndex`` links a panel
message to the history) and counts their tokens (``api_req_started``). The
panel's messages as events (a task whose history file is missing, or what only
the panel kept) are in ``panel``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

from sessite.model import Problems, Usage
from sessite.readers._util import maybe_json, to_int
from sessite.readers.base import parse_time


class Request(NamedTuple):
    """An ``api_req_started`` panel message: one model request."""

    line: int  # its record number in ui_messages.json
    history_index: int | None  # the history index it follows
    ts: datetime | None
    info: dict[str, Any]  # its JSON text: tokensIn, tokensOut, cost …
    msg: dict[str, Any]


@dataclass
class Ui:
    """What ui_messages.json says about the history: times, token counts, models."""

    start: dict[int, datetime] = field(default_factory=dict)  # history index -> first panel time after it
    requests: list[Request] = field(default_factory=list)
    times: list[datetime] = field(default_factory=list)
    first_text: str | None = None


def ui_summary(ui: list[tuple[int, dict[str, Any]]], path: Path, problems: Problems) -> Ui:
    out = Ui()
    for line, msg in ui:
        try:
            ts = parse_time(msg.get("ts"))
            if msg.get("ts") is not None and ts is None:
                problems.add(path, line, f"cline: ts is not a timestamp: {msg.get('ts')!r}")
            if ts:
                out.times.append(ts)
            index = msg.get("conversationHistoryIndex")
            index = index if isinstance(index, int) and not isinstance(index, bool) else None
            if index is not None and ts is not None and index not in out.start:
                out.start[index] = ts
            if msg.get("say") == "api_req_started":
                info = maybe_json(msg.get("text"))
                out.requests.append(Request(line, index, ts, info if isinstance(info, dict) else {}, msg))
            if (
                out.first_text is None
                and msg.get("type") == "say"
                and msg.get("say") == "text"
                and isinstance(msg.get("text"), str)
            ):
                out.first_text = msg["text"]
        except Exception as exc:  # noqa: BLE001 - one odd panel message must not stop the task
            problems.add(path, line, f"cline: could not interpret a panel message ({type(exc).__name__}: {exc})")
    return out


def request_usage(info: dict[str, Any]) -> tuple[Usage | None, dict[str, Any]]:
    """A request's token counts, and its cost when it has one."""
    usage = Usage(
        input_tokens=to_int(info.get("tokensIn")),
        output_tokens=to_int(info.get("tokensOut")),
        cache_read_tokens=to_int(info.get("cacheReads")),
        cache_write_tokens=to_int(info.get("cacheWrites")),
    )
    cost = info.get("cost")
    return usage or None, {"cost": cost} if isinstance(cost, (int, float)) and cost else {}
