"""The compact timeline of a session page: what each line says, and how lines are grouped.

A long session is mostly tool calls. Drawn whole, one 1.5-hour session was 89
screens tall; here every tool call is one line (its tool, what it did, its
outcome) that opens in place, consecutive calls are folded into one line
("14 tool calls: 6 Read, 5 Edit, 3 Bash"), and a sub-agent is one line too.
Nothing is left out of the page: everything is inside ``<details>``, which the
browser's find opens when it matches.

No HTML here (``templates/_events.html`` draws it) and no I/O: the template
asks a ``Timeline`` (one per page) for the plan of a list of events, the words
of a line and the compact time of an event.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from markupsafe import Markup

from sessite.model import Event, Kind, ToolCategory, walk
from sessite.render.diffs import changed, edit_diffs
from sessite.render.diffs import render as render_diff
from sessite.render.file_view import file_view
from sessite.site.paging import Part
from sessite.site.view import SessionView

_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\s]*\)")  # a markdown link: its words stay
_EMPHASIS = re.compile(r"\*\*|__|`")  # markdown's bold and code marks: the words stay
MIN_RUN = 3  # fewer consecutive tool calls than this stay lines of their own
GIST_CHARS = 140  # the words a folded line shows of a thought, a prompt, a system note

# The kinds a reader can hide (the filter bar); every event drawn belongs to one.
FILTERS: tuple[tuple[str, str], ...] = (
    ("prompt", "Prompts"),
    ("answer", "Answers"),
    ("thinking", "Thinking"),
    ("tool", "Tools"),
    ("subagent", "Sub-agents"),
    ("system", "System"),
)
_FILTER_OF_KIND = {
    Kind.USER: "prompt",
    Kind.ASSISTANT: "answer",
    Kind.THINKING: "thinking",
    Kind.TOOL_CALL: "tool",
    Kind.TOOL_RESULT: "tool",
    Kind.SUBAGENT: "subagent",
}
# What a line says a call did, by the tool input's key, most telling first.
_WHAT_KEYS = (
    "description",
    "pattern",
    "query",
    "url",
    "file_path",
    "notebook_path",
    "path",
    "command",
    "prompt",
    "name",
    "title",
    "q",
)

_SHELL_KEYS = {"command", "description", "timeout", "cmd"}
_LEAD_KINDS = {Kind.SYSTEM, Kind.TASK_START}  # what may come before a session's first message


@dataclass(frozen=True, slots=True)
class Run:
    """Consecutive tool calls (and the thoughts between them), drawn as one folded line."""

    events: tuple[Event, ...]
    calls: int
    tools: tuple[tuple[str, int], ...]  # tool name -> calls, most used first
    thoughts: int
    failed: int
    first: datetime | None
    last: datetime | None
    lead: bool = False  # the records before the conversation (hooks, startup notes), not tool calls

    @property
    def summary(self) -> str:
        """``14 tool calls: 6 Read, 5 Edit, 3 Bash``; ``6 startup records: 6 SessionStart``."""
        if self.lead:
            n = len(self.events)
            head = f"{n} startup record{'s' if n != 1 else ''}"
            return f"{head}: {', '.join(f'{c} {name}' for name, c in self.tools)}" if self.tools else head
        head = f"{self.calls} tool call{'s' if self.calls != 1 else ''}"
        return f"{head}: {', '.join(f'{n} {name}' for name, n in self.tools)}" if self.tools else head


@dataclass(frozen=True, slots=True)
class CallLine:
    """The words of a tool call's line: its tool and what it did (an opened line wraps them whole)."""

    tool: str
    what: str  # description, file, pattern, query…; "" when nothing says
    code: str  # a command or pattern shown as code beside ``what`` ("" when none)
    where: str = ""  # after the code: the folder a search looked in
    added: int = 0  # lines an edit adds and removes (its one diff)
    removed: int = 0


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a call ended, for its line: failed, its exit code, how much it printed."""

    failed: bool
    exit_code: int | None
    lines: int  # lines of output across its results
    results: int


@dataclass(frozen=True, slots=True)
class AgentLine:
    """A sub-agent's line: its task, outcome and counts."""

    task: str
    outcome: str
    failed: bool
    events: int
    tool_calls: int
    first: datetime | None
    last: datetime | None

    @property
    def seconds(self) -> float | None:
        return (self.last - self.first).total_seconds() if self.first and self.last else None


