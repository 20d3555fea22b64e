"""User and assistant messages.

``user.message.content`` is what was typed; ``transformedContent`` is what the model got
(the same words with the date and reminders Copilot adds), so the page shows ``content``.
Copilot also writes messages of its own as ``user.message`` records, named by ``source``:
a reminder (``system``), an AGENTS.md it found (``instruction-discovery``), a skill's
context (``skill-…``): those are titled system notes. A prompt one agent gave a
sub-agent (``source: agent-<session>``) is the user message of that sub-agent's transcript.

An ``assistant.message`` is its reasoning (``reasoningText``; an encrypted one has no text),
its prose (``content``) and the calls it asks for (``toolRequests``).
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime
from typing import Any

from sessite.model import Block, Event, Kind, Usage, user_words
from sessite.readers._util import opt_int, shorten, text_of
from sessite.readers.base import as_text, parse_time
from sessite.readers.builder import MODEL_KINDS, last_index
from sessite.readers.formats.copilot_cli.calls import tool_call
from sessite.readers.formats.copilot_cli.state import CopilotFile, record_id
from sessite.readers.formats.copilot_cli.vocabulary import SOURCE_TITLES

_WRAPPER = re.compile(r"\A\s*<([A-Za-z][\w-]{0,40})>\n?(.*?)\n?</\1>\s*\Z", re.S)


def user_message(f: CopilotFile, line: int, record: dict[str, Any], data: dict[str, Any]) -> None:
    """A typed prompt (or an agent's prompt to a sub-agent) as USER; Copilot's own messages as notes."""
    rid = record_id(record, "user")
    ts = parse_time(record.get("timestamp"))
    source = text_of(data.get("source"))
    content = as_text(data.get("content")) if data.get("content") is not None else ""
    attached = data.get("attachments")
    blocks = tuple(_attachment(a) for a in attached if isinstance(a, dict)) if isinstance(attached, list) else ()
    if source is None or source == "user" or source.startswith("agent-"):
        text = content if content.strip() else user_words(as_text(data.get("transformedContent") or ""))
        if not text.strip() and not blocks:
            f.skip("empty user message", line=line)
            return
        meta = _user_meta(data, source)
        parent = f.prompted(data) if source else None
        f.put(rid, parent, kind=Kind.USER, timestamp=ts, text=text, blocks=blocks, line=line, meta=meta)
        if source in (None, "user") and f.facts.title is None and user_words(text):
            f.facts.title = shorten(user_words(text), 200)
        return
    text = content if content.strip() else as_text(data.get("transformedContent") or "")
    if not text.strip() and not blocks:
        f.skip(f"empty message from {shorten(source, 40)}", line=line)
        return
    title = SOURCE_TITLES.get(source) or ("Skill context" if source.startswith("skill-") else f"Message from {source}")
    f.put(
        rid,
        f.parent_of(data),
        kind=Kind.SYSTEM,
        timestamp=ts,
        title=title,
        text=unwrapped(text),
        blocks=blocks,
        line=line,
        meta={"source": source},
    )


def unwrapped(text: str) -> str:
    """``text`` without one tag that wraps all of it (``<system_reminder>…</system_reminder>``)."""
    match = _WRAPPER.match(text)
    return match.group(2).strip() if match else text.strip()


def _user_meta(data: dict[str, Any], source: str | None) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    if source:
        meta["from"] = source
    if data.get("delivery") == "steering":
        meta["delivery"] = "steering (typed while the agent worked)"
    if text_of(data.get("agentMode")):
        meta["mode"] = data["agentMode"]
    return meta


def _attachment(attachment: dict[str, Any]) -> Block:
    """An attached file, folder, selection or image as a block (never its bytes as text)."""
    kind = text_of(attachment.get("type")) or "attachment"
    path = text_of(attachment.get("path")) or text_of(attachment.get("filePath")) or text_of(attachment.get("uri"))
    name = text_of(attachment.get("displayName")) or path or kind
    data = attachment.get("data")
    mime = text_of(attachment.get("mimeType")) or text_of(attachment.get("mediaType"))
    if kind in ("image", "blob") or (mime or "").startswith("image/"):
        uri = f"data:{mime or 'image/png'};base64,{data}" if isinstance(data, str) and data else path
        return Block("image", uri=uri, mime=mime, title=name)
    if kind == "selection":
        text = as_text(attachment.get("text") or attachment.get("selection") or "")
        return Block("code", text=text, title=name)
    if kind == "file":
        return Block("file", uri=path, title=name)
    return Block("reference", uri=path, title=f"{kind}: {name}" if name != kind else kind)


def assistant_message(f: CopilotFile, line: int, record: dict[str, Any], data: dict[str, Any]) -> None:
    """Reasoning, prose and calls, in that order; the response's output tokens on its last event."""
    rid = record_id(record, "assistant")
    ts = parse_time(record.get("timestamp"))
    model = text_of(data.get("model"))
    parent = f.parent_of(data)
    f.model(model)
    start = len(f.events) if parent is None else len(f.children.get(parent, ()))
    reasoning = as_text(data.get("reasoningText")) if data.get("reasoningText") is not None else ""
    if reasoning.strip():
        f.put(f"{rid}-thinking", parent, kind=Kind.THINKING, timestamp=ts, text=reasoning, model=model, line=line)
    content = as_text(data.get("content")) if data.get("content") is not None else ""
    if content.strip():
        meta = {"phase": data["phase"]} if text_of(data.get("phase")) else {}
        f.put(rid, parent, kind=Kind.ASSISTANT, timestamp=ts, text=content, model=model, line=line, meta=meta)
    requests = data.get("toolRequests")
    for request in requests if isinstance(requests, list) else ():
        if isinstance(request, dict):
            tool_call(f, request, line, ts, model, parent)
    events = f.events if parent is None else f.children.get(parent, [])
    secret = bool(data.get("reasoningOpaque") or data.get("encryptedContent")) and not reasoning.strip()
    if len(events) == start:
        f.skip("assistant message with only encrypted reasoning" if secret else "empty assistant message", line=line)
        return
    if secret:  # the model reasoned, but only the provider can read it: said, not hidden
        events[start] = replace(events[start], meta={**events[start].meta, "reasoning": "encrypted (not readable)"})
    _output_tokens(f, events, start, data)


def _output_tokens(f: CopilotFile, events: list[Event], start: int, data: dict[str, Any]) -> None:
    """``outputTokens`` per response: the usage shown, unless a shutdown record gives the session's
    totals (then the response's own count is in its details, so totals are not split in two)."""
    tokens = opt_int(data.get("outputTokens"))
    if not tokens or tokens < 0:
        return
    target = last_index(events, lambda e: e.kind in MODEL_KINDS, since=start)
    if target is None:
        return
    event = events[target]
    if f.index.shutdown_tokens:
        events[target] = replace(event, meta={**event.meta, "output tokens": tokens})
    else:
        events[target] = replace(event, usage=Usage(output_tokens=tokens))


def reasoning(f: CopilotFile, line: int, record: dict[str, Any], data: dict[str, Any]) -> None:
    """An ``assistant.reasoning`` record: the model's reasoning as its own event."""
    text = as_text(data.get("content")) if data.get("content") is not None else ""
    if not text.strip():
        f.skip("empty reasoning", line=line)
        return
    ts: datetime | None = parse_time(record.get("timestamp"))
    f.put(record_id(record, "reasoning"), f.parent_of(data), kind=Kind.THINKING, timestamp=ts, text=text, line=line)
