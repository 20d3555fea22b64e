"""Message entries: the user's words, the model's thinking, prose and calls, tool results,
the shell commands the user ran (``!``), and extensions' messages.

A message is ``{role, content, timestamp}``; ``content`` a string or typed parts (``text``,
``image``, ``thinking``, ``toolCall``). An assistant message adds ``model``, ``provider``,
``usage`` (input, output, cache read and write, cost) and ``stopReason`` (an error names
itself in ``errorMessage``). A tool result names its call (``toolCallId``) and adds the
tool's ``details`` (a shell's exit code, an edit's diff).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from sessite.model import Block, Kind, Usage, user_words
from sessite.readers._util import obj, opt_int, shorten, text_of, to_float, to_int
from sessite.readers.base import as_text
from sessite.readers.builder import MODEL_KINDS
from sessite.readers.formats.pi.state import Call, PiFile
from sessite.readers.formats.pi.vocabulary import CATEGORIES, DIFFS, EXITED, PATH_KEYS
from sessite.readers.tools import tool_category, tool_input


def content_of(content: Any) -> tuple[str, list[Block]]:
    """A user or result content: its text and its images (as blocks)."""
    if isinstance(content, str):
        return content, []
    texts: list[str] = []
    blocks: list[Block] = []
    for part in content if isinstance(content, list) else []:
        part = obj(part)
        if part.get("type") == "text":
            texts.append(as_text(part.get("text")))
        elif part.get("type") == "image":
            mime = text_of(part.get("mimeType")) or "image/png"
            data = text_of(part.get("data"))
            blocks.append(Block("image", uri=f"data:{mime};base64,{data}" if data else None, mime=mime))
        elif part:
            blocks.append(Block("json", title=str(part.get("type") or "part"), data=part))
    return "\n".join(texts), blocks


def user(f: PiFile, line: int, entry: str | None, ts: datetime | None, message: dict[str, Any]) -> None:
    text, blocks = content_of(message.get("content"))
    if not text.strip() and not blocks:
        f.skip("empty user message", line=line)
        return
    if f.facts.prompt is None and user_words(text):
        f.facts.prompt = shorten(user_words(text), 200)
    f.put(entry or f"user-{line}", entry, kind=Kind.USER, timestamp=ts, text=text, blocks=tuple(blocks), line=line)


def assistant(f: PiFile, line: int, entry: str | None, ts: datetime | None, message: dict[str, Any]) -> None:
    model = text_of(message.get("model"))
    f.model(model)
    base = entry or f"assistant-{line}"
    made = []
    parts = message.get("content")
    for part in parts if isinstance(parts, list) else [{"type": "text", "text": parts}] if parts else []:
        part = obj(part)
        kind = part.get("type")
        if kind == "text" and as_text(part.get("text")).strip():
            made.append(
                f.put(
                    base, entry, kind=Kind.ASSISTANT, timestamp=ts, text=as_text(part["text"]), model=model, line=line
                )
            )
        elif kind == "thinking" and as_text(part.get("thinking")).strip():
            made.append(
                f.put(
                    f"{base}-thinking",
                    entry,
                    kind=Kind.THINKING,
                    timestamp=ts,
                    text=as_text(part["thinking"]),
                    model=model,
                    line=line,
                )
            )
        elif kind == "toolCall":
            made.append(_call(f, line, entry, ts, part, model))
        elif kind not in ("text", "thinking") and part:
            made.append(
                f.put(
                    f"{base}-part",
                    entry,
                    kind=Kind.ASSISTANT,
                    timestamp=ts,
                    blocks=(Block("json", title=str(kind), data=part),),
                    model=model,
                    line=line,
                )
            )
    error = text_of(message.get("errorMessage"))
    if error or message.get("stopReason") == "error":
        made.append(
            f.put(
                f"{base}-error",
                entry,
                kind=Kind.SYSTEM,
                timestamp=ts,
                title="Model error",
                text=error or "",
                is_error=True,
                model=model,
                line=line,
            )
        )
    if not made:
        f.skip("assistant message without content (only encrypted or empty parts)", line=line)
        return
    _usage(f, message, made)


def _call(f: PiFile, line: int, entry: str | None, ts: datetime | None, part: dict[str, Any], model: str | None) -> Any:
    call_id = text_of(part.get("id"))
    name = text_of(part.get("name")) or "tool"
    args = part.get("arguments")
    category = tool_category(name, CATEGORIES)
    found = tool_input(args, category, DIFFS.get(name.lower()), path_keys=PATH_KEYS)
    if call_id:
        f.calls.setdefault(call_id, Call(name, bool(found.diff)))
    return f.put(
        call_id or f"call-{line}",
        entry,
        kind=Kind.TOOL_CALL,
        timestamp=ts,
        tool_name=name,
        tool_input=args,
        category=category,
        call_id=call_id,
        model=model,
        line=line,
        **found.fields(),
    )


def _usage(f: PiFile, message: dict[str, Any], made: list[Any]) -> None:
    """The response's tokens and facts on its last model event."""
    counts = obj(message.get("usage"))
    usage = Usage(
        input_tokens=to_int(counts.get("input")),
        output_tokens=to_int(counts.get("output")),
        cache_read_tokens=to_int(counts.get("cacheRead")),
        cache_write_tokens=to_int(counts.get("cacheWrite")),
    )
    meta: dict[str, Any] = {}
    cost = to_float(obj(counts.get("cost")).get("total"))
    if cost:
        meta["cost"] = cost
    stop = text_of(message.get("stopReason"))
    if stop and stop not in ("stop", "toolUse"):
        meta["stop reason"] = stop
    provider = text_of(message.get("provider"))
    if provider:
        f.facts.meta.setdefault("provider", provider)
    target = next((e for e in reversed(made) if e.kind in MODEL_KINDS), made[-1])
    at = next(i for i in range(len(f.events) - 1, -1, -1) if f.events[i] is target)
    f.events[at] = replace(target, usage=usage or None, meta={**target.meta, **meta})


