"""One Cursor agent session being built, whichever file it comes from (store, JSONL, text).

The three files say the same things in three shapes; what a user turn, a tool call and
its result become is decided here once: context blocks as titled notes beside the user's
words, calls with their category, command, file and diff, results paired by call id.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sessite.model import Block, Kind, Problems, ToolCategory
from sessite.readers._util import shorten
from sessite.readers.builder import SessionBuilder
from sessite.readers.formats.cursor_agent.turns import branch_of, context_title, split_turn, workspace_of
from sessite.readers.formats.cursor_agent.vocabulary import AGENT, CATEGORIES, DIFFS, EMPTY, NAME, PATH_KEYS
from sessite.readers.tools import tool_category, tool_input


@dataclass
class Call:
    """What a result needs to know of its call."""

    name: str
    category: ToolCategory
    has_diff: bool
    path: str | None


class CursorBuilder(SessionBuilder):
    """The events of one session, and the facts its messages give (title, cwd, branch)."""

    def __init__(self, path: Path, problems: Problems) -> None:
        super().__init__(NAME, path, problems, agent=AGENT, label=NAME)
        self.calls: dict[str, Call] = {}
        self.title: str | None = None
        self.cwd: str | None = None
        self.branches: dict[str, None] = {}

    def user_turn(
        self,
        text: str,
        line: int,
        base: str,
        timestamp: datetime | None = None,
        blocks: tuple[Block, ...] = (),
        meta: dict[str, Any] | None = None,
    ) -> None:
        """A user message: its context blocks as notes, then the user's own words (with what
        they attached: images, files)."""
        turn = split_turn(text)
        stamp = turn.timestamp or timestamp
        for tag, inner in turn.context:
            if tag == "git_status" and (branch := branch_of(inner)):
                self.branches.setdefault(branch, None)
            if tag == "user_info" and self.cwd is None:
                self.cwd = workspace_of(inner)
            self.emit(
                f"{base}-{tag}", kind=Kind.SYSTEM, title=context_title(tag), text=inner, timestamp=stamp, line=line
            )
        if turn.words or blocks:
            self.emit(base, kind=Kind.USER, text=turn.words, blocks=blocks, timestamp=stamp, line=line, meta=meta or {})
            if self.title is None and turn.words:
                self.title = shorten(turn.words, 200)
        elif not turn.context:
            self.skip(EMPTY, line=line)

    def tool_call(
        self,
        call_id: str,
        name: str,
        args: Any,
        line: int,
        *,
        model: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        category = ToolCategory.OTHER if name.startswith("mcp_") else tool_category(name, CATEGORIES)
        found = tool_input(args, category, DIFFS.get(name.lower()), path_keys=PATH_KEYS)
        self.calls.setdefault(call_id, Call(name, category, bool(found.diff), found.path))
        self.emit(
            call_id,
            kind=Kind.TOOL_CALL,
            tool_name=name,
            tool_input=args,
            category=category,
            call_id=call_id,
            model=model,
            line=line,
            meta=meta or {},
            **found.fields(),
        )

    def tool_result(
        self,
        call_id: str,
        name: str | None,
        text: str,
        line: int,
        *,
        is_error: bool = False,
        exit_code: int | None = None,
        diff: str | None = None,
        blocks: tuple[Block, ...] = (),
        meta: dict[str, Any] | None = None,
    ) -> None:
        call = self.calls.get(call_id)
        if diff and call is not None and call.has_diff:
            diff = None  # the call shows the change already
        self.emit(
            f"{call_id}-result",
            kind=Kind.TOOL_RESULT,
            tool_name=call.name if call is not None else name,
            text=text,
            call_id=call_id,
            is_error=is_error or (exit_code is not None and exit_code != 0),
            exit_code=exit_code,
            diff=diff,
            blocks=blocks,
            line=line,
            meta=meta or {},
        )
