"""Kimi CLI's ``context.jsonl``: the messages the model was given, in the order it got them.

Lines are OpenAI-style messages ``{role, content, tool_calls?, tool_call_id?}`` (content a
string or typed parts) between the CLI's markers: ``_checkpoint`` (where ``/undo`` can go
back to), ``_usage`` (the context's size after the message) and ``_system_prompt``. It has
no times. Beside a ``wire.jsonl`` it repeats what the wire log shows, and each such line is
merged into the event that shows it; what the wire log lacks (a log cut short, a
compaction's summary) is shown, in the context's order, after the last message both
share. Alone (an older session without a wire log) it is the session.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sessite.model import Event, Kind, Problems, cut_words
from sessite.readers._util import maybe_json, named, obj, shorten, text_of
from sessite.readers.files import iter_jsonl
from sessite.readers.formats.kimi_cli.calls import tool_call, tool_result
from sessite.readers.formats.kimi_cli.content import input_text, part_of
from sessite.readers.formats.kimi_cli.state import KimiFile

MARKERS = {
    "_checkpoint": "checkpoint marker (where /undo can go back to)",
    "_usage": "context size after the message before it (the wire log gives each step's tokens)",
    "_system_prompt": "the agent's system prompt (its own instructions)",
    "system": "the agent's system prompt (its own instructions)",
}
_CHECKPOINT_TEXT = "CHECKPOINT "


def _flat(text: str) -> str:
    return " ".join(text.split())


@dataclass
class Shown:
    """What the wire log already shows: the user's inputs (in order), calls, results and texts."""

    users: list[tuple[str, Event]] = field(default_factory=list)
    calls: dict[str, Event] = field(default_factory=dict)
    results: dict[str, Event] = field(default_factory=dict)
    texts: dict[str, Event] = field(default_factory=dict)

    @classmethod
    def of(cls, events: list[Event]) -> Shown:
        shown = cls()
        for event in events:
            if event.kind == Kind.USER:
                shown.users.append((_flat(event.text), event))
            elif event.kind == Kind.TOOL_CALL and event.call_id:
                shown.calls.setdefault(event.call_id, event)
            elif event.kind == Kind.TOOL_RESULT and event.call_id:
                shown.results.setdefault(event.call_id, event)
            elif event.kind in (Kind.ASSISTANT, Kind.THINKING) and event.text.strip():
                shown.texts.setdefault(_flat(event.text), event)
        return shown

    def match(self, record: dict[str, Any]) -> Event | None:
        """The wire event that shows this context message, if any (a user input is matched once)."""
        role = record.get("role")
        if role == "user":
            text = _flat(input_text(record.get("content"))[0])
            for at, (known, event) in enumerate(self.users):
                if known == text:
                    del self.users[at]
                    return event
            return None
        if role == "tool":
            return self.results.get(text_of(record.get("tool_call_id")) or "")
        if role == "assistant":
            for call in _calls(record):
                found = self.calls.get(text_of(obj(call).get("id")) or "")
                if found is not None:
                    return found
            for kind, body in _parts(record):
                if kind in ("text", "think") and _flat(body) in self.texts:
                    return self.texts[_flat(body)]
        return None


def _parts(record: dict[str, Any]) -> list[tuple[str, Any]]:
    content = record.get("content")
    return [part_of(p) for p in (content if isinstance(content, list) else [content] if content is not None else [])]


def _calls(record: dict[str, Any]) -> list[Any]:
    calls = record.get("tool_calls")
    return calls if isinstance(calls, list) else []


def read_alone(f: KimiFile, path: Path, problems: Problems) -> None:
    """A context with no wire log: its messages are the session."""
    for line, record in iter_jsonl(path, problems):
        _message(f, line, record)


def reconcile(f: KimiFile, path: Path, problems: Problems) -> None:
    """A context beside a wire log: lines the wire log shows are merged; the others are placed
    after the last event both share, in the context's order."""
    shown = Shown.of(list(f.events))
    after: Event | None = None
    groups: dict[int, list[Event]] = {}  # id of the event they follow (0: the start) -> events
    anchors: dict[int, Event | None] = {}
    with f.reading(path):
        for line, record in iter_jsonl(path, problems):
            if named(record.get("role"), MARKERS.keys()) or _checkpoint(record):
                f.skip(MARKERS.get(str(record.get("role")), "checkpoint message (for /undo)"), line=line)
                continue
            match = shown.match(record)
            if match is not None:
                f.merged(line, "the model's copy of a message the wire log shows")
                after = match
                continue
            before = len(f.events)
            _message(f, line, record)
            made = f.events[before:]
            del f.events[before:]
            key = id(after) if after is not None else 0
            groups.setdefault(key, []).extend(made)
            anchors[key] = after
    for key, made in groups.items():
        anchor = anchors[key]
        at = 0 if anchor is None else next((i + 1 for i, e in enumerate(f.events) if e is anchor), len(f.events))
        f.events[at:at] = made


def _checkpoint(record: dict[str, Any]) -> bool:
    """``<system>CHECKPOINT 3</system>``: a user message the CLI adds so the model can name a checkpoint."""
    if record.get("role") != "user":
        return False
    text = input_text(record.get("content"))[0].strip()
    return text.startswith("<system>" + _CHECKPOINT_TEXT) and text.endswith("</system>") and len(text) < 40


def _message(f: KimiFile, line: int, record: dict[str, Any]) -> None:
    """One context message as events, on the timeline (the ledger told of the file being read)."""
    role = record.get("role")
    if named(role, MARKERS.keys()) or _checkpoint(record):
        f.skip(MARKERS.get(str(role), "checkpoint message (for /undo)"), line=line)
        return
    if role == "user":
        text, blocks = input_text(record.get("content"))
        if not text.strip() and not blocks:
            f.skip("empty user message", line=line)
            return
        f.facts.prompt = f.facts.prompt or (shorten(text, 200) if text.strip() else None)
        f.put(f"ctx-{line}", None, kind=Kind.USER, text=text, blocks=tuple(blocks), line=line)
    elif role == "assistant":
        made = 0
        for kind, body in _parts(record):
            if kind in ("text", "think") and body.strip():
                f.put(
                    f"ctx-{line}", None, kind=Kind.THINKING if kind == "think" else Kind.ASSISTANT, text=body, line=line
                )
                made += 1
            elif kind == "block":
                f.put(f"ctx-{line}", None, kind=Kind.ASSISTANT, blocks=(body,), line=line)
                made += 1
        for call in _calls(record):
            function = obj(obj(call).get("function"))
            name = text_of(function.get("name")) or "tool"
            tool_call(f, text_of(obj(call).get("id")), name, maybe_json(function.get("arguments")), line, None, None)
            made += 1
        if not made:
            f.skip("assistant message without content", line=line)
    elif role == "tool":
        text, blocks = input_text(record.get("content"))
        tool_result(f, text_of(record.get("tool_call_id")), {"output": text}, line, None, None)
        if blocks:
            f.events[-1] = replace(f.events[-1], blocks=tuple(blocks))
    else:
        f.other(line, f"context role {role!r}")
        text, blocks = input_text(record.get("content"))
        f.put(
            f"ctx-{line}",
            None,
            kind=Kind.SYSTEM,
            title=cut_words(str(role or "message"), 60),
            text=text,
            blocks=tuple(blocks),
            line=line,
        )
