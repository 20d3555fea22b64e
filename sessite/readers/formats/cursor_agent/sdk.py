"""The messages of a ``store.db``: AI SDK ``system`` / ``user`` / ``assistant`` / ``tool`` objects.

An assistant message is a list of parts: ``reasoning`` (its ``providerOptions.cursor.modelName``
names the model), ``text`` and ``tool-call`` (``toolCallId``, ``toolName``, ``args``). A tool
message answers with ``tool-result`` parts (``result``, and ``experimental_content``: what
the model was given, which may add a reminder), and Cursor's own account of the outcome in
``providerOptions.cursor.highLevelToolCallResult``: ``output.<outcome>`` (``success``,
``permissionDenied``, …) with an exit code, a diff (``diffString``) and counts, and ``isError``.
"""

from __future__ import annotations

from typing import Any

from sessite.model import Block, Kind
from sessite.readers._util import maybe_json, obj, opt_int, shown, text_of
from sessite.readers.base import as_text
from sessite.readers.formats.cursor_agent.session import CursorBuilder
from sessite.readers.formats.cursor_agent.store import Message
from sessite.readers.formats.cursor_agent.turns import context_title, split_turn
from sessite.readers.formats.cursor_agent.vocabulary import EMPTY, OFF_PATH, SYSTEM_PROMPT


def read_message(b: CursorBuilder, message: Message) -> None:
    """One stored message as events (or counted, with why it is not shown)."""
    line, value = message.line, message.value
    if not message.listed:
        b.skip(OFF_PATH, line=line)
        return
    if not isinstance(value, dict):
        b.report(line, f"message blob {message.blob[:12]} is not a JSON object; shown as raw data")
        b.emit(f"m{line}", kind=Kind.UNKNOWN, title="unreadable message blob", raw=value, line=line)
        return
    role = value.get("role")
    try:
        if role == "system":
            b.skip(SYSTEM_PROMPT, line=line)
        elif role == "user":
            _user(b, line, value)
        elif role == "assistant":
            _assistant(b, line, value, message.pending)
        elif role == "tool":
            _tool(b, line, value)
        else:
            b.report(line, f"message with role {shown(role)}; shown as raw JSON")
            b.emit(f"m{line}", kind=Kind.UNKNOWN, title=f"message ({shown(role, 30)})", raw=value, line=line)
    except Exception as exc:  # noqa: BLE001 - one odd message costs that message, never the file
        b.unreadable(line, f"{shown(role, 30)} message", value, exc)


def _parts(value: dict[str, Any]) -> list[dict[str, Any]]:
    content = value.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [p for p in content if isinstance(p, dict)] if isinstance(content, list) else []


def _user(b: CursorBuilder, line: int, value: dict[str, Any]) -> None:
    parts = _parts(value)
    text = "\n\n".join(as_text(p.get("text")) for p in parts if p.get("type") == "text" and p.get("text"))
    blocks = tuple(_attachment(p) for p in parts if p.get("type") != "text")
    request = text_of(obj(obj(value.get("providerOptions")).get("cursor")).get("requestId"))
    b.user_turn(text, line, f"m{line}", blocks=blocks, meta={"request": request} if request else None)


def _attachment(part: dict[str, Any]) -> Block:
    """An image or file a user message carries (a URL or a data URL as given; else the part as JSON)."""
    kind = part.get("type")
    source = part.get("image") if kind == "image" else part.get("data")
    mime = text_of(part.get("mimeType")) or text_of(part.get("mediaType"))
    if kind in ("image", "file") and isinstance(source, str) and source.startswith(("http://", "https://", "data:")):
        return Block("image" if kind == "image" else "file", uri=source, mime=mime, title=text_of(part.get("filename")))
    return Block("json", title=as_text(kind or "content"), data=part)