class Clock:
    """Compact times down one list: ``22:45``, with the date only when it changes."""

    def __init__(self, since: datetime | None = None) -> None:
        self.day = since.astimezone(UTC).date() if since else None

    def label(self, when: datetime | None) -> str:
        if when is None:
            return ""
        when = when.astimezone(UTC)  # strftime's words, written out: a page asks this for every line
        day = when.date()
        if day != self.day:
            self.day = day
            return f"{when.year}-{when.month:02d}-{when.day:02d} {when.hour:02d}:{when.minute:02d}"
        return f"{when.hour:02d}:{when.minute:02d}"


def gist(text: str | None, limit: int = GIST_CHARS) -> str:
    """The first words of a text on one line (markdown marks at line starts and link targets dropped)."""
    if not text:
        return ""
    words: list[str] = []
    size = 0
    for raw in text[: limit * 8].splitlines():
        line = _EMPHASIS.sub("", _LINK.sub(r"\1", raw.strip().lstrip("#>*-+ ").strip()))
        if not line or line.startswith("```"):
            continue
        words.append(line)
        size += len(line) + 1
        if size > limit:
            break
    flat = " ".join(words)
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


class Timeline:
    """What ``templates/_events.html`` asks while drawing one page of a session."""

    def __init__(self, view: SessionView, part: Part | None = None) -> None:
        self.view = view
        self.part = part
        self.cwd = (view.session.cwd or "").rstrip("/")
        self._diffs: dict[int, tuple[str | None, list[str]]] = {}  # id(event) -> diffs(event), asked twice

    # ------------------------------------------------------------ grouping

    def spawns_agent(self, e: Event) -> bool:
        """A call whose line is a sub-agent's: it spawned one, or its tool is one."""
        return e.kind == Kind.TOOL_CALL and (bool(self.view.subagents_for(e)) or e.category == ToolCategory.TASK)

    def filter_of(self, e: Event) -> str:
        """The filter an event is hidden by (``FILTERS``)."""
        if self.spawns_agent(e):
            return "subagent"
        return _FILTER_OF_KIND.get(e.kind, "system")

    def _groupable(self, e: Event) -> bool:
        return e.kind == Kind.TOOL_RESULT or (e.kind == Kind.TOOL_CALL and not self.spawns_agent(e))

    def plan(self, events: Sequence[Event], lead: bool = False) -> list[Event | Run]:
        """The lines of a list: its events, with runs of ``MIN_RUN`` or more tool calls
        (and the thoughts between them) folded into one ``Run``. With ``lead`` (a page's first
        part), two or more system records before the first message fold into one line too: the
        conversation, not six hook outputs, is what a reader sees first."""
        items: list[Event | Run] = []
        i, n = 0, len(events)
        if lead:
            while i < n and events[i].kind in _LEAD_KINDS:
                i += 1
            if i >= 2:
                items.append(self._lead(events[:i]))
            else:
                i = 0
        while i < n:
            if not self._groupable(events[i]):
                items.append(events[i])
                i += 1
                continue
            end = last_call = i
            while end < n and (self._groupable(events[end]) or events[end].kind == Kind.THINKING):
                if self._groupable(events[end]):
                    last_call = end
                end += 1
            run = events[i : last_call + 1]  # thoughts after the last call stay outside
            calls = sum(1 for e in run if e.kind == Kind.TOOL_CALL)
            if calls + sum(1 for e in run if e.kind == Kind.TOOL_RESULT) >= MIN_RUN:
                items.append(self._run(run))
            else:
                items.extend(run)
            i = last_call + 1
        return items

    @staticmethod
    def conversation_start(events: Sequence[Event]) -> Event | None:
        """Where "Skip to the conversation" leads: the first event past the startup records."""
        return next((e for e in events if e.kind not in _LEAD_KINDS), events[0] if events else None)

    def _lead(self, events: Sequence[Event]) -> Run:
        titles = Counter((e.title or "system").strip() for e in events)
        times = [e.timestamp for e in events if e.timestamp]
        failed = sum(1 for e in events if e.is_error)
        first, last = min(times, default=None), max(times, default=None)
        return Run(tuple(events), 0, tuple(titles.most_common()), 0, failed, first, last, lead=True)

    def _run(self, events: Sequence[Event]) -> Run:
        tools: Counter[str] = Counter()
        failed = thoughts = 0
        times: list[datetime] = []
        for e in events:
            if e.timestamp:
                times.append(e.timestamp)
            if e.kind == Kind.THINKING:
                thoughts += 1
            elif e.kind == Kind.TOOL_CALL:
                tools[e.tool_name or "tool"] += 1
                failed += self.outcome(e).failed
            elif e.is_error:
                failed += 1
        return Run(
            tuple(events),
            sum(tools.values()),
            tuple(tools.most_common()),
            thoughts,
            failed,
            min(times, default=None),
            max(times, default=None),
        )

    def children(self, e: Event) -> list[Event]:
        """A sub-agent's events a page lists (its results are drawn inside their calls)."""
        return [c for c in e.children if c.id not in self.view.inline]

    # ------------------------------------------------------------ the words of a line

    def short_path(self, path: str | None) -> str:
        """A path inside the session's folder without that folder."""
        if not path:
            return ""
        if self.cwd and path.startswith(self.cwd + "/"):
            return path[len(self.cwd) + 1 :]
        return path

    def call_line(self, e: Event) -> CallLine:
        """What a tool call's line says."""
        tool = e.tool_name or "tool"
        args: dict[str, Any] = e.tool_input if isinstance(e.tool_input, dict) else {}
        description = _text(args.get("description"))
        if e.category == ToolCategory.SHELL and e.command:
            first = e.command.strip().splitlines()[0] if e.command.strip() else e.command
            return CallLine(tool, description, first)
        if e.category == ToolCategory.EDIT or (e.diff and e.path):
            added, removed = self.edit_stat(e)
            return CallLine(tool, self.short_path(e.path), "", "", added, removed)
        if e.category == ToolCategory.SEARCH:
            pattern = _text(args.get("pattern")) or _text(args.get("query")) or _text(args.get("regex"))
            where = self.short_path(e.path or _text(args.get("path")))
            if not pattern:
                return CallLine(tool, where, "")
            return CallLine(tool, "", pattern, f"in {where}" if where else "")
        if e.path:
            return CallLine(tool, self.short_path(e.path), "")
        for key in _WHAT_KEYS:
            value = _text(args.get(key))
            if value:
                what = self.short_path(value) if "path" in key else gist(value)
                return CallLine(tool, what, "")
        if e.command:
            return CallLine(tool, "", e.command.strip().splitlines()[0])
        first = next((v for v in args.values() if isinstance(v, str) and v.strip()), "")
        return CallLine(tool, gist(first or e.text), "")

    def edit_stat(self, e: Event) -> tuple[int, int]:
        diff, _ = self.diffs(e)
        return changed(diff) if diff else (0, 0)

    def diffs(self, e: Event) -> tuple[str | None, list[str]]:
        """The one diff an edit shows, and the others (folded with the tool's reply)."""
        found = self._diffs.get(id(e))
        if found is None:
            found = self._diffs[id(e)] = edit_diffs(e, self.view.results_for(e))
        return found

    def outcome(self, e: Event) -> Outcome:
        results = self.view.results_for(e) if e.kind == Kind.TOOL_CALL else [e]
        failed = e.is_error or any(r.is_error for r in results)
        code = e.exit_code
        for r in results:
            if r.exit_code is not None:
                code = r.exit_code
        lines = sum(r.text.rstrip("\n").count("\n") + 1 for r in results if r.text.strip())
        return Outcome(failed, code, lines, len(results))

    def agent_line(self, e: Event) -> AgentLine:
        """The line of a call that spawned a sub-agent, or of a sub-agent on its own."""
        if e.kind == Kind.SUBAGENT:
            subs, results, call_args = [e], [], {}
        else:
            subs = self.view.subagents_for(e)
            results = self.view.results_for(e)
            call_args = e.tool_input if isinstance(e.tool_input, dict) else {}
        task = (
            _text(call_args.get("description"))
            or e.title
            or next((s.title for s in subs if s.title), None)
            or gist(_text(call_args.get("prompt")))
            or "sub-agent"
        )
        inner = [x for s in subs for x in walk(s.children)]
        failed = any(r.is_error for r in results)
        status = next((str(r.meta["status"]) for r in results if isinstance(r.meta.get("status"), str)), "")
        outcome = "failed" if failed else status or ("done" if results else ("" if subs else "no result"))
        times = [x.timestamp for x in (*inner, *results) if x.timestamp]
        if task == e.tool_name:
            task = ""  # the line names the tool already
        return AgentLine(
            gist(task, 120),
            outcome,
            failed,
            len(inner),
            sum(1 for x in inner if x.kind == Kind.TOOL_CALL),
            min(times, default=None),
            max(times, default=None),
        )

    def plain_shell_input(self, e: Event) -> bool:
        """True when a shell call's input says nothing its line and body do not (command, description, timeout)."""
        args = e.tool_input if isinstance(e.tool_input, dict) else {}
        return set(args) <= _SHELL_KEYS

    def file_view(self, result: Event, call: Event | None) -> Markup | None:
        """A file-reading call's result as the file it read (``render.file_view``), or None."""
        if call is None or call.category != ToolCategory.READ or not result.text or result.is_error:
            return None
        path = call.path
        if path is None and isinstance(call.tool_input, dict):
            given = call.tool_input.get("file_path") or call.tool_input.get("path")
            path = given if isinstance(given, str) else None
        return file_view(result.text, path)

    def draw_diff(self, diff: str) -> Markup:
        """A diff with line backgrounds and numbers (``sessite/render/diffs.py``)."""
        return render_diff(diff)

    def gist(self, text: str | None) -> str:
        return gist(text)

    @staticmethod
    def is_run(item: Event | Run) -> bool:
        return isinstance(item, Run)

    # ------------------------------------------------------------ times and links

    def span(self, clock: Clock, first: datetime, last: datetime | None) -> str:
        """A run's times: ``22:46–22:52`` (the date when the clock's day changes)."""
        start = clock.label(first)
        if last is None or last.astimezone(UTC).strftime("%Y-%m-%d %H:%M") == first.astimezone(UTC).strftime(
            "%Y-%m-%d %H:%M"
        ):
            return start
        return f"{start}–{clock.label(last)}"

    def clock(self, since: datetime | None = None) -> Clock:
        """A fresh clock for one list (``since``: the time of the line the list opens from)."""
        return Clock(since)

    def href(self, event_id: str, root: str) -> str:
        """A link to an event from this page: ``#anchor`` when it is drawn here, else its part's page."""
        anchor = self.view.anchors.get(event_id, "")
        if not self.view.parts:
            return f"#{anchor}"
        here = (self.part.number - 1) if self.part else 0
        if self.view.event_part.get(event_id, 0) == here:
            return f"#{anchor}"
        return root + self.view.event_url(event_id)

    def prompts(self) -> list[tuple[Event, str]]:
        """The user's prompts this page draws (the outline), each with its words.

        A part of a split session outlines its own prompts (the pager leads to the
        others), so every part stays about as small as planned."""
        return [
            (e, gist(e.text, 90) or _blocks_label(e)) for e in self.view.part_events(self.part) if e.kind == Kind.USER
        ]


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _blocks_label(e: Event) -> str:
    kinds = sorted({b.type for b in e.blocks})
    return f"({', '.join(kinds)})" if kinds else "(empty prompt)"
