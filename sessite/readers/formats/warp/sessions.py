"""Warp sessions: one per agent conversation, its tasks' messages in order, sub-agent tasks nested.

A conversation's root task (no parent task) is its transcript; a task a ``subagent`` call
started (``dependencies.parent_task_id``) becomes a SUBAGENT event after that call's result.
Each ``ai_queries`` row is one request of the conversation: its typed query is already
the task's ``user_query`` (merged, its status kept on that message), a query the tasks
do not hold (Warp wrote the task before it) is shown where its time falls, and a request
without a query of its own is a step of the agent's turn. Conversations older Warp kept
only as queries and ``ai_blocks`` outputs are read from those.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from sessite.model import Event, Kind, Problems, Session
from sessite.readers import ledger
from sessite.readers._util import obj, text_of, to_float
from sessite.readers.base import as_text, parse_time
from sessite.readers.builder import SessionBuilder
from sessite.readers.formats.warp.database import NAME, Exchange, Task, WarpData
from sessite.readers.formats.warp.messages import TaskReader
from sessite.readers.formats.warp.proto import Fields, ProtoError

AGENT = "warp"
QUERY_COPY = "the request's query (shown as the task's message)"
AGENT_STEP = "request without a query of its own (a step of the agent's turn, shown by the task's messages)"
_MAX_DEPTH = 20


def sessions(data: WarpData, path: Path, problems: Problems) -> Iterator[Session]:
    order: dict[str, None] = {}
    for cid in [*(t.conversation for t in data.tasks), *(e.conversation for e in data.exchanges)]:
        order.setdefault(cid, None)
    for block in data.orphan_blocks:
        _builder(path, problems).skip("AI block whose request is not in ai_queries", line=block)
    for cid in order:
        tasks = [t for t in data.tasks if t.conversation == cid]
        exchanges = [e for e in data.exchanges if e.conversation == cid]
        session = _conversation(cid, tasks, exchanges, data, path, problems)
        if session is not None:
            yield session


def _builder(path: Path, problems: Problems) -> SessionBuilder:
    return SessionBuilder(NAME, path, problems, agent=AGENT, label=NAME)


def _conversation(
    cid: str, tasks: list[Task], exchanges: list[Exchange], data: WarpData, path: Path, problems: Problems
) -> Session | None:
    b = _builder(path, problems)
    by_id = {t.task_id: t for t in tasks}
    roots = [t for t in tasks if not t.parent or t.parent not in by_id or t.parent == t.task_id]
    reader = TaskReader(b)
    events: list[Event] = []
    for task in roots:
        events += _task_events(task, by_id, reader, b, path, problems, 0)
    b.events = events
    for exchange in exchanges:
        _exchange(exchange, reader, b, bool(tasks))
    if not b.events:
        return None
    for exchange in exchanges:
        b.model(exchange.model)
    return _session(cid, b, roots, exchanges, data, reader.cwd)


def _task_events(
    task: Task,
    by_id: dict[str, Task],
    reader: TaskReader,
    b: SessionBuilder,
    path: Path,
    problems: Problems,
    depth: int,
) -> list[Event]:
    """A task's events, written to a builder of its own (sharing the page's ids), sub-agent tasks nested."""
    own = _builder(path, problems)
    own.ids = b.ids
    sub = TaskReader(own)
    sub.queries, sub.subtasks = reader.queries, reader.subtasks
    if task.fields is None:
        own.skip("agent task that could not be read", line=task.first_line)
    for line, raw in task.messages():
        try:
            sub.message(line, Fields(raw))
        except (ProtoError, ValueError, TypeError) as exc:
            own.unreadable(line, "task message", {"bytes": len(raw)}, exc)
    reader.cwd = reader.cwd or sub.cwd
    for reason, count in own.skipped.items():
        b.skipped[reason] += count
    for model in own.models:
        b.model(model)
    events = list(own.events)
    children = [t for t in by_id.values() if t.parent == task.task_id and t is not task]
    for child in children if depth < _MAX_DEPTH else []:
        inner = _task_events(child, by_id, reader, b, path, problems, depth + 1)
        call_id = reader.subtasks.get(child.task_id)
        agent = Event(
            id=b.ids.take(f"sub-{child.task_id}"),
            kind=Kind.SUBAGENT,
            timestamp=next((e.timestamp for e in inner if e.timestamp), None),
            title=child.description or f"Sub-agent task {child.task_id}",
            children=tuple(inner),
            call_id=call_id if any(e.call_id == call_id for e in events) else None,
            meta={"task": child.task_id},
        )
        events.insert(_insert_at(events, agent), agent)
    return events


def _insert_at(events: list[Event], event: Event) -> int:
    """After the call's result (or the call) it belongs to, else where its time falls."""
    if event.call_id:
        for kind in (Kind.TOOL_RESULT, Kind.TOOL_CALL):
            for index, other in enumerate(events):
                if other.call_id == event.call_id and other.kind == kind:
                    return index + 1
    if event.timestamp is None:
        return len(events)
    best, stamps = float("-inf"), []
    for other in events:
        best = max(best, other.timestamp.timestamp() if other.timestamp else float("-inf"))
        stamps.append(best)
    return bisect_right(stamps, event.timestamp.timestamp())