def _assistant(b: CursorBuilder, line: int, value: dict[str, Any], pending: bool) -> None:
    parts = _parts(value)
    model = next((m for p in parts if (m := _model(p))), None)
    b.model(model)
    meta = {"state": "in progress when the chat was saved"} if pending else {}
    shown_any = False
    for k, part in enumerate(parts):
        kind = part.get("type")
        base = f"m{line}-{k}"
        if kind == "reasoning" and text_of(part.get("text")):
            b.emit(base, kind=Kind.THINKING, text=part["text"], model=model, line=line, meta=meta)
        elif kind == "text" and text_of(part.get("text")):
            b.emit(base, kind=Kind.ASSISTANT, text=part["text"], model=model, line=line, meta=meta)
        elif kind == "tool-call":
            call_id = text_of(part.get("toolCallId")) or f"call-{line}-{k}"
            args = part.get("args") if "args" in part else maybe_json(part.get("input"))
            b.tool_call(call_id, text_of(part.get("toolName")) or "tool", args, line, model=model, meta=meta)
        elif kind in ("reasoning", "text", "redacted-reasoning"):
            continue  # an empty part, or reasoning kept only encrypted
        else:
            b.emit(base, kind=Kind.UNKNOWN, title=f"assistant part {shown(kind, 30)}", raw=part, line=line)
        shown_any = True
    if not shown_any:
        b.skip("assistant message without text or calls (only encrypted or empty reasoning)", line=line)


def _model(part: dict[str, Any]) -> str | None:
    return text_of(obj(obj(part.get("providerOptions")).get("cursor")).get("modelName"))


def _tool(b: CursorBuilder, line: int, value: dict[str, Any]) -> None:
    results = [p for p in _parts(value) if p.get("type") == "tool-result"]
    outcome = obj(obj(obj(value.get("providerOptions")).get("cursor")).get("highLevelToolCallResult"))
    if not results:
        b.skip(EMPTY, line=line)
    for k, part in enumerate(results):
        call_id = text_of(part.get("toolCallId")) or text_of(value.get("id")) or f"result-{line}-{k}"
        _result(b, line, call_id, part, outcome if len(results) == 1 else {})


def _result(b: CursorBuilder, line: int, call_id: str, part: dict[str, Any], outcome: dict[str, Any]) -> None:
    result = part.get("result")
    text = as_text(result) if result is not None else ""
    blocks: list[Block] = []
    extra = part.get("experimental_content")
    for item in extra if isinstance(extra, list) else []:
        said = as_text(obj(item).get("text")) if obj(item).get("type") == "text" else None
        if said is not None and said.strip() == text.strip():
            continue  # the result itself
        if said is not None:
            turn = split_turn(said)
            for tag, inner in turn.context:
                blocks.append(Block("text", text=inner, title=context_title(tag)))
            if turn.words:
                blocks.append(Block("text", text=turn.words, title="also given to the model"))
        else:
            blocks.append(Block("json", title=as_text(obj(item).get("type") or "content"), data=item))
    output = obj(outcome.get("output"))
    name, facts = next(iter(output.items()), (None, None))
    facts = obj(facts)
    exit_code = opt_int(facts.get("exitCode", facts.get("exit_code")))
    call = b.calls.get(call_id)
    diff = _diff(facts, call.path if call is not None else None)
    meta: dict[str, Any] = {}
    if name and name != "success":
        meta["outcome"] = name
        if text_of(facts.get("error")) and facts["error"] not in text:
            text = f"{text}\n{facts['error']}".strip()
    for key, label in (("linesAdded", "lines added"), ("linesRemoved", "lines removed")):
        if opt_int(facts.get(key)) is not None:
            meta[label] = facts[key]
    failed = outcome.get("isError") is True or part.get("isError") is True or (name is not None and name != "success")
    b.tool_result(
        call_id,
        text_of(part.get("toolName")),
        text,
        line,
        is_error=failed,
        exit_code=exit_code,
        diff=diff,
        blocks=tuple(blocks),
        meta=meta,
    )


def _diff(facts: dict[str, Any], path: str | None) -> str | None:
    """Cursor's ``diffString`` (lines marked ``+``/``-``/`` ``, no headers) as a unified diff."""
    body = text_of(facts.get("diffString"))
    if body is None:
        return None
    label = text_of(facts.get("path")) or path or "file"
    rows = body.split("\n")
    old = sum(1 for r in rows if r[:1] in (" ", "-"))
    new = sum(1 for r in rows if r[:1] in (" ", "+"))
    return f"--- {label}\n+++ {label}\n@@ -{1 if old else 0},{old} +{1 if new else 0},{new} @@\n{body}"
