"""The agent transcripts: ``~/.cursor/projects/<slug>/agent-transcripts/<id>.jsonl`` (or
``<id>/<id>.jsonl``, with its sub-agents' transcripts in ``<id>/subagents/*.jsonl``).

Each line is ``{"role": "user"|"assistant", "message": {"content": [...]}}`` with
Anthropic-style parts: ``text``, ``thinking``, ``tool_use`` (``name``, ``input``; an ``id``
only in some versions) and ``tool_result`` (``tool_use_id`` or none, ``content``). The lines
carry no ids, times or tokens. A result that names no call answers the oldest call still
open, as the agent ran them in order.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from sessite.model import Block, Event, Kind, ToolCategory
from sessite.readers._util import obj, shown, text_of
from sessite.readers.base import as_text
from sessite.readers.files import iter_jsonl
from sessite.readers.formats.cursor_agent.session import CursorBuilder
from sessite.readers.formats.cursor_agent.vocabulary import EMPTY


def subagent_files(path: Path) -> list[Path]:
    """The sub-agents' transcripts of ``<id>/<id>.jsonl``: ``<id>/subagents/*.jsonl``."""
    if path.stem != path.parent.name:
        return []
    folder = path.parent / "subagents"
    try:
        return sorted(p for p in folder.iterdir() if p.suffix == ".jsonl" and p.is_file())
    except OSError:
        return []


def read_transcript(b: CursorBuilder, path: Path) -> None:
    """Every line of one transcript into ``b``'s events (the builder's path is the file's)."""
    pending: list[str] = []  # calls not yet answered, oldest first
    for line, record in iter_jsonl(path, b.problems):
        try:
            _line(b, line, record, pending)
        except Exception as exc:  # noqa: BLE001 - one odd line costs that line, never the file
            b.unreadable(line, "transcript line", record, exc)


def read_subagents(b: CursorBuilder, files: list[Path]) -> Iterator[Event]:
    """Each sub-agent transcript as a SUBAGENT event holding its events (ids unique in the session),
    drawn inside the ``Task`` call whose prompt is the sub-agent's first user turn, when one is."""
    prompts = {
        prompt.strip(): e.call_id
        for e in b.events
        if e.kind == Kind.TOOL_CALL and e.category == ToolCategory.TASK and e.call_id
        if isinstance(prompt := obj(e.tool_input).get("prompt"), str)
    }
    for sub_path in files:
        sub = CursorBuilder(sub_path, b.problems)
        sub.ids = b.ids
        read_transcript(sub, sub_path)
        b.skipped.update(sub.skipped)
        for name in sub.models:
            b.model(name)
        first = next((e.text.strip() for e in sub.events if e.kind == Kind.USER), "")
        event = Event(
            id=b.ids.take(f"agent-{sub_path.stem}"),
            kind=Kind.SUBAGENT,
            title=sub.title or sub_path.stem,
            call_id=prompts.get(first),
        )
        yield replace(event, children=tuple(sub.events), meta={"transcript": sub_path.name})


def _line(b: CursorBuilder, line: int, record: dict[str, Any], pending: list[str]) -> None:
    role = record.get("role")
    message = record.get("message")
    content = obj(message).get("content") if isinstance(message, dict) else record.get("content")
    parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
    if role not in ("user", "assistant") or not isinstance(parts, list):
        kind = text_of(record.get("type")) or shown(role, 30)
        b.report(line, f"transcript line of an unknown shape ({kind}); shown as raw JSON")
        b.emit(f"l{line}", kind=Kind.UNKNOWN, title=f"transcript line ({kind})", raw=record, line=line)
        return
    before = (len(b.events), sum(b.skipped.values()))
    parts = [p for p in parts if isinstance(p, dict)]
    if role == "user":
        _user(b, line, parts, pending)
    else:
        _assistant(b, line, parts, pending)
    if (len(b.events), sum(b.skipped.values())) == before:
        b.skip(EMPTY, line=line)


def _user(b: CursorBuilder, line: int, parts: list[dict[str, Any]], pending: list[str]) -> None:
    texts = [as_text(p.get("text")) for p in parts if p.get("type") == "text" and p.get("text")]
    blocks = tuple(Block("json", title=as_text(p.get("type")), data=p) for p in parts if p.get("type") == "image")
    if texts or blocks:
        b.user_turn("\n\n".join(texts), line, f"l{line}", blocks=blocks)
    for k, part in enumerate(p for p in parts if p.get("type") == "tool_result"):
        call_id = text_of(part.get("tool_use_id"))
        if call_id is None or call_id not in pending:
            call_id = call_id or (pending[0] if pending else f"result-{line}-{k}")
        if call_id in pending:
            pending.remove(call_id)
        content = part.get("content")
        text = (
            "\n".join(as_text(obj(c).get("text")) for c in content if obj(c).get("type") == "text")
            if isinstance(content, list)
            else as_text(content)
            if content is not None
            else ""
        )
        b.tool_result(call_id, None, text, line, is_error=part.get("is_error") is True)
    _others(b, line, parts, ("text", "image", "tool_result"))


def _assistant(b: CursorBuilder, line: int, parts: list[dict[str, Any]], pending: list[str]) -> None:
    for k, part in enumerate(parts):
        kind = part.get("type")
        if kind == "text" and text_of(part.get("text")):
            b.emit(f"l{line}-{k}", kind=Kind.ASSISTANT, text=part["text"], line=line)
        elif kind == "thinking" and text_of(part.get("thinking") or part.get("text")):
            b.emit(f"l{line}-{k}", kind=Kind.THINKING, text=part.get("thinking") or part["text"], line=line)
        elif kind == "tool_use":
            call_id = text_of(part.get("id")) or f"call-{line}-{k}"
            pending.append(call_id)
            b.tool_call(call_id, text_of(part.get("name")) or "tool", part.get("input"), line)
    _others(b, line, parts, ("text", "thinking", "tool_use"))


def _others(b: CursorBuilder, line: int, parts: list[dict[str, Any]], known: tuple[str, ...]) -> None:
    for k, part in enumerate(parts):
        if part.get("type") not in known:
            b.emit(
                f"l{line}-part{k}", kind=Kind.UNKNOWN, title=f"part {shown(part.get('type'), 30)}", raw=part, line=line
            )
