"""Folded context: the attachments that tell the model about its surroundings, as titled SYSTEM events.

Listings (skills, agent types, deferred tools, MCP instructions), files the user
mentioned or changed, IDE selections, memory files, plan and auto mode notices, teammate
messages. Each builder takes the attachment object and returns the event's title, text
and blocks; shapes follow Claude Code's own ``Attachment`` type, read defensively (a
missing or odd field costs only itself). A file's image is an image block, never base64
text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from sessite.model import Block
from sessite.readers._util import array, obj, text_of, to_int
from sessite.readers.base import as_text
from sessite.readers.formats.claude_code.state import EventSpec


def scalars(attachment: dict[str, Any], keys: Iterable[str] = (), exclude: Iterable[str] = ()) -> dict[str, Any]:
    """The small scalar fields of an attachment (only ``keys`` when given), for an event's details."""
    wanted = tuple(keys) or tuple(attachment)
    skip = set(exclude)
    facts: dict[str, Any] = {}
    for key in wanted:
        value = attachment.get(key)
        if key in skip or value is None or value == "":
            continue
        if isinstance(value, (bool, int, float)) or (isinstance(value, str) and len(value) <= 300):
            facts[key] = value
    return facts


def _strs(value: Any) -> list[str]:
    return [v for v in array(value) if isinstance(v, str)]


def _listing(title: str, added: list[str], removed: list[str], sep: str = "\n") -> EventSpec:
    text = sep.join(added)
    if removed:
        text += ("\n\n" if text else "") + "Removed: " + ", ".join(f"`{r}`" for r in removed)
    return {"title": title, "text": text}


def _skill_listing(a: dict[str, Any]) -> EventSpec:
    count = to_int(a.get("skillCount"))
    return {"title": f"Skills available ({count})" if count else "Skills available", "text": as_text(a.get("content"))}


def _agent_listing(a: dict[str, Any]) -> EventSpec:
    return _listing("Agent types available", _strs(a.get("addedLines")), _strs(a.get("removedTypes")))


def _mcp_instructions(a: dict[str, Any]) -> EventSpec:
    return _listing("MCP server instructions", _strs(a.get("addedBlocks")), _strs(a.get("removedNames")), "\n\n")


def _deferred_tools(a: dict[str, Any]) -> EventSpec:
    added = [f"`{n}`" for n in _strs(a.get("addedNames"))]
    return _listing("Deferred tools", [", ".join(added)] if added else [], _strs(a.get("removedNames")))


def _code(text: Any, title: str | None) -> tuple[Block, ...]:
    body = as_text(text)
    return (Block("code", text=body, title=title),) if body else ()


def _edited_file(a: dict[str, Any]) -> EventSpec:
    name = text_of(a.get("filename")) or "file"
    return {"title": f"File changed: {name}", "blocks": _code(a.get("snippet"), name), "meta": {"path": name}}


def file_blocks(content: Any, name: str | None) -> tuple[Block, ...]:
    """A Read tool output (``{type, file}``): its text as code, its image as an image block."""
    content = obj(content)
    file = obj(content.get("file"))
    if content.get("type") == "image" and isinstance(file.get("base64"), str):
        mime = text_of(file.get("type")) or "image/png"
        return (Block("image", uri=f"data:{mime};base64,{file['base64']}", mime=mime, title=name),)
    if isinstance(file.get("content"), str):
        return _code(file["content"], name)
    return ()


def _file(label: str) -> Callable[[dict[str, Any]], EventSpec]:
    def build(a: dict[str, Any]) -> EventSpec:
        name = text_of(a.get("displayPath")) or text_of(a.get("filename")) or text_of(a.get("path")) or "file"
        spec: EventSpec = {"title": f"{label}: {name}", "blocks": file_blocks(a.get("content"), name)}
        if isinstance(a.get("content"), str):
            spec["blocks"] = _code(a["content"], name)  # a directory listing
        if a.get("truncated") is True:
            spec["meta"] = {"truncated": True}
        return spec

    return build


def _ide_selection(a: dict[str, Any]) -> EventSpec:
    name = text_of(a.get("displayPath")) or text_of(a.get("filename")) or "file"
    where = f"{name} lines {to_int(a.get('lineStart'))}-{to_int(a.get('lineEnd'))}"
    return {
        "title": f"Selected in {text_of(a.get('ideName')) or 'the IDE'}: {where}",
        "blocks": _code(a.get("content"), name),
    }


def _memory(a: dict[str, Any]) -> EventSpec:
    content = a.get("content")
    memory = obj(content)
    path = text_of(a.get("displayPath")) or text_of(a.get("path")) or text_of(memory.get("path")) or "memory file"
    return {"title": f"Memory file: {path}", "text": as_text(memory.get("content") if memory else content)}


def _relevant_memories(a: dict[str, Any]) -> EventSpec:
    parts = []
    for memory in array(a.get("memories")):
        memory = obj(memory)
        head = text_of(memory.get("header")) or text_of(memory.get("path")) or "memory"
        parts.append(f"**{head}**\n\n{as_text(memory.get('content'))}")
    return {"title": f"Relevant memories ({len(parts)})", "text": "\n\n".join(parts)}


def _titled(title: str, *keys: str) -> Callable[[dict[str, Any]], EventSpec]:
    """A notice whose text is the first of ``keys`` the attachment has."""

    def build(a: dict[str, Any]) -> EventSpec:
        text = next((as_text(a[k]) for k in keys if a.get(k) not in (None, "", [])), "")
        return {"title": title, "text": text}

    return build


