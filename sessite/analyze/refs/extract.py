"""One pass over a session's events, in order: each text read on its channel, each command's
output read knowing the command. Then ``scoping.finish`` makes the session's refs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sessite.analyze.refs.commands import Invocation, record_commands, runs_elsewhere
from sessite.analyze.refs.findings import Findings
from sessite.analyze.refs.forges import DEFAULT_FORGE, Forge
from sessite.analyze.refs.keys import Repo, SessionRefs
from sessite.analyze.refs.mentions import GIT, MSG, TOOL, scan
from sessite.analyze.refs.scoping import finish
from sessite.analyze.refs.structured import record_structured
from sessite.analyze.refs.titles import record_titles
from sessite.model import Event, Kind, Session, walk

# a tool call's git/gh invocations and its gh pr create (--repo, --head), for reading its result
_CallInfo = tuple[list[Invocation], tuple[Repo | None, str | None] | None]


def extract_refs(session: Session, forge: Forge = DEFAULT_FORGE) -> SessionRefs:
    """Every git ref a session worked on or mentions, scoped by repository."""
    f = Findings(session, forge)
    record_structured(f)
    calls: dict[str, _CallInfo] = {}
    for event in walk(session.events):
        if event.kind == Kind.TOOL_CALL:
            _tool_call(f, event, calls)
        elif event.kind == Kind.TOOL_RESULT:
            _tool_result(f, event, calls.get(event.call_id or "") or ([], None))
        elif event.kind != Kind.UNKNOWN:
            if event.text:
                # a system note (a hook's output, a skill's instructions, a tool list) is example text,
                # not the conversation: only refs that say where they belong (URLs, owner/repo#N)
                scan(f, event.text, event.id, TOOL if event.kind == Kind.SYSTEM else MSG)
            for block in event.blocks:
                if block.text:
                    scan(f, block.text, event.id, TOOL if block.type in ("code", "file", "json") else MSG)
    _flush_push(f, "")
    return finish(f)


def _tool_call(f: Findings, event: Event, calls: dict[str, _CallInfo]) -> None:
    """A command line is read as git when it runs git or gh; the rest of the call's input as tool I/O."""
    invocations: list[Invocation] = []
    f.pr_head = None
    if event.command and runs_elsewhere(event.command, f.session.cwd):
        scan(f, event.command, event.id, TOOL)  # another repository's git: its output names no commit of ours
    elif event.command:
        invocations = record_commands(f, event.id, event.command)
        scan(f, event.command, event.id, GIT if invocations else TOOL, {i.sub for i in invocations})
    if event.call_id:
        calls[event.call_id] = (invocations, f.pr_head)
    if event.text:
        scan(f, event.text, event.id, TOOL)
    if event.tool_input is not None and not (
        event.command and isinstance(event.tool_input, dict) and len(event.tool_input) <= 2
    ):
        for text in _strings(event.tool_input):
            if text != event.command:
                scan(f, text, event.id, TOOL)
    if not event.call_id:
        _flush_push(f, "")


def _tool_result(f: Findings, event: Event, call: _CallInfo) -> None:
    """A result is git output when its call ran git or gh."""
    invocations, pr_head = call
    subs = {i.sub for i in invocations}
    channel = GIT if invocations else TOOL
    f.pr_create = (pr_head or (None, None)) if "pr create" in subs else None
    for text in _event_texts(event):
        scan(f, text, event.id, channel, subs)
        if invocations:
            record_titles(f, invocations, text)
    if invocations:
        _flush_push(f, event.text or "")


def _flush_push(f: Findings, output: str) -> None:
    """Branches named on a ``git push`` line, unless its output says they are tags."""
    if not f.pending_push:
        return
    for eid, name in f.pending_push:
        if "[new tag]" in output and re.search(rf"\[new tag\]\s+{re.escape(name)}\s", output):
            continue
        f.hit(None, "branch", name, eid, worked=True)
    f.pending_push = []


def _event_texts(event: Event) -> Iterator[str]:
    if event.text:
        yield event.text
    for block in event.blocks:
        if block.text:
            yield block.text


def _strings(value: Any, budget: int = 64) -> Iterator[str]:
    """String leaves of a JSON-like value (bounded)."""
    stack = [value]
    while stack and budget > 0:
        item = stack.pop()
        if isinstance(item, str):
            budget -= 1
            yield item
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed(item))


@dataclass(slots=True)
class _Last:
    """The last session extract_refs read, with the forge it used and what it found."""

    session: Session | None = None
    forge: Forge | None = None
    refs: SessionRefs | None = None


_LAST = _Last()


def clear_cache() -> None:
    """Forget the last session (the refs aggregate calls it when done, so the session can be freed)."""
    _LAST.session, _LAST.forge, _LAST.refs = None, None, None


def session_refs(session: Session, forge: Forge = DEFAULT_FORGE) -> SessionRefs:
    """extract_refs, remembered for the last session (its page and the refs
    aggregate both ask for it, one right after the other)."""
    if _LAST.session is session and (_LAST.forge is forge or _LAST.forge == forge) and _LAST.refs is not None:
        return _LAST.refs
    result = extract_refs(session, forge)
    _LAST.session, _LAST.forge, _LAST.refs = session, forge, result
    return result
