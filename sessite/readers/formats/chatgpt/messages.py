"""One message of the kept branch as events: a prompt, a reply, reasoning, a call or its result, a note.

Who wrote a message (``author.role``) and whom it is for (``recipient``) decide what it is:
a reply addressed to a tool (``python``, ``browser``, ``dalle.text2im``, a plugin) is a
call, and the ``tool`` messages that follow are its results; a reply to ``all`` is prose.
System messages are shown when they say something (custom instructions); the empty
placeholders ChatGPT hides are counted.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from sessite.model import Block, Kind, ToolCategory
from sessite.readers._util import maybe_json, obj, text_of
from sessite.readers._util import shown as quoted
from sessite.readers.base import as_text, parse_time
from sessite.readers.formats.chatgpt.content import Shown, fenced, read_content
from sessite.readers.formats.chatgpt.results import tool_result
from sessite.readers.formats.chatgpt.state import Conversation, message_meta
from sessite.readers.formats.chatgpt.tree import parent_of, role_of
from sessite.readers.formats.chatgpt.vocabulary import (
    CATEGORIES,
    CODE_LANGUAGES,
    EMPTY,
    HIDDEN_EMPTY,
    MERGED_RECAP,
    ROOT,
    TO_USER,
)
from sessite.readers.tools import command_of, tool_category, write_diff


def kept_message(c: Conversation, node_id: str) -> None:
    """The events of the node ``node_id`` of the kept branch."""
    line = c.line_of(node_id)
    message = c.tree.nodes[node_id].get("message")
    if message is None:
        c.skip(ROOT if parent_of(c.tree, node_id) is None else EMPTY, line=line)
        return
    if not isinstance(message, dict):
        c.report(line, f"node {quoted(node_id)}: message is {type(message).__name__}, not an object; shown as raw JSON")
        c.emit(node_id, kind=Kind.UNKNOWN, title="ChatGPT message that is not an object", raw=message, line=line)
        return
    content = read_content(message.get("content"))
    if not content.known:
        c.unknown_type(text_of(obj(message.get("content")).get("content_type")) or "(none)", line)
    role = role_of(message)
    handler = _ROLES.get(role, _other)
    handler(c, node_id, line, message, content)


def stamp(message: dict[str, Any]) -> datetime | None:
    return parse_time(message.get("create_time")) or parse_time(message.get("update_time"))


def _metadata(message: dict[str, Any]) -> dict[str, Any]:
    return obj(message.get("metadata"))


def _hidden(message: dict[str, Any]) -> bool:
    return _metadata(message).get("is_visually_hidden_from_conversation") is True


def _user(c: Conversation, node_id: str, line: int, message: dict[str, Any], content: Shown) -> None:
    kind = text_of(obj(message.get("content")).get("content_type"))
    blocks = [*content.blocks, *_attachments(message)]
    if content.empty and not blocks:
        c.skip(HIDDEN_EMPTY if _hidden(message) else EMPTY, line=line)
        return
    fields: dict[str, Any] = {"timestamp": stamp(message), "blocks": tuple(blocks), "line": line}
    if kind == "user_editable_context":
        c.emit(node_id, kind=Kind.SYSTEM, title="Custom instructions", text=content.text, **fields)
    elif _hidden(message):
        title = "Context sent with the prompt (hidden in ChatGPT)"
        c.emit(node_id, kind=Kind.SYSTEM, title=title, text=content.text, meta=message_meta(message), **fields)
    else:
        c.emit(node_id, kind=Kind.USER, text=content.text, meta=message_meta(message), **fields)


def _attachments(message: dict[str, Any]) -> list[Block]:
    """Files the user attached (``metadata.attachments``): named, never their bytes."""
    listed = _metadata(message).get("attachments")
    out = []
    for item in listed if isinstance(listed, list) else ():
        item = obj(item)
        name = text_of(item.get("name")) or text_of(item.get("id"))
        if name:
            mime = text_of(item.get("mime_type")) or text_of(item.get("mimeType"))
            out.append(Block("file", uri=text_of(item.get("id")), title=name, mime=mime))
    return out


def _system(c: Conversation, node_id: str, line: int, message: dict[str, Any], content: Shown) -> None:
    metadata = _metadata(message)
    text = content.text
    title = "System message"
    if metadata.get("is_user_system_message") is True or "user_context_message_data" in metadata:
        title = "Custom instructions"
        data = obj(metadata.get("user_context_message_data"))
        given = [(k, text_of(data.get(k))) for k in ("about_user_message", "about_model_message")]
        labelled = [
            f"**{'About the user' if k.startswith('about_user') else 'How to respond'}**\n\n{v}" for k, v in given if v
        ]
        text = text if text.strip() else "\n\n".join(labelled)
    if not text.strip() and not content.blocks:
        c.skip(HIDDEN_EMPTY if _hidden(message) or message.get("weight") == 0 else EMPTY, line=line)
        return
    c.emit(
        node_id,
        kind=Kind.SYSTEM,
        title=title,
        text=text,
        blocks=tuple(content.blocks),
        timestamp=stamp(message),
        line=line,
        meta=message_meta(message),
    )


def _assistant(c: Conversation, node_id: str, line: int, message: dict[str, Any], content: Shown) -> None:
    recipient = message.get("recipient")
    if recipient not in TO_USER:
        _call(c, node_id, line, message, content, as_text(recipient))
        return
    kind = text_of(obj(message.get("content")).get("content_type"))
    model = text_of(_metadata(message).get("model_slug"))
    c.model(model)
    ts = stamp(message)
    if kind == "reasoning_recap" and c.events and c.events[-1].kind == Kind.THINKING:
        last = c.events[-1]
        c.events[-1] = replace(last, meta={**last.meta, "reasoning": content.text})
        c.merged(line, MERGED_RECAP)
        return
    text, blocks = _with_references(message, content)
    if not text.strip() and not blocks:
        c.skip(HIDDEN_EMPTY if _hidden(message) else EMPTY, line=line)
        return
    fields: dict[str, Any] = {"timestamp": ts, "blocks": tuple(blocks), "line": line, "meta": message_meta(message)}
    if kind in ("thoughts", "reasoning_recap"):
        c.emit(node_id, kind=Kind.THINKING, text=text, model=model, **fields)
    elif kind == "model_editable_context":
        c.emit(node_id, kind=Kind.SYSTEM, title="Memory", text=text, **fields)
    else:
        c.emit(node_id, kind=Kind.ASSISTANT, text=text, model=model, **fields)


def _with_references(message: dict[str, Any], content: Shown) -> tuple[str, list[Block]]:
    """The text with citation marks replaced by their readable form, and the cited pages as links."""
    text = content.text
    blocks = list(content.blocks)
    metadata = _metadata(message)
    seen: set[str] = set()
    refs = metadata.get("content_references")
    for ref in refs if isinstance(refs, list) else ():
        ref = obj(ref)
        matched, alt = text_of(ref.get("matched_text")), ref.get("alt")
        if matched and isinstance(alt, str) and matched in text:
            text = text.replace(matched, alt)
        items = ref.get("items")
        for item in items if isinstance(items, list) else ():
            _link(obj(item), blocks, seen)
    cites = metadata.get("citations")
    for cite in cites if isinstance(cites, list) else ():
        _link(obj(obj(cite).get("metadata")), blocks, seen)
    return text, blocks


def _link(item: dict[str, Any], blocks: list[Block], seen: set[str]) -> None:
    url = text_of(item.get("url"))
    if url and url not in seen:
        seen.add(url)
        blocks.append(Block("reference", uri=url, title=text_of(item.get("title")) or url))


def _call(c: Conversation, node_id: str, line: int, message: dict[str, Any], content: Shown, tool: str) -> None:
    """A reply addressed to a tool: the call, its input the code or arguments it sends."""
    model = text_of(_metadata(message).get("model_slug"))
    c.model(model)
    category = CATEGORIES.get(tool) or _family(tool) or tool_category(tool)
    code = content.code if content.code is not None else content.text
    args = maybe_json(code) if code.strip() else None
    text = ""
    tool_input: Any = None
    if isinstance(args, (dict, list)):
        tool_input = args
    elif code.strip():
        text = fenced(code, CODE_LANGUAGES.get(tool) or content.language)
    path, diff = _canvas(c, tool, tool_input)
    command = (
        command_of(tool_input, ("cmd", "command"))
        if category == ToolCategory.SHELL and isinstance(tool_input, dict)
        else None
    )
    call_id = text_of(message.get("id")) or node_id
    c.calls.append((call_id, tool))
    c.emit(
        node_id,
        kind=Kind.TOOL_CALL,
        timestamp=stamp(message),
        tool_name=tool,
        tool_input=tool_input,
        text=text,
        blocks=tuple(content.blocks),
        category=category,
        command=command,
        path=path,
        diff=diff,
        call_id=call_id,
        model=model,
        line=line,
        meta=message_meta(message),
    )


def _family(tool: str) -> ToolCategory | None:
    head = tool.split(".", 1)[0]
    return CATEGORIES.get(head) if "." in tool and head in ("web", "browser", "canmore", "file_search") else None


def _canvas(c: Conversation, tool: str, args: Any) -> tuple[str | None, str | None]:
    """A canvas document written (``canmore.create_textdoc``: a diff of its whole text) or updated."""
    if not tool.startswith("canmore.") or not isinstance(args, dict):
        return None, None
    name = text_of(args.get("name"))
    if tool == "canmore.create_textdoc" and name:
        c.textdoc = name
        return name, write_diff(("content",))(args, name)
    return name or c.textdoc, None


def _tool(c: Conversation, node_id: str, line: int, message: dict[str, Any], content: Shown) -> None:
    tool_result(c, node_id, line, message, content, stamp(message))


def _other(c: Conversation, node_id: str, line: int, message: dict[str, Any], content: Shown) -> None:
    """A message from an author this reader does not know: a note, under the author's name."""
    if content.empty:
        c.skip(EMPTY, line=line)
        return
    role = role_of(message)
    c.emit(
        node_id,
        kind=Kind.SYSTEM,
        title=f"Message from {role}",
        text=content.text,
        blocks=tuple(content.blocks),
        timestamp=stamp(message),
        line=line,
        meta=message_meta(message),
    )


_ROLES = {"user": _user, "system": _system, "assistant": _assistant, "tool": _tool}