def _exchange(exchange: Exchange, reader: TaskReader, b: SessionBuilder, has_tasks: bool) -> None:
    """One ``ai_queries`` row: merged into the task's query, shown where it falls, or counted."""
    items = exchange.input if isinstance(exchange.input, list) else []
    query = next((obj(obj(i).get("Query")) for i in items if "Query" in obj(i)), None)
    text = as_text(query.get("text")).strip() if query is not None else ""
    status = exchange.status if isinstance(exchange.status, str) else None
    note = {"status": status} if status and status != "Completed" else {}
    if text and text in reader.queries:
        index = next((i for i, e in enumerate(b.events) if e.id == reader.queries[text]), None)
        if note and index is not None:
            b.events[index] = replace(b.events[index], meta={**b.events[index].meta, **note})
        b.merged(exchange.line, QUERY_COPY)
    elif text:
        user = Event(
            id=b.ids.take(f"query-{exchange.exchange_id}"),
            kind=Kind.USER,
            timestamp=parse_time(exchange.start),
            text=text,
            line=exchange.line,
            meta=note,
        )
        b.events.insert(_insert_at(b.events, user), user)
        ledger.shown(b.path, exchange.line)
        reader.queries[text] = user.id
    elif has_tasks or not items:
        b.skip(AGENT_STEP if has_tasks else "request without input", line=exchange.line)
    else:
        b.emit(
            f"request-{exchange.exchange_id}",
            kind=Kind.SYSTEM,
            timestamp=parse_time(exchange.start),
            title="Request",
            text="\n".join(as_text(i) for i in items),
            line=exchange.line,
            meta=note,
        )
    for line, output in exchange.outputs:
        _block(line, output, exchange, b, has_tasks)


def _block(line: int, output: Any, exchange: Exchange, b: SessionBuilder, has_tasks: bool) -> None:
    """An older ``ai_blocks`` output: ``{"Received": {"output": [{"Text": …}]}}``."""
    received = obj(obj(output).get("Received"))
    parts = _items(received.get("output"))
    text = "\n\n".join(as_text(obj(p).get("Text")) for p in parts if "Text" in obj(p)).strip()
    if text:
        b.emit(
            f"answer-{exchange.exchange_id}",
            kind=Kind.ASSISTANT,
            timestamp=parse_time(exchange.start),
            text=text,
            model=exchange.model or None,
            line=line,
        )
    else:
        b.skip("AI block without text", line=line)


def _session(
    cid: str, b: SessionBuilder, roots: list[Task], exchanges: list[Exchange], data: WarpData, cwd: str | None
) -> Session:
    conversation = data.conversations.get(cid, {})
    usage = obj(conversation.get("conversation_usage_metadata"))
    meta: dict[str, Any] = {}
    credits = to_float(usage.get("credits_spent"))
    if credits:
        meta["credits spent"] = round(credits, 6)
    tokens = {
        text_of(obj(t).get("model_id")) or "model": obj(t).get("total_tokens")
        for t in _items(usage.get("token_usage"))
        if isinstance(obj(t).get("total_tokens"), int)
    }
    for model in tokens:
        b.model(model)
    if tokens:
        meta["tokens"] = tokens
    if usage.get("was_summarized") is True:
        meta["summarized"] = True
    title = next((t.description for t in roots if t.description), None)
    workdir = cwd or next((e.working_directory for e in exchanges if e.working_directory), None)
    return b.finish(cid, title=title, cwd=workdir, meta=meta)


def _items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
