"""Droid's session store: ``~/.factory/sessions/<folder>/<id>.jsonl`` and ``<id>.settings.json``.

Line 1 is ``{"type": "session_start", "id", "title", "sessionTitle", "owner", "version",
"cwd"}``; then ``{"type": "message", "id", "parentId", "timestamp", "message": {role,
content, visibility?}}``. Tool calls are ``tool_use`` blocks of an assistant message and
their results ``tool_result`` blocks of the next user message. The settings file holds the
session's model, autonomy and reasoning settings and its token totals.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from sessite.model import Block, Kind, Problems, Usage
from sessite.readers._util import obj, shorten, text_of, to_int
from sessite.readers.base import as_text, parse_time
from sessite.readers.files import load_json
from sessite.readers.formats.factory_droid.content import (
    blocks_of,
    environment,
    image,
    result_text,
    usage_of,
    user_text,
)
from sessite.readers.formats.factory_droid.state import DroidFile

_SETTINGS = ("model", "reasoningEffort", "autonomyLevel", "autonomyMode", "interactionMode", "assistantActiveTimeMs")


def record(f: DroidFile, line: int, rec: dict[str, Any]) -> None:
    kind = text_of(rec.get("type")) or ""
    if kind == "session_start":
        facts = f.facts
        facts.session_id = facts.session_id or text_of(rec.get("id"))
        facts.cwd = facts.cwd or text_of(rec.get("cwd"))
        if rec.get("isSessionTitleManuallySet") is True and text_of(rec.get("sessionTitle")):
            facts.title = rec["sessionTitle"]
        for key in ("owner", "version"):
            if rec.get(key) not in (None, ""):
                facts.meta.setdefault(key, rec[key])
        f.merged(line, "session start (its id, folder and owner are the session's facts)")
    elif kind == "message":
        message(f, line, rec)
    else:
        f.other(line, kind or "untyped")
        f.emit(
            text_of(rec.get("id")) or f"record-{line}",
            kind=Kind.SYSTEM,
            timestamp=parse_time(rec.get("timestamp")),
            title=shorten(kind or "record", 60),
            text=as_text(rec.get("text") or rec.get("message") or ""),
            line=line,
        )


def message(f: DroidFile, line: int, rec: dict[str, Any]) -> None:
    body = obj(rec.get("message"))
    role = body.get("role")
    ts = parse_time(rec.get("timestamp"))
    base = text_of(rec.get("id")) or f"message-{line}"
    content = body.get("content")
    if content is not None and not isinstance(content, (str, list)):
        f.report(line, f"message content is {type(content).__name__}, expected a list of blocks; it is left out")
    blocks = blocks_of(content)
    if body.get("visibility") == "user_only":
        text, shown, _ = user_text(blocks)
        f.emit(
            base,
            kind=Kind.SYSTEM,
            timestamp=ts,
            title="Notice (shown to the user only)",
            text=text,
            blocks=tuple(shown),
            line=line,
        )
    elif role == "user":
        _user(f, line, base, ts, blocks)
    elif role == "assistant":
        _assistant(f, line, base, ts, body, blocks)
    else:
        f.other(line, f"message/{role}")
        text, shown, _ = user_text(blocks)
        f.emit(
            base,
            kind=Kind.SYSTEM,
            timestamp=ts,
            title=shorten(str(role), 60),
            text=text,
            blocks=tuple(shown),
            line=line,
        )


def _user(f: DroidFile, line: int, base: str, ts: Any, blocks: list[dict[str, Any]]) -> None:
    made = 0
    for block in blocks:
        if block.get("type") == "tool_result":
            text, shown = result_text(block.get("content"))
            f.result(
                text_of(block.get("tool_use_id")), text, line, ts, block.get("is_error") is True, blocks=tuple(shown)
            )
            made += 1
    text, shown, added = user_text([b for b in blocks if b.get("type") != "tool_result"])
    f.note_env(environment(added))
    if text.strip() or any(b.title != "added by Droid" for b in shown):
        f.emit(base, kind=Kind.USER, timestamp=ts, text=text, blocks=tuple(shown), line=line)
    elif shown:
        f.emit(base, kind=Kind.SYSTEM, timestamp=ts, title="Added by Droid", blocks=tuple(shown), line=line)
    elif not made:
        f.skip("empty user message", line=line)


def _assistant(f: DroidFile, line: int, base: str, ts: Any, body: dict[str, Any], blocks: list[dict[str, Any]]) -> None:
    model = text_of(body.get("model"))
    f.model(model)
    start = len(f.events)
    for block in blocks:
        kind = block.get("type")
        if kind == "text" and as_text(block.get("text")).strip():
            f.emit(base, kind=Kind.ASSISTANT, timestamp=ts, text=as_text(block["text"]), model=model, line=line)
        elif kind == "thinking" and as_text(block.get("thinking")).strip():
            f.emit(
                f"{base}-thinking",
                kind=Kind.THINKING,
                timestamp=ts,
                text=as_text(block["thinking"]),
                model=model,
                line=line,
            )
        elif kind == "tool_use":
            name = text_of(block.get("name")) or "tool"
            f.call(f"call-{line}-{name}", text_of(block.get("id")), name, block.get("input"), line, ts, model=model)
        elif kind == "image":
            f.emit(f"{base}-image", kind=Kind.ASSISTANT, timestamp=ts, blocks=(image(block),), line=line)
        elif kind not in ("text", "thinking", "redacted_thinking") and block:
            f.emit(
                f"{base}-block",
                kind=Kind.ASSISTANT,
                timestamp=ts,
                blocks=(Block("json", title=str(kind), data=block),),
                line=line,
            )
    if len(f.events) == start:
        f.skip("assistant message without content (empty or encrypted thinking only)", line=line)
        return
    counts = obj(body.get("usage"))
    if counts:
        f.events[-1] = replace(f.events[-1], usage=usage_of(counts) or None)


def settings(f: DroidFile, path: Path, problems: Problems) -> None:
    """``<id>.settings.json``: the model and settings in the session's details, the token totals as its usage."""
    data = obj(load_json(path, problems))
    f.model(text_of(data.get("model")))
    for key in _SETTINGS:
        if isinstance(data.get(key), (str, int, float)) and not isinstance(data.get(key), bool) and data[key] != "":
            f.facts.meta[key] = data[key]
    tokens = obj(data.get("tokenUsage"))
    usage = Usage(
        input_tokens=to_int(tokens.get("inputTokens")),
        output_tokens=to_int(tokens.get("outputTokens")),
        cache_read_tokens=to_int(tokens.get("cacheReadTokens")),
        cache_write_tokens=to_int(tokens.get("cacheCreationTokens")),
        reasoning_tokens=to_int(tokens.get("thinkingTokens")),
    )
    f.facts.usage = usage or None
    wire = f.path
    f.path = path
    f.merged(1, "session settings (model, settings and token totals in the session details)")
    f.path = wire