def tool_result(f: PiFile, line: int, entry: str | None, ts: datetime | None, message: dict[str, Any]) -> None:
    call_id = text_of(message.get("toolCallId"))
    call = f.calls.get(call_id or "")
    text, blocks = content_of(message.get("content"))
    details = obj(message.get("details"))
    exit_code = opt_int(details.get("exitCode"))
    if exit_code is None and call is not None and call.name == "bash":
        found = EXITED.findall(text[-500:])
        exit_code = opt_int(found[-1]) if found else None
    meta = {
        k: v
        for k, v in details.items()
        if k not in ("_type", "text", "diff", "exitCode", "command", "content")
        and (isinstance(v, (int, float, bool)) or (isinstance(v, str) and 0 < len(v) <= 200))
    }
    diff = text_of(details.get("diff"))
    if diff and not (call and call.has_diff):
        blocks.append(Block("code", text=diff, title="change (as pi showed it)"))
    name = text_of(message.get("toolName")) or (call.name if call else None)
    f.put(
        f"{call_id}-result" if call_id else f"result-{line}",
        entry,
        kind=Kind.TOOL_RESULT,
        timestamp=ts,
        text=text,
        blocks=tuple(blocks),
        call_id=call_id,
        tool_name=name,
        exit_code=exit_code,
        is_error=message.get("isError") is True or bool(exit_code),
        line=line,
        meta=meta,
    )


def bash(f: PiFile, line: int, entry: str | None, ts: datetime | None, message: dict[str, Any]) -> None:
    """A shell command the user ran (``!cmd``; ``!!`` keeps it out of the model's context): a call and its result."""
    command = text_of(message.get("command")) or ""
    call_id = f"bash-{entry or line}"
    meta: dict[str, Any] = {"run by": "the user"}
    if message.get("excludeFromContext") is True:
        meta["sent to the model"] = False
    f.put(
        call_id,
        entry,
        kind=Kind.TOOL_CALL,
        timestamp=ts,
        tool_name="bash",
        tool_input={"command": command},
        category=tool_category("bash"),
        command=command,
        call_id=call_id,
        line=line,
        meta=meta,
    )
    exit_code = opt_int(message.get("exitCode"))
    facts = {
        k: message[k] for k in ("cancelled", "truncated", "fullOutputPath") if message.get(k) not in (None, False, "")
    }
    f.put(
        f"{call_id}-result",
        entry,
        kind=Kind.TOOL_RESULT,
        timestamp=ts,
        text=as_text(message.get("output") or ""),
        call_id=call_id,
        tool_name="bash",
        exit_code=exit_code,
        is_error=bool(exit_code),
        line=line,
        meta=facts,
    )


def note(
    f: PiFile, line: int, entry: str | None, ts: datetime | None, title: str, content: Any, meta: dict[str, Any]
) -> None:
    text, blocks = content_of(content)
    f.put(
        entry or f"note-{line}",
        entry,
        kind=Kind.SYSTEM,
        timestamp=ts,
        title=title,
        text=text,
        blocks=tuple(blocks),
        line=line,
        meta=meta,
    )
