"""One OpenHands conversation being built, whichever layout it comes from.

What both event shapes share is decided here: a call (category, command, file, diff), its
result (linked by the call's id), and usage counted once per model response (the legacy
stream repeats a response on the action and on its observation).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sessite.model import Block, Kind, Problems, ToolCategory, Usage
from sessite.readers._util import obj, shorten, text_of, to_int
from sessite.readers.builder import SessionBuilder
from sessite.readers.formats.openhands.vocabulary import (
    AGENT,
    CATEGORIES,
    COMMAND_KEYS,
    CONDENSATION,
    DIFFS,
    NAME,
    PATH_KEYS,
)
from sessite.readers.tools import tool_category, tool_input


@dataclass
class Call:
    """What a result needs to know of its call."""

    name: str
    has_diff: bool


class OpenHandsBuilder(SessionBuilder):
    """A conversation's events and facts (title, working folder, cost, unknown kinds noted once)."""

    def __init__(self, path: Path, problems: Problems) -> None:
        super().__init__(NAME, path, problems, agent=AGENT, label=NAME)
        self.calls: dict[str, Call] = {}
        self.call_of_event: dict[str, str] = {}  # action event id -> its call id
        self.responses: set[str] = set()
        self.title: str | None = None
        self.cwd: str | None = None
        self.cost: float | None = None
        self.noted: set[str] = set()

    def user(self, base: str, text: str, line: int, stamp: datetime | None, blocks: tuple[Block, ...] = ()) -> None:
        self.emit(base, kind=Kind.USER, text=text, blocks=blocks, timestamp=stamp, line=line)
        if self.title is None and text.strip():
            self.title = shorten(text, 200)

    def usage_of(self, response: dict[str, Any]) -> Usage | None:
        """A model response's usage, the first time the response is seen (litellm counts cached
        prompt tokens inside ``prompt_tokens``: fresh input is what is left)."""
        rid = text_of(response.get("id"))
        usage = obj(response.get("usage"))
        if not usage or (rid is not None and rid in self.responses):
            return None
        if rid is not None:
            self.responses.add(rid)
        read = to_int(usage.get("cache_read_input_tokens")) or to_int(
            obj(usage.get("prompt_tokens_details")).get("cached_tokens")
        )
        write = to_int(usage.get("cache_creation_input_tokens"))
        fresh = max(to_int(usage.get("prompt_tokens")) - read - write, 0)
        reasoning = to_int(obj(usage.get("completion_tokens_details")).get("reasoning_tokens"))
        found = Usage(fresh, to_int(usage.get("completion_tokens")), read, write, reasoning)
        return found or None

    def call(self, call_id: str, name: str, args: Any, line: int, stamp: datetime | None, **extra: Any) -> None:
        category = tool_category(name, CATEGORIES)
        if isinstance(args, dict) and name in DIFFS and args.get("command") == "view":
            category = ToolCategory.READ
        found = tool_input(args, category, DIFFS.get(name), path_keys=PATH_KEYS, command_keys=COMMAND_KEYS)
        self.calls.setdefault(call_id, Call(name, bool(found.diff)))
        self.emit(
            call_id,
            kind=Kind.TOOL_CALL,
            tool_name=name,
            tool_input=args,
            category=category,
            call_id=call_id,
            timestamp=stamp,
            line=line,
            **found.fields(),
            **extra,
        )

    def result(self, call_id: str, text: str, line: int, stamp: datetime | None, **extra: Any) -> None:
        call = self.calls.get(call_id)
        if extra.get("diff") and call is not None and call.has_diff:
            extra["diff"] = None  # the call shows the change already
        exit_code = extra.get("exit_code")
        if exit_code is not None and exit_code != 0:
            extra["is_error"] = True
        self.emit(
            f"{call_id}-result",
            kind=Kind.TOOL_RESULT,
            tool_name=call.name if call is not None else None,
            text=text,
            call_id=call_id,
            timestamp=stamp,
            line=line,
            **extra,
        )

    def condensation(self, base: str, summary: str | None, line: int, stamp: datetime | None) -> None:
        """The condenser's summary of what was forgotten (a marker without one is counted)."""
        if summary:
            self.emit(base, kind=Kind.COMPACTION, text=summary, timestamp=stamp, line=line)
        else:
            self.skip(CONDENSATION, line=line)

    def unknown(self, base: str, what: str, record: Any, line: int) -> None:
        """A record of a kind this reader does not know: raw JSON, one problem per kind."""
        if what not in self.noted:
            self.noted.add(what)
            self.report(line, f"{what} is not known to this reader; shown as raw JSON")
        self.emit(base, kind=Kind.UNKNOWN, title=what, raw=record, line=line)
