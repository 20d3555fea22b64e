"""One history item as events: a prompt with its context, reasoning, a reply with its calls, a result.

An item is ``{message, contextItems, promptLogs?, toolCallStates?, reasoning?,
conversationSummary?, appliedRules?, editorState?}``. The message's role says what it is
(``user``, ``assistant``, ``thinking``, ``tool``, ``system``). The context the user
attached (files, selections, docs) is shown with the prompt; ``editorState`` is the same
prompt as the input box held it and is not shown twice. ``promptLogs`` name the model.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sessite.model import Block, Kind, Usage
from sessite.readers._util import array, obj, opt_int, text_of
from sessite.readers.base import as_text, parse_time
from sessite.readers.builder import MODEL_KINDS, last_index
from sessite.readers.formats.continue_dev.calls import tool_calls, tool_message
from sessite.readers.formats.continue_dev.state import SessionFile
from sessite.readers.formats.continue_dev.vocabulary import EMPTY, ENCRYPTED


def history_item(f: SessionFile, item: dict[str, Any], line: int) -> None:
    message = obj(item.get("message"))
    role = text_of(message.get("role")) or "unknown"
    if role == "user":
        _user(f, item, message, line)
    elif role == "assistant":
        _assistant(f, item, message, line)
    elif role == "thinking":
        _thinking(f, message, line)
    elif role == "tool":
        tool_message(f, message, line)
    else:
        text = _text(message.get("content"))[0]
        if not text.strip():
            f.skip(EMPTY, line=line)
        else:
            title = "System message" if role == "system" else f"Message from {role}"
            f.emit(f"{_id(message, line)}", kind=Kind.SYSTEM, title=title, text=text, line=line)
    summary = text_of(item.get("conversationSummary"))
    if summary:
        f.emit(f"summary-{line}", kind=Kind.COMPACTION, title="Conversation summary", text=summary, line=line)


def _id(message: dict[str, Any], line: int) -> str:
    return text_of(message.get("id")) or f"item-{line}"


def _text(content: Any) -> tuple[str, list[Block]]:
    """A message's content: a string, or parts (text, and images as blocks)."""
    if isinstance(content, str):
        return content, []
    texts: list[str] = []
    blocks: list[Block] = []
    for part in content if isinstance(content, list) else ():
        part = obj(part)
        if part.get("type") == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif part.get("type") == "imageUrl":
            url = text_of(obj(part.get("imageUrl")).get("url"))
            blocks.append(Block("image", uri=url, title="image"))
        elif part:
            blocks.append(Block("json", data=part, title=text_of(part.get("type")) or "part"))
    return "\n\n".join(texts), blocks


def _context(items: Any) -> list[Block]:
    """The context attached to a prompt: each item's name and content (a file, a selection, a page)."""
    out = []
    for item in items if isinstance(items, list) else ():
        item = obj(item)
        name = text_of(item.get("name")) or text_of(item.get("description")) or "context"
        uri = text_of(obj(item.get("uri")).get("value"))
        content = as_text(item.get("content")) if item.get("content") is not None else ""
        out.append(Block("file", text=content, uri=uri, title=name))
    return out


def _user(f: SessionFile, item: dict[str, Any], message: dict[str, Any], line: int) -> None:
    text, blocks = _text(message.get("content"))
    blocks += _context(item.get("contextItems"))
    if not text.strip() and not blocks:
        f.skip(EMPTY, line=line)
        return
    meta: dict[str, Any] = {}
    rules = [text_of(obj(r).get("name")) or text_of(obj(r).get("slug")) for r in array(item.get("appliedRules"))]
    if any(rules):
        meta["rules applied"] = [r for r in rules if r]
    modifiers = obj(item.get("modifiers"))
    if modifiers.get("useCodebase") is True:
        meta["codebase"] = "used"
    f.emit(_id(message, line), kind=Kind.USER, text=text, blocks=tuple(blocks), line=line, meta=meta)


def _thinking(f: SessionFile, message: dict[str, Any], line: int) -> None:
    text = _text(message.get("content"))[0]
    if not text.strip():
        secret = message.get("redactedThinking") or message.get("reasoning_details") or message.get("signature")
        f.skip(ENCRYPTED if secret else EMPTY, line=line)
        return
    f.emit(_id(message, line), kind=Kind.THINKING, text=text, model=f.current_model, line=line)


def _assistant(f: SessionFile, item: dict[str, Any], message: dict[str, Any], line: int) -> None:
    """Its reasoning (older Continue keeps it on the item), its prose, its calls; then its usage."""
    logs = [obj(log) for log in array(item.get("promptLogs")) if isinstance(log, dict)]
    model = next((text_of(log.get("modelTitle")) for log in logs if text_of(log.get("modelTitle"))), None)
    f.current_model = model or f.current_model
    f.model(f.current_model)
    start = len(f.events)
    reasoning = obj(item.get("reasoning"))
    if text_of(reasoning.get("text")):
        f.emit(
            f"{_id(message, line)}-reasoning",
            kind=Kind.THINKING,
            text=reasoning["text"],
            timestamp=parse_time(reasoning.get("startAt")),
            model=f.current_model,
            line=line,
        )
    text, blocks = _text(message.get("content"))
    ts = f.reply_time(text) if text.strip() else None
    provider = next((text_of(log.get("modelProvider")) for log in logs if text_of(log.get("modelProvider"))), None)
    if text.strip() or blocks:
        meta = {"provider": provider} if provider else {}
        f.emit(
            _id(message, line),
            kind=Kind.ASSISTANT,
            text=text,
            blocks=tuple(blocks),
            timestamp=ts,
            model=f.current_model,
            line=line,
            meta=meta,
        )
    tool_calls(f, item, line, ts, f.current_model)
    if len(f.events) == start:
        f.skip(EMPTY, line=line)
        return
    _usage(f, start, obj(message.get("usage")), provider)


def _usage(f: SessionFile, start: int, usage: dict[str, Any], provider: str | None) -> None:
    """``message.usage`` (promptTokens, completionTokens and their details) on the reply's last event.

    OpenAI counts cached tokens inside ``promptTokens``; Anthropic (as Continue passes it on) does not."""
    if not usage:
        return
    prompt = obj(usage.get("promptTokensDetails"))
    completion = obj(usage.get("completionTokensDetails"))
    cached, written = opt_int(prompt.get("cachedTokens")) or 0, opt_int(prompt.get("cacheWriteTokens")) or 0
    fresh = opt_int(usage.get("promptTokens")) or 0
    if provider != "anthropic":
        fresh -= cached + written
    total = Usage(
        input_tokens=max(fresh, 0),
        output_tokens=opt_int(usage.get("completionTokens")) or 0,
        cache_read_tokens=cached,
        cache_write_tokens=written,
        reasoning_tokens=opt_int(completion.get("reasoningTokens")) or 0,
    )
    target = last_index(f.events, lambda e: e.kind in MODEL_KINDS, since=start)
    if target is not None and total:
        f.events[target] = replace(f.events[target], usage=total)