def _plan_file(a: dict[str, Any]) -> EventSpec:
    path = text_of(a.get("planFilePath")) or "plan"
    return {"title": f"Plan file: {path}", "text": as_text(a.get("planContent"))}


def _mcp_resource(a: dict[str, Any]) -> EventSpec:
    contents = obj(a.get("content")).get("contents")
    texts = [as_text(obj(c).get("text")) for c in contents] if isinstance(contents, list) else []
    where = " ".join(x for x in (text_of(a.get("server")), text_of(a.get("uri"))) if x)
    return {"title": f"MCP resource: {where or 'resource'}", "text": "\n\n".join(t for t in texts if t)}


def _allowed_tools(a: dict[str, Any]) -> EventSpec:
    return {"title": "Allowed tools", "text": ", ".join(f"`{n}`" for n in _strs(a.get("allowedTools")))}


def _task_status(a: dict[str, Any]) -> EventSpec:
    status = text_of(a.get("status")) or "update"
    title = f"Background task {status}: {text_of(a.get('description')) or text_of(a.get('taskId')) or 'task'}"
    return {"title": title, "text": as_text(a.get("deltaSummary"))}


def _teammate_mailbox(a: dict[str, Any]) -> EventSpec:
    lines = []
    for message in array(a.get("messages")):
        message = obj(message)
        lines.append(f"**{text_of(message.get('from')) or 'teammate'}**: {as_text(message.get('text'))}")
    return {"title": "Teammate messages", "text": "\n\n".join(lines)}


def _team_context(a: dict[str, Any]) -> EventSpec:
    who = text_of(a.get("agentName")) or text_of(a.get("agentId")) or "agent"
    return {"title": f"Team context: {text_of(a.get('teamName')) or 'team'}", "text": f"Working as {who}."}


def _named_list(title: str, key: str) -> Callable[[dict[str, Any]], EventSpec]:
    """A list of objects shown by their ``name`` (and ``description`` or ``path``)."""

    def build(a: dict[str, Any]) -> EventSpec:
        lines = []
        for item in array(a.get(key)):
            item = obj(item)
            extra = text_of(item.get("description")) or text_of(item.get("path"))
            lines.append(f"- `{as_text(item.get('name'))}`" + (f": {extra}" if extra else ""))
        return {"title": title, "text": "\n".join(lines)}

    return build


def _diagnostics(a: dict[str, Any]) -> EventSpec:
    lines = []
    for file in array(a.get("files")):
        file = obj(file)
        found = array(file.get("diagnostics"))
        lines.append(f"- `{as_text(file.get('uri'))}`: " + "; ".join(as_text(obj(d).get("message")) for d in found))
    return {"title": "Diagnostics", "text": "\n".join(lines)}


def _structured_output(a: dict[str, Any]) -> EventSpec:
    return {"title": "Structured output", "blocks": (Block("json", title="data", data=a.get("data")),)}


def _counted(title: str, *keys: str) -> Callable[[dict[str, Any]], EventSpec]:
    def build(a: dict[str, Any]) -> EventSpec:
        return {"title": title, "text": ", ".join(f"{k}: {as_text(a.get(k))}" for k in keys if k in a)}

    return build


# Attachment type -> its builder.
CONTEXT: dict[str, Callable[[dict[str, Any]], EventSpec]] = {
    "skill_listing": _skill_listing,
    "agent_listing_delta": _agent_listing,
    "mcp_instructions_delta": _mcp_instructions,
    "deferred_tools_delta": _deferred_tools,
    "edited_text_file": _edited_file,
    "edited_image_file": _file("Image changed"),
    "file": _file("File attached"),
    "already_read_file": _file("File already read"),
    "compact_file_reference": _file("File referenced"),
    "pdf_reference": _file("PDF referenced"),
    "directory": _file("Directory attached"),
    "selected_lines_in_ide": _ide_selection,
    "opened_file_in_ide": _titled("Opened in the IDE", "filename"),
    "nested_memory": _memory,
    "relevant_memories": _relevant_memories,
    "current_session_memory": _memory,
    "plan_mode": _titled("Plan mode", "planFilePath", "reminderType"),
    "plan_mode_reentry": _titled("Plan mode re-entered", "planFilePath"),
    "plan_mode_exit": _titled("Plan mode left", "planFilePath"),
    "plan_file_reference": _plan_file,
    "auto_mode": _titled("Auto mode", "reminderType"),
    "auto_mode_exit": _titled("Auto mode left"),
    "critical_system_reminder": _titled("System reminder", "content"),
    "read_truncation_notice": _titled("Read truncated", "banner", "content"),
    "command_permissions": _allowed_tools,
    "mcp_resource": _mcp_resource,
    "agent_mention": _titled("Agent mentioned", "agentType"),
    "task_status": _task_status,
    "teammate_mailbox": _teammate_mailbox,
    "team_context": _team_context,
    "teammate_shutdown_batch": _counted("Teammates shut down", "count"),
    "invoked_skills": _named_list("Skills invoked", "skills"),
    "skill_discovery": _named_list("Skills suggested", "skills"),
    "dynamic_skill": _titled("Skills found", "skillNames", "displayPath"),
    "max_turns_reached": _counted("Maximum turns reached", "turnCount", "maxTurns"),
    "date_change": _titled("Date changed", "newDate"),
    "output_style": _titled("Output style", "style"),
    "ultrathink_effort": _titled("Thinking effort", "level"),
    "diagnostics": _diagnostics,
    "structured_output": _structured_output,
    "companion_intro": _counted("Companion", "name", "species"),
    "bagel_console": _counted("Browser console", "errorCount", "warningCount", "sample"),
}
