"""OpenAI Codex CLI rollouts: ``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl``.

Every line is ``{timestamp, type, payload}``: one ``session_meta`` first, then
``turn_context`` (model and policies, repeated every turn), ``response_item``
(what went to and came from the model: messages, reasoning, tool calls and
their outputs) and ``event_msg`` (what the UI showed: user and agent messages,
token counts, turn markers, command/patch/MCP completion notices). The older
record-style format (a bare ``{id, timestamp, instructions, git}`` first line,
bare response items, ``{"record_type":"state"}`` lines) is read too.

Things the format does that the reader undoes:

- User text, assistant text and reasoning summaries are written twice, once
  as an ``event_msg`` and once as a ``response_item`` (in either order). Each
  is shown once: the first copy is kept, its echo from the other stream is
  counted in ``Session.skipped``.
- ``token_count`` carries a cumulative ``total_token_usage`` and the turn's
  ``last_token_usage``; it is often repeated with unchanged totals. Only the
  last usage of a changed total is attached, to the turn's last model event,
  so the sum of event usage equals the final total.
- A tool call and its output are paired by ``call_id``; an ``exec_command_end``
  / ``patch_apply_end`` / ``mcp_tool_call_end`` notice for the same call is
  merged into that one result (exit code, duration, diff), never shown twice.
- Shell calls come in three generations: ``shell`` (argv list, JSON-string
  output with ``metadata.exit_code``), ``shell_command`` (``Exit code: N``
  text) and ``exec_command`` (``Process exited with code N``). All become
  SHELL calls with a readable command line and an exit code on the result.
- ``apply_patch`` (custom tool, function call, or a shell heredoc) is turned
  from the ``*** Begin Patch`` format into a unified-style diff.
- ``<environment_context>`` and AGENTS.md instructions arrive as role=user
  messages; they become SYSTEM events and never the title.
"""

from __future__ import annotations

import json
import re
import shlex
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from sitegen.model import (
    Block,
    Event,
    GitRefs,
    Kind,
    Problems,
    Session,
    SourceRef,
    ToolCategory,
    Usage,
    make_session_id,
)
from sitegen.readers._util import Ids
from sitegen.readers._util import project_of as _project
from sitegen.readers._util import shorten as _shorten
from sitegen.readers._util import text_of as _str
from sitegen.readers._util import to_int as _int
from sitegen.readers.base import Reader, Sniff, as_text, iter_jsonl, parse_time

NAME = "codex"
AGENT = "codex"
TITLE_LIMIT = 100

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_META_HEAD = re.compile(r'^\{\s*"timestamp"\s*:\s*"[^"]*"\s*,\s*"type"\s*:\s*"session_meta"')
_LEGACY_HEADER_KEYS = {"id", "timestamp", "instructions", "git"}
_ITEM_TYPES = {
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "local_shell_call_output",
    "web_search_call",
    "ghost_snapshot",
    "compaction",
    "compaction_summary",
}
_USER_REQUEST = "## My request for Codex:"

_SHELLS = {"bash", "sh", "zsh", "dash", "fish", "ksh"}
_POWERSHELLS = {"powershell", "powershell.exe", "pwsh", "pwsh.exe"}
_CATEGORY = {
    "shell": ToolCategory.SHELL,
    "container.exec": ToolCategory.SHELL,
    "local_shell": ToolCategory.SHELL,
    "shell_command": ToolCategory.SHELL,
    "exec_command": ToolCategory.SHELL,
    "write_stdin": ToolCategory.SHELL,
    "apply_patch": ToolCategory.EDIT,
    "view_image": ToolCategory.READ,
    "read_file": ToolCategory.READ,
    "list_dir": ToolCategory.SEARCH,
    "grep_files": ToolCategory.SEARCH,
    "web_search": ToolCategory.WEB,
    "web_fetch": ToolCategory.WEB,
    "spawn_agent": ToolCategory.TASK,
}

# event_msg types that only announce or stream what a later record holds in full.
_SKIP_EVENTS = {
    "exec_command_begin": "exec_command_begin (the call and its end notice carry the command)",
    "exec_command_output_delta": "exec_command_output_delta (streamed output; the result holds it all)",
    "terminal_interaction": "terminal_interaction (stdin sent to a running command)",
    "patch_apply_begin": "patch_apply_begin (the apply_patch call carries the patch)",
    "mcp_tool_call_begin": "mcp_tool_call_begin (the call carries the arguments)",
    "web_search_begin": "web_search_begin (the web search call carries the query)",
    "agent_message_delta": "streaming delta (the full message is recorded too)",
    "agent_reasoning_delta": "streaming delta (the full message is recorded too)",
    "agent_reasoning_raw_content_delta": "streaming delta (the full message is recorded too)",
    "agent_message_content_delta": "streaming delta (the full message is recorded too)",
    "reasoning_content_delta": "streaming delta (the full message is recorded too)",
    "reasoning_raw_content_delta": "streaming delta (the full message is recorded too)",
    "agent_reasoning_section_break": "agent_reasoning_section_break (reasoning layout marker)",
    "plan_update": "plan_update (the update_plan call shows the plan)",
    "item_started": "item_started (the completed item is recorded)",
    "raw_response_item": "raw_response_item (a copy of a response item)",
    "session_configured": "session_configured (settings shown in the session details)",
    "mcp_startup_update": "MCP server startup notice",
    "mcp_startup_complete": "MCP server startup notice",
    "mcp_list_tools_response": "UI bookkeeping event",
    "list_custom_prompts_response": "UI bookkeeping event",
    "list_skills_response": "UI bookkeeping event",
    "skills_update_available": "UI bookkeeping event",
    "get_history_entry_response": "UI bookkeeping event",
    "shutdown_complete": "UI bookkeeping event",
    "undo_started": "undo_started (the undo result is shown)",
    "exec_approval_request": "approval request (the call and its result are shown)",
    "apply_patch_approval_request": "approval request (the call and its result are shown)",
}
# event_msg types that become a SYSTEM note: type -> (title, field with the text, level)
_NOTES = {
    "error": ("Error", "message", "error"),
    "warning": ("Warning", "message", "warning"),
    "stream_error": ("Stream error", "message", "error"),
    "background_event": ("Background event", "message", None),
    "stream_info": ("Stream info", "message", None),
    "deprecation_notice": ("Deprecation notice", "summary", "warning"),
    "undo_completed": ("Undo", "message", None),
}
# Tags Codex wraps around text it injects into the user channel.
_INJECTED_TAGS = {
    "environment_context": "Environment context",
    "user_instructions": "User instructions (AGENTS.md)",
    "user_shell_command": "Shell command (run by the user)",
    "turn_aborted": "Turn aborted",
    "subagent_notification": "Sub-agent notification",
    "skill": "Skill instructions",
    "permissions instructions": "Permissions instructions",
    "collaboration_mode": "Collaboration mode",
}
_WHOLE_TAG = re.compile(r"^<([a-z][a-z_ ]{2,40})>[\s\S]*</\1>$")
_OUTPUT_HEADER = re.compile(
    r"^(?:Chunk ID: (?P<chunk>\S+)|Wall time: (?P<wall>[0-9.]+) seconds?|Exit code: (?P<exit1>-?\d+)"
    r"|Process exited with code (?P<exit2>-?\d+)|Process running with session ID (?P<session>\d+)"
    r"|Original token count: (?P<tokens>\d+)|Total output lines: (?P<lines>\d+))\s*$"
)
_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+?)\s*$")


class CodexReader(Reader):
    name = NAME
    claims_directories = False

    def detect(self, sniffed: Sniff) -> bool:
        path = sniffed.path
        if path.suffix.lower() != ".jsonl" and not path.name.startswith("rollout-"):
            return False
        line = sniffed.object_line()
        if line is None:
            return False
        _, first, obj = line
        if obj is None:
            # A first line longer than the sniff (long instructions): judged by its opening.
            return bool(_META_HEAD.match(first))
        if obj.get("type") == "session_meta":
            return isinstance(obj.get("payload"), dict)
        if not _is_legacy_header(obj):
            return False
        if path.name.startswith("rollout-"):
            return True
        for index, rec in enumerate(sniffed.json_lines(6)):
            if index == 0:
                continue
            if rec.get("record_type") == "state" or _is_bare_item(rec):
                return True
        return False

    def read(self, path: Path, problems: Problems) -> Iterator[Session]:
        builder = _Builder(path, problems)
        for lineno, rec in iter_jsonl(path, problems):
            builder.feed(lineno, rec)
        session = builder.finish()
        if session is not None:
            yield session


def _is_legacy_header(obj: dict[str, Any]) -> bool:
    return (
        "type" not in obj and isinstance(obj.get("id"), str) and "timestamp" in obj and set(obj) <= _LEGACY_HEADER_KEYS
    )


def _is_bare_item(rec: dict[str, Any]) -> bool:
    return (
        rec.get("type") in _ITEM_TYPES
        and "payload" not in rec
        and ("role" in rec or "call_id" in rec or "summary" in rec or "action" in rec)
    )


# --------------------------------------------------------------------------- small helpers


def _usage(raw: Any) -> Usage | None:
    """OpenAI usage: input includes cached input, output includes reasoning."""
    if not isinstance(raw, dict):
        return None
    inp = _int(raw.get("input_tokens"))
    cached = _int(raw.get("cached_input_tokens"))
    usage = Usage(
        input_tokens=max(inp - cached, 0),
        output_tokens=_int(raw.get("output_tokens")),
        cache_read_tokens=cached,
        reasoning_tokens=_int(raw.get("reasoning_output_tokens")),
    )
    return usage or None


def _time(value: Any) -> datetime | None:
    """parse_time with a fast path for Codex's own ``2026-03-04T03:52:32.276Z`` stamps."""
    if isinstance(value, str) and len(value) in (20, 24) and value.endswith("Z"):
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            return parse_time(value)
        if parsed.tzinfo is not None:
            return parsed
    return parse_time(value)


def _duration(value: Any) -> float | None:
    """A duration as Codex serializes it: {secs, nanos}, seconds, or a "1.5s" string."""
    if isinstance(value, dict):
        return round(_int(value.get("secs")) + _int(value.get("nanos")) / 1e9, 3)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        match = re.match(r"^\s*([0-9.]+)\s*(ms|s)?\s*$", value)
        if match:
            try:
                seconds = float(match.group(1))
            except ValueError:
                return None
            return seconds / 1000 if match.group(2) == "ms" else seconds
    return None


def command_line(argv: Any) -> str | None:
    """A readable command line from Codex's argv list (``bash -lc "…"`` unwrapped)."""
    if isinstance(argv, str):
        return argv or None
    if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
        return as_text(argv) if argv else None
    exe = argv[0].replace("\\", "/").rsplit("/", 1)[-1]
    if exe in _SHELLS and len(argv) == 3 and argv[1] in ("-lc", "-c", "-ic", "-l", "-cl"):
        return argv[2]
    if exe.lower() in _POWERSHELLS and len(argv) >= 3 and argv[-2].lower() in ("-command", "-c"):
        return argv[-1]
    return shlex.join(argv)


def patch_to_diff(patch: str) -> tuple[str | None, list[str]]:
    """Turn Codex's ``*** Begin Patch`` text into a unified-style diff and its paths.

    The patch format has no line numbers, so hunk headers stay as the patch
    wrote them (``@@`` or ``@@ <context line>``); added files get a counted header.
    """
    out: list[str] = []
    paths: list[str] = []
    op: str | None = None
    path = ""
    body: list[str] = []
    move_to: str | None = None

    def flush() -> None:
        if op is None:
            return
        if op == "Add":
            out.extend(["--- /dev/null", f"+++ b/{path}", f"@@ -0,0 +1,{len(body)} @@"])
            out.extend(line if line.startswith("+") else "+" + line for line in body)
        elif op == "Delete":
            out.extend([f"--- a/{path}", "+++ /dev/null"])
        else:
            out.extend([f"--- a/{path}", f"+++ b/{move_to or path}"])
            if body and not body[0].startswith("@@"):
                out.append("@@")
            out.extend(body)

    for line in patch.splitlines():
        match = _PATCH_FILE.match(line)
        if match:
            flush()
            op, path, body, move_to = match.group(1), match.group(2), [], None
            paths.append(path)
            continue
        if op is None or line.startswith(("*** Begin Patch", "*** End Patch")):
            continue
        if line.startswith("*** Move to: "):
            move_to = line[len("*** Move to: ") :].strip()
            if move_to not in paths:
                paths.append(move_to)
            continue
        if line.startswith("*** End of File"):
            continue
        if op == "Add" or line.startswith("@@") or line[:1] in ("+", "-", " "):
            body.append(line)
        else:
            body.append(" " + line)  # a blank context line written without its space
    flush()
    return ("\n".join(out) if out else None), paths


def _patch_in(text: str) -> str | None:
    """The ``*** Begin Patch … *** End Patch`` text inside a command, if any."""
    start = text.find("*** Begin Patch")
    if start < 0:
        return None
    end = text.find("*** End Patch", start)
    return text[start:] if end < 0 else text[start : end + len("*** End Patch")]


def changes_to_diff(changes: dict[str, Any]) -> tuple[str | None, list[str]]:
    """A diff from ``patch_apply_end.changes`` ({path: {type, content | unified_diff, move_path}})."""
    out: list[str] = []
    paths: list[str] = []
    for path, change in changes.items():
        if not isinstance(change, dict):
            continue
        paths.append(path)
        kind = str(change.get("type") or "").lower()
        if kind == "add":
            lines = as_text(change.get("content")).splitlines()
            out.extend(
                ["--- /dev/null", f"+++ b/{path}", f"@@ -0,0 +1,{len(lines)} @@", *("+" + line for line in lines)]
            )
        elif kind == "delete":
            lines = as_text(change.get("content")).splitlines()
            out.extend([f"--- a/{path}", "+++ /dev/null"])
            if lines:
                out.extend([f"@@ -1,{len(lines)} +0,0 @@", *("-" + line for line in lines)])
        else:
            diff = as_text(change.get("unified_diff")).rstrip("\n")
            target = _str(change.get("move_path")) or path
            if not diff.startswith("---"):
                out.extend([f"--- a/{path}", f"+++ b/{target}"])
            if diff:
                out.append(diff)
    return ("\n".join(out) if out else None), paths


def _plan_markdown(args: dict[str, Any]) -> str:
    lines = []
    if isinstance(args.get("explanation"), str) and args["explanation"].strip():
        lines.extend([args["explanation"].strip(), ""])
    for step in args.get("plan") or []:
        if isinstance(step, dict):
            status = str(step.get("status"))
            note = " *(in progress)*" if status == "in_progress" else ""
            lines.append(f"- [{'x' if status == 'completed' else ' '}] {as_text(step.get('step'))}{note}")
    return "\n".join(lines).strip()


def tool_fields(name: str, args: Any) -> dict[str, Any]:
    """category, command, path, diff and text of a tool call from its name and arguments."""
    key = name.lower()
    fields: dict[str, Any] = {"category": _CATEGORY.get(key, ToolCategory.OTHER)}
    if isinstance(args, str) and key == "apply_patch":
        args = {"input": args}
    if not isinstance(args, dict):
        return fields
    if key in ("shell", "container.exec", "local_shell", "shell_command", "exec_command"):
        raw = args.get("command") if "command" in args else args.get("cmd")
        command = command_line(raw)
        patch = _patch_in(command) if command and ("apply_patch" in command or "applypatch" in command) else None
        if patch:
            diff, paths = patch_to_diff(patch)
            if diff:
                fields.update(category=ToolCategory.EDIT, diff=diff, path=", ".join(paths) if paths else None)
                return {k: v for k, v in fields.items() if v is not None}
        if command:
            fields["command"] = command
    elif key == "apply_patch":
        patch = args.get("input") if isinstance(args.get("input"), str) else args.get("patch")
        if isinstance(patch, str):
            diff, paths = patch_to_diff(patch)
            if diff:
                fields["diff"] = diff
            if paths:
                fields["path"] = ", ".join(paths)
    elif key == "update_plan":
        text = _plan_markdown(args)
        if text:
            fields["text"] = text
    elif key in ("view_image", "read_file", "list_dir", "grep_files"):
        path = _str(args.get("path")) or _str(args.get("file_path")) or _str(args.get("dir_path"))
        if path:
            fields["path"] = path
    return fields


def parse_output(output: Any) -> dict[str, Any]:
    """text, blocks, exit_code, is_error and meta of a tool output, whatever its generation."""
    result: dict[str, Any] = {"text": "", "blocks": (), "exit_code": None, "is_error": False, "meta": {}}
    if isinstance(output, dict):
        if output.get("success") is False:
            result["is_error"] = True
        content = output.get("content", output.get("output"))
        if content is None:
            result["text"] = as_text(output)
            return result
        inner = parse_output(content)
        inner["is_error"] = inner["is_error"] or result["is_error"]
        return inner
    if isinstance(output, list):
        texts: list[str] = []
        blocks: list[Block] = []
        for item in output:
            if isinstance(item, dict) and item.get("type") in ("input_text", "output_text", "text"):
                texts.append(as_text(item.get("text")))
            elif isinstance(item, dict) and item.get("type") in ("input_image", "image"):
                blocks.append(Block("image", uri=_str(item.get("image_url")) or _str(item.get("url"))))
            else:
                blocks.append(Block("json", data=item))
        result.update(text="\n".join(texts), blocks=tuple(blocks))
        return result
    if not isinstance(output, str):
        result["text"] = as_text(output)
        return result
    text = output
    stripped = text.lstrip()
    if stripped.startswith("{") and '"metadata"' in stripped[:200000]:
        try:
            obj = json.loads(stripped)
        except ValueError:
            obj = None
        if isinstance(obj, dict) and "output" in obj and isinstance(obj.get("metadata"), dict):
            meta = obj["metadata"]
            code = meta.get("exit_code")
            if isinstance(code, int) and not isinstance(code, bool):
                result["exit_code"] = code
                result["is_error"] = code != 0
            seconds = _duration(meta.get("duration_seconds"))
            if seconds is not None:
                result["meta"]["duration_seconds"] = seconds
            result["text"] = as_text(obj.get("output"))
            return result
    # "Exit code: N\nWall time: …\nOutput:\n…" (shell_command) or
    # "Chunk ID: …\nWall time: …\nProcess exited with code N\n…Output:\n…" (exec_command)
    head, found, body = text.partition("\nOutput:\n")
    if not found and text.endswith("\nOutput:"):
        head, found, body = text[: -len("\nOutput:")], "x", ""
    if found:
        lines = head.split("\n") if head.count("\n") < 8 else []  # a header is a few short lines
    else:
        lines = text.split("\n", 8)[:8]
    matched: dict[str, str] = {}
    recognised = bool(lines)
    for line in lines:
        match = _OUTPUT_HEADER.match(line)
        if match:
            matched.update({k: v for k, v in match.groupdict().items() if v is not None})
        elif found:
            recognised = False
            break
        else:
            break  # no Output: marker; only leading header lines are read
    if not matched:
        result["text"] = text
        return result
    code = matched.get("exit1") or matched.get("exit2")
    if code is not None:
        result["exit_code"] = int(code)
        result["is_error"] = int(code) != 0
    meta = result["meta"]
    if "wall" in matched:
        meta["wall_time_seconds"] = float(matched["wall"])
    if "session" in matched:
        meta["running_session_id"] = int(matched["session"])
    if "tokens" in matched:
        meta["original_token_count"] = int(matched["tokens"])
    if "lines" in matched:
        meta["total_output_lines"] = int(matched["lines"])
    if "chunk" in matched:
        meta["chunk_id"] = matched["chunk"]
    result["text"] = body if (found and recognised) else text
    return result


def _content_text(content: Any) -> tuple[str, list[Block]]:
    """Text and image blocks of a response_item message's content list."""
    if isinstance(content, str):
        return content, []
    if not isinstance(content, list):
        return as_text(content), []
    texts: list[str] = []
    blocks: list[Block] = []
    for item in content:
        if isinstance(item, str):
            texts.append(item)
            continue
        if not isinstance(item, dict):
            texts.append(as_text(item))
            continue
        itype = item.get("type")
        if itype in ("input_text", "output_text", "text", "summary_text", "reasoning_text"):
            value = as_text(item.get("text"))
            # Codex brackets pasted images with "<image name=[Image #1]>" … "</image>" text items.
            if re.fullmatch(r"\s*(?:<image\b[^>]*>|</image>)\s*", value):
                continue
            texts.append(value)
        elif itype in ("input_image", "image"):
            url = _str(item.get("image_url")) or _str(item.get("url"))
            blocks.append(
                Block(
                    "image",
                    uri=url,
                    mime=url[5 : url.find(";")] if url and url.startswith("data:") and ";" in url else None,
                )
            )
        elif itype == "refusal":
            texts.append(as_text(item.get("refusal")))
        else:
            blocks.append(Block("json", title=str(itype or "content"), data=item))
    return "\n\n".join(t for t in texts if t), blocks


def classify_user_text(text: str) -> tuple[Kind, str | None]:
    """(kind, title) of a role=user text: real prompts stay USER, injected context is SYSTEM."""
    head = text.lstrip()
    if head.startswith("# AGENTS.md instructions") or head.startswith("<INSTRUCTIONS>"):
        return Kind.SYSTEM, "AGENTS.md instructions"
    if head.startswith("<"):
        tag = head[1 : head.find(">")] if ">" in head[:60] else ""
        if tag in _INJECTED_TAGS:
            return Kind.SYSTEM, _INJECTED_TAGS[tag]
        match = _WHOLE_TAG.match(text.strip()) if len(text) < 1_000_000 else None
        if match:
            return Kind.SYSTEM, match.group(1).replace("_", " ").capitalize()
    return Kind.USER, None


def _request_text(text: str) -> str:
    """The user's own words in an IDE prompt (``# Context from my IDE setup: … ## My request for Codex:``)."""
    index = text.find(_USER_REQUEST)
    return text[index + len(_USER_REQUEST) :].strip() if index >= 0 else text


def _fenced(text: str, language: str) -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}{language}\n{text}\n{fence}"


def _agents_body(text: str) -> tuple[str, str | None]:
    """The markdown of an AGENTS.md message, without its heading line and <INSTRUCTIONS> wrapper."""
    body = text.strip()
    target = None
    if body.startswith("# AGENTS.md instructions"):
        first, _, body = body.partition("\n")
        target = first[len("# AGENTS.md instructions") :].strip().removeprefix("for").strip() or None
        body = body.strip()
    if body.startswith("<INSTRUCTIONS>") and body.endswith("</INSTRUCTIONS>"):
        body = body[len("<INSTRUCTIONS>") : -len("</INSTRUCTIONS>")].strip()
    return body, target


def _env_cwd(text: str) -> str | None:
    start = text.find("<cwd>")
    end = text.find("</cwd>", start)
    return text[start + 5 : end].strip() or None if start >= 0 and end > start else None


# --------------------------------------------------------------------------- the builder


class _Builder:
    """Accumulates one rollout, record by record, and assembles the Session."""

    def __init__(self, path: Path, problems: Problems) -> None:
        self.path = path
        self.problems = problems
        self.events: list[Event] = []
        self.ids = Ids()  # event ids unique within the session
        self.records = 0
        self.skipped: Counter[str] = Counter()
        self.meta: dict[str, Any] = {}
        self.session_meta: dict[str, Any] | None = None
        self.legacy = False
        self.models: dict[str, None] = {}
        self.model: str | None = None
        self.cwds: dict[str, None] = {}
        self.env_cwd: str | None = None
        self.branches: dict[str, None] = {}
        self.commits: dict[str, None] = {}
        self.repos: dict[str, None] = {}
        self.started = None
        self.ended = None
        self.title: str | None = None
        self.turn_context_seen = False
        # pairing: call id -> event index
        self.calls: dict[str, int] = {}
        self.results: dict[str, int] = {}
        # duplicate text: (stream that showed it, role, text) -> copies not yet echoed
        self.echoes: Counter[tuple[str, str, str]] = Counter()
        # token usage
        self.last_total: tuple[int, ...] | None = None
        self.final_total: dict[str, Any] | None = None
        self.usage_targets: list[int] = []  # model events since the last attached usage
        self.pending_usage: Usage | None = None
        self.last_assistant_text: str | None = None
        self.web_queries: dict[str, None] = {}

    # ---- events

    def emit(self, lineno: int, ts: Any, suffix: str = "", **fields: Any) -> int:
        event = Event(id=self.ids.take(f"l{lineno}{suffix}"), line=lineno, timestamp=ts, **fields)
        self.events.append(event)
        index = len(self.events) - 1
        if event.kind in (Kind.ASSISTANT, Kind.THINKING, Kind.TOOL_CALL):
            if self.pending_usage is not None:
                self.events[index] = replace(event, usage=self.pending_usage)
                self.pending_usage = None
                self.usage_targets = []
            else:
                self.usage_targets.append(index)
        return index

    def unknown(self, lineno: int, ts: Any, rec: Any, title: str) -> None:
        self.emit(lineno, ts, kind=Kind.UNKNOWN, title=title, raw=rec)

    # ---- records

    def feed(self, lineno: int, rec: dict[str, Any]) -> None:
        self.records += 1
        ts = _time(rec.get("timestamp"))
        if ts is not None:
            if self.started is None or ts < self.started:
                self.started = ts
            if self.ended is None or ts > self.ended:
                self.ended = ts
        rtype = rec.get("type")
        payload = rec.get("payload")
        try:
            if rtype is None and rec.get("record_type") is not None:
                self.skipped[f"{rec.get('record_type')} record (legacy rollout bookkeeping)"] += 1
            elif rtype is None and self.records == 1 and _is_legacy_header(rec):
                self.legacy = True
                self._session_meta(lineno, rec)
            elif rtype in ("session_meta", "turn_context", "response_item", "event_msg", "compacted"):
                if not isinstance(payload, dict):
                    self.problems.add(self.path, lineno, f"{rtype} record has no payload object; shown as raw JSON")
                    self.unknown(lineno, ts, rec, f"{rtype} without a payload")
                elif rtype == "session_meta":
                    self._session_meta(lineno, payload)
                elif rtype == "turn_context":
                    self._turn_context(payload)
                elif rtype == "response_item":
                    self._item(lineno, ts, payload)
                elif rtype == "event_msg":
                    self._event(lineno, ts, payload)
                else:
                    self._compacted(lineno, ts, payload)
            elif rtype in _ITEM_TYPES and "payload" not in rec:
                self._item(lineno, ts, rec)  # legacy: bare response items
            else:
                self.unknown(lineno, ts, rec, f"unknown record type {rtype!r}")
        except Exception as exc:  # one odd record must not stop the file
            self.problems.add(
                self.path,
                lineno,
                f"could not interpret {rtype!r} record ({type(exc).__name__}: {exc}); shown as raw JSON",
            )
            self.unknown(lineno, ts, rec, f"unreadable {rtype!r} record")

    def _session_meta(self, lineno: int, payload: dict[str, Any]) -> None:
        if self.session_meta is not None:
            other = payload.get("id")
            if other and other != self.session_meta.get("id"):
                self.meta.setdefault("forked_from", [])
                if other not in self.meta["forked_from"]:
                    self.meta["forked_from"].append(other)
                self.skipped["session_meta of another session (history copied from it)"] += 1
            else:
                self.skipped["session_meta repeated"] += 1
            return
        if lineno != 1 and self.records != 1:
            self.problems.add(self.path, lineno, "session_meta is not the first line")
        self.session_meta = payload
        cwd = _str(payload.get("cwd"))
        if cwd:
            self.cwds.setdefault(cwd)
        git = payload.get("git")
        if isinstance(git, dict):
            self._git(git)
        for key in ("originator", "cli_version", "source", "model_provider"):
            if payload.get(key) not in (None, ""):
                self.meta[key] = payload[key]
        instructions = payload.get("instructions")
        if isinstance(instructions, str) and instructions.strip():
            self.meta["instructions"] = instructions
        base = payload.get("base_instructions")
        if isinstance(base, dict) and isinstance(base.get("text"), str):
            self.meta["base_instructions"] = base["text"]
        elif isinstance(base, str) and base.strip():
            self.meta["base_instructions"] = base
        for key, value in payload.items():
            if key not in (
                "id",
                "timestamp",
                "cwd",
                "git",
                "originator",
                "cli_version",
                "source",
                "model_provider",
                "instructions",
                "base_instructions",
            ) and value not in (None, "", [], {}):
                self.meta[key] = value

    def _git(self, git: dict[str, Any]) -> None:
        branch = _str(git.get("branch"))
        if branch and branch != "HEAD":
            self.branches.setdefault(branch)
        commit = _str(git.get("commit_hash")) or _str(git.get("commit"))
        if commit:
            self.commits.setdefault(commit)
        repo = _str(git.get("repository_url"))
        if repo:
            self.repos.setdefault(repo)

    def _turn_context(self, payload: dict[str, Any]) -> None:
        model = _str(payload.get("model"))
        if model:
            self.model = model
            self.models.setdefault(model)
        cwd = _str(payload.get("cwd"))
        if cwd:
            self.cwds.setdefault(cwd)
        if not self.turn_context_seen:
            self.turn_context_seen = True
            settings = {
                k: payload[k]
                for k in ("approval_policy", "sandbox_policy", "effort", "summary", "personality", "collaboration_mode")
                if payload.get(k) not in (None, "")
            }
            if settings:
                self.meta["turn_context"] = settings
            for key in ("user_instructions", "developer_instructions"):
                if isinstance(payload.get(key), str) and payload[key].strip():
                    self.meta[key] = payload[key]
        self.skipped["turn_context (model and policies, restated every turn; the model is shown on each response)"] += 1

    # ---- duplicate text across the two streams

    def is_echo(self, stream: str, role: str, text: str) -> bool:
        """True when ``text`` was already shown from the other stream (and consumes that copy)."""
        key = ("item" if stream == "event" else "event", role, text.strip())
        if self.echoes[key] > 0:
            self.echoes[key] -= 1
            return True
        return False

    def shown(self, stream: str, role: str, text: str) -> None:
        self.echoes[(stream, role, text.strip())] += 1

    def new_turn(self) -> None:
        """A new prompt: echoes only ever follow within a turn, so forget older copies."""
        self.echoes.clear()

    # ---- messages

    def _message(
        self, lineno: int, ts: Any, stream: str, role: str, text: str, blocks: list[Block], meta: dict[str, Any]
    ) -> None:
        if not text.strip() and not blocks:
            self.skipped["empty message"] += 1
            return
        if role == "user":
            kind, title = classify_user_text(text)
            if kind == Kind.SYSTEM:
                if title == "Environment context" and self.env_cwd is None:
                    self.env_cwd = _env_cwd(text)
                if self.is_echo(stream, "system", text):
                    self.skipped["injected context shown twice (event_msg and response_item)"] += 1
                    return
                self.shown(stream, "system", text)
                if title == "AGENTS.md instructions":
                    body, target = _agents_body(text)
                    if target:
                        meta = {**meta, "instructions_for": target}
                else:
                    body = (
                        _fenced(text.strip(), "xml")
                        if text.lstrip().startswith("<") and title != "Turn aborted"
                        else text
                    )
                self.emit(lineno, ts, kind=Kind.SYSTEM, title=title, text=body, blocks=tuple(blocks), meta=meta)
                return
            if self.is_echo(stream, "user", text):
                self.skipped["user message shown twice (event_msg.user_message and response_item.message)"] += 1
                self._merge_images(blocks)
                return
            self.new_turn()
            self.shown(stream, "user", text)
            if self.title is None and text.strip():
                self.title = _shorten(_request_text(text))
            self.emit(lineno, ts, kind=Kind.USER, text=text, blocks=tuple(blocks), meta=meta)
            return
        if role == "assistant":
            if self.is_echo(stream, "assistant", text):
                self.skipped["assistant message shown twice (event_msg.agent_message and response_item.message)"] += 1
                return
            self.shown(stream, "assistant", text)
            self.last_assistant_text = text.strip()
            self.emit(lineno, ts, kind=Kind.ASSISTANT, text=text, blocks=tuple(blocks), model=self.model, meta=meta)
            return
        title = {"developer": "Developer instructions", "system": "System message"}.get(role, f"{role} message")
        body = _fenced(text.strip(), "xml") if text.lstrip().startswith("<") else text
        self.emit(lineno, ts, kind=Kind.SYSTEM, title=title, text=body, blocks=tuple(blocks), meta=meta)

    def _merge_images(self, blocks: list[Block]) -> None:
        """Images only one of the two copies of a user message carried are kept on the shown one."""
        if not blocks:
            return
        for index in range(len(self.events) - 1, -1, -1):
            event = self.events[index]
            if event.kind == Kind.USER:
                extra = tuple(
                    b
                    for b in blocks
                    if b not in event.blocks and not any(b.uri and b.uri == o.uri for o in event.blocks)
                )
                if extra and not event.blocks:
                    self.events[index] = replace(event, blocks=event.blocks + extra)
                return

    def _thinking(self, lineno: int, ts: Any, stream: str, parts: list[str], raw: bool) -> None:
        role = "reasoning-raw" if raw else "reasoning"
        fresh = []
        for part in parts:
            if not part.strip():
                continue
            if self.is_echo(stream, role, part):
                self.skipped[
                    "reasoning summary shown twice (event_msg.agent_reasoning and response_item.reasoning)"
                ] += 1
                continue
            self.shown(stream, role, part)
            fresh.append(part.strip())
        if fresh:
            self.emit(
                lineno,
                ts,
                suffix="-raw" if raw else "",
                kind=Kind.THINKING,
                text="\n\n".join(fresh),
                model=self.model,
                meta={"raw_reasoning": True} if raw else {},
            )

    # ---- response items

    def _item(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        ptype = p.get("type")
        if ptype == "message":
            role = _str(p.get("role")) or "unknown"
            text, blocks = _content_text(p.get("content"))
            meta = {"phase": p["phase"]} if _str(p.get("phase")) else {}
            self._message(lineno, ts, "item", role, text, blocks, meta)
        elif ptype == "reasoning":
            summary = [
                as_text(s.get("text")) if isinstance(s, dict) else as_text(s) for s in (p.get("summary") or []) if s
            ]
            content = (
                [as_text(c.get("text")) if isinstance(c, dict) else as_text(c) for c in (p.get("content") or []) if c]
                if isinstance(p.get("content"), list)
                else []
            )
            if not any(s.strip() for s in summary) and not any(c.strip() for c in content):
                self.skipped["reasoning item without readable text (encrypted or empty summary)"] += 1
                return
            self._thinking(lineno, ts, "item", summary, raw=False)
            self._thinking(lineno, ts, "item", content, raw=True)
        elif ptype in ("function_call", "custom_tool_call", "local_shell_call"):
            self._call(lineno, ts, p)
        elif ptype in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
            self._output(lineno, ts, p)
        elif ptype == "web_search_call":
            self._web_search(lineno, ts, p)
        elif ptype == "ghost_snapshot":
            self.skipped["ghost_snapshot (undo checkpoint commit)"] += 1
        elif ptype in ("compaction", "compaction_summary"):
            meta = {"encrypted": True} if p.get("encrypted_content") else {}
            self.emit(
                lineno,
                ts,
                kind=Kind.COMPACTION,
                title="Context compacted",
                text=as_text(p.get("summary") or p.get("text") or ""),
                meta=meta,
            )
        else:
            self.unknown(lineno, ts, p, f"response item {ptype!r}")

    def _call(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        ptype = p.get("type")
        call_id = _str(p.get("call_id")) or _str(p.get("id"))
        meta: dict[str, Any] = {}
        if ptype == "local_shell_call":
            name = "local_shell"
            action = p.get("action") if isinstance(p.get("action"), dict) else {}
            args: Any = {
                "command": action.get("command"),
                **{k: v for k, v in action.items() if k not in ("command", "type")},
            }
        elif ptype == "custom_tool_call":
            name = _str(p.get("name")) or "custom_tool"
            args = p.get("input")
        else:
            name = _str(p.get("name")) or "function"
            args = p.get("arguments")
            if isinstance(args, str):
                try:
                    args = json.loads(args) if args.strip() else {}
                except ValueError:
                    meta["arguments"] = "not valid JSON; shown as given"
        if _str(p.get("namespace")):
            meta["namespace"] = p["namespace"]
        if _str(p.get("status")) and p["status"] != "completed":
            meta["status"] = p["status"]
        if isinstance(args, dict):
            for key in ("workdir", "justification"):
                if _str(args.get(key)):
                    meta[key] = args[key]
        fields = tool_fields(name, args)
        text = fields.pop("text", "")
        index = self.emit(
            lineno,
            ts,
            kind=Kind.TOOL_CALL,
            tool_name=name,
            tool_input=args,
            call_id=call_id,
            text=text,
            model=self.model,
            meta=meta,
            **fields,
        )
        if call_id:
            if call_id in self.calls:
                self.problems.add(
                    self.path, lineno, f"call_id {call_id!r} used by two calls; results pair with the first"
                )
            else:
                self.calls[call_id] = index

    def _call_name(self, call_id: str | None) -> str | None:
        index = self.calls.get(call_id or "")
        return self.events[index].tool_name if index is not None else None

    def _output(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        call_id = _str(p.get("call_id"))
        parsed = parse_output(p.get("output"))
        if call_id in self.results:
            self._merge_result(call_id, parsed)
            self.skipped[f"{p.get('type')} (merged with the completion notice shown as the result)"] += 1
            return
        meta = parsed["meta"]
        if call_id and call_id not in self.calls:
            meta["unmatched_call"] = True
        index = self.emit(
            lineno,
            ts,
            kind=Kind.TOOL_RESULT,
            call_id=call_id,
            tool_name=self._call_name(call_id),
            text=parsed["text"],
            blocks=parsed["blocks"],
            exit_code=parsed["exit_code"],
            is_error=parsed["is_error"],
            meta=meta,
        )
        if call_id:
            self.results[call_id] = index

    def _merge_result(self, call_id: str, parsed: dict[str, Any]) -> None:
        index = self.results[call_id]
        event = self.events[index]
        exit_code = event.exit_code if event.exit_code is not None else parsed["exit_code"]
        self.events[index] = replace(
            event,
            text=event.text or parsed["text"],
            blocks=event.blocks or parsed["blocks"],
            exit_code=exit_code,
            is_error=event.is_error or parsed["is_error"],
            meta={**parsed["meta"], **event.meta},
        )

    def _result_from_notice(self, lineno: int, ts: Any, call_id: str | None, what: str, **fields: Any) -> bool:
        """A completion notice for a call: merged into its result, or shown as the result.

        Returns False when the call itself is unknown (the caller then shows the call too).
        """
        if call_id and call_id in self.results:
            index = self.results[call_id]
            event = self.events[index]
            self.events[index] = replace(
                event,
                exit_code=event.exit_code if event.exit_code is not None else fields.get("exit_code"),
                is_error=event.is_error or bool(fields.get("is_error")),
                diff=event.diff or fields.get("diff"),
                text=event.text or fields.get("text", ""),
                meta={**fields.get("meta", {}), **event.meta},
            )
            self.skipped[f"{what} (merged into the tool result)"] += 1
            return True
        if call_id and call_id in self.calls:
            index = self.emit(
                lineno, ts, kind=Kind.TOOL_RESULT, call_id=call_id, tool_name=self._call_name(call_id), **fields
            )
            self.results[call_id] = index
            return True
        return False

    def _web_search(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        action = p.get("action") if isinstance(p.get("action"), dict) else {}
        atype = action.get("type")
        if atype == "search" or "query" in action:
            text = as_text(action.get("query"))
            queries = action.get("queries")
            if isinstance(queries, list) and len(queries) > 1:
                text += "\n\n" + "\n".join(f"- {as_text(q)}" for q in queries)
        elif atype == "open_page":
            text = as_text(action.get("url"))
        elif atype == "find_in_page":
            text = f"“{as_text(action.get('pattern'))}” in {as_text(action.get('url'))}"
        else:
            text = ""
        if isinstance(action.get("query"), str):
            self.web_queries.setdefault(action["query"])
        meta = {"status": p["status"]} if _str(p.get("status")) and p["status"] != "completed" else {}
        call_id = _str(p.get("id")) or _str(p.get("call_id"))
        index = self.emit(
            lineno,
            ts,
            kind=Kind.TOOL_CALL,
            tool_name="web_search",
            category=ToolCategory.WEB,
            tool_input=action or None,
            text=text,
            call_id=call_id,
            model=self.model,
            meta=meta,
        )
        if call_id:
            self.calls.setdefault(call_id, index)

    # ---- event messages

    def _event(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        ptype = p.get("type")
        if ptype == "user_message":
            text = as_text(p.get("message"))
            blocks = [Block("image", uri=u if isinstance(u, str) else None) for u in (p.get("images") or []) if u]
            blocks += [Block("image", title=as_text(u)) for u in (p.get("local_images") or []) if u]
            self._message(lineno, ts, "event", "user", text, blocks, {})
        elif ptype == "agent_message":
            text = as_text(p.get("message") if "message" in p else p.get("text"))
            meta = {"phase": p["phase"]} if _str(p.get("phase")) else {}
            self._message(lineno, ts, "event", "assistant", text, [], meta)
        elif ptype in ("agent_reasoning", "agent_reasoning_raw_content"):
            text = as_text(p.get("text") if "text" in p else p.get("message"))
            self._thinking(lineno, ts, "event", [text], raw=ptype == "agent_reasoning_raw_content")
        elif ptype == "token_count":
            self._token_count(p)
        elif ptype == "turn_aborted":
            reason = as_text(p.get("reason")) or "unknown"
            self.emit(
                lineno,
                ts,
                kind=Kind.SYSTEM,
                title="Turn aborted",
                text=f"The turn was aborted ({reason}).",
                meta={k: p[k] for k in ("reason", "turn_id") if k in p},
            )
        elif ptype == "task_started":
            meta = {k: v for k, v in p.items() if k != "type" and v is not None}
            self.emit(lineno, ts, kind=Kind.TASK_START, title="Turn started", meta=meta)
        elif ptype == "task_complete":
            last = as_text(p.get("last_agent_message")).strip()
            meta = {"turn_id": p["turn_id"]} if p.get("turn_id") else {}
            self.emit(
                lineno,
                ts,
                kind=Kind.TASK_END,
                title="Turn complete",
                text=last if last and last != self.last_assistant_text else "",
                meta=meta,
            )
        elif ptype == "context_compacted":
            self.emit(
                lineno,
                ts,
                kind=Kind.COMPACTION,
                title="Context compacted",
                meta={"turn_id": p["turn_id"]} if p.get("turn_id") else {},
            )
        elif ptype == "exec_command_end":
            self._exec_end(lineno, ts, p)
        elif ptype == "patch_apply_end":
            self._patch_end(lineno, ts, p)
        elif ptype == "mcp_tool_call_end":
            self._mcp_end(lineno, ts, p)
        elif ptype == "web_search_end":
            query = as_text(p.get("query"))
            if _str(p.get("call_id")) in self.calls or query in self.web_queries:
                self.skipped["web_search_end (the web search call shows the query)"] += 1
            else:
                self.web_queries.setdefault(query)
                self.emit(
                    lineno,
                    ts,
                    kind=Kind.TOOL_CALL,
                    tool_name="web_search",
                    category=ToolCategory.WEB,
                    text=query,
                    tool_input={"query": query},
                    call_id=_str(p.get("call_id")),
                    model=self.model,
                )
        elif ptype == "view_image_tool_call":
            if _str(p.get("call_id")) in self.calls:
                self.skipped["view_image_tool_call (the view_image call shows the path)"] += 1
            else:
                self.emit(
                    lineno,
                    ts,
                    kind=Kind.TOOL_CALL,
                    tool_name="view_image",
                    category=ToolCategory.READ,
                    path=_str(p.get("path")),
                    tool_input={"path": p.get("path")},
                    call_id=_str(p.get("call_id")),
                )
        elif ptype == "item_completed":
            item = p.get("item") if isinstance(p.get("item"), dict) else {}
            if str(item.get("type", "")).lower() == "plan" and isinstance(item.get("text"), str):
                self.emit(
                    lineno,
                    ts,
                    kind=Kind.SYSTEM,
                    title="Plan",
                    text=item["text"],
                    meta={k: p[k] for k in ("turn_id",) if k in p},
                )
            else:
                self.skipped["item_completed (a copy of an item recorded as a response item)"] += 1
        elif ptype == "turn_diff":
            diff = as_text(p.get("unified_diff"))
            self.emit(
                lineno,
                ts,
                kind=Kind.SYSTEM,
                title="Turn diff",
                blocks=(Block("code", text=diff, language="diff"),) if diff else (),
            )
        elif ptype in ("entered_review_mode", "exited_review_mode"):
            data = {k: v for k, v in p.items() if k != "type"}
            self.emit(
                lineno,
                ts,
                kind=Kind.SYSTEM,
                title="Review mode started" if ptype == "entered_review_mode" else "Review mode ended",
                blocks=(Block("json", data=data),) if data else (),
            )
        elif ptype in _NOTES:
            title, key, level = _NOTES[ptype]
            text = as_text(p.get(key))
            if ptype == "deprecation_notice" and _str(p.get("details")):
                text = f"{text}\n\n{p['details']}"
            meta = {k: v for k, v in p.items() if k not in ("type", key, "details") and v is not None}
            if level:
                meta["level"] = level
            self.emit(lineno, ts, kind=Kind.SYSTEM, title=title, text=text, meta=meta)
        elif ptype in _SKIP_EVENTS:
            self.skipped[_SKIP_EVENTS[ptype]] += 1
        else:
            self.unknown(lineno, ts, p, f"event_msg {ptype!r}")

    def _token_count(self, p: dict[str, Any]) -> None:
        info = p.get("info")
        if not isinstance(info, dict):
            if any(k in p for k in ("input_tokens", "output_tokens")):
                info = {"last_token_usage": p}  # a flat count (seen in converters' fixtures)
            else:
                self.skipped["token_count with rate limits only (no token info)"] += 1
                return
        total = info.get("total_token_usage")
        if isinstance(info.get("model_context_window"), int):
            self.meta["model_context_window"] = info["model_context_window"]
        key = None
        if isinstance(total, dict):
            key = tuple(
                _int(total.get(k))
                for k in (
                    "input_tokens",
                    "cached_input_tokens",
                    "output_tokens",
                    "reasoning_output_tokens",
                    "total_tokens",
                )
            )
            if key == self.last_total:
                self.skipped["token_count repeated (cumulative total unchanged; counted once)"] += 1
                return
            previous = self.last_total
            self.last_total = key
            self.final_total = total
        else:
            previous = None
        usage = _usage(info.get("last_token_usage"))
        if usage is None and key is not None:
            # No per-turn figure: the growth of the cumulative total is this turn's usage.
            base = previous or (0, 0, 0, 0, 0)
            usage = _usage(
                dict(
                    zip(
                        ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens"),
                        (a - b for a, b in zip(key, base)),
                    )
                )
            )
        if usage is None:
            self.skipped["token_count with no usage"] += 1
            return
        if self.usage_targets:
            index = self.usage_targets[-1]
            event = self.events[index]
            self.events[index] = replace(event, usage=(event.usage + usage) if event.usage else usage)
            self.usage_targets = []
        else:
            self.pending_usage = (self.pending_usage + usage) if self.pending_usage else usage

    def _exec_end(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        call_id = _str(p.get("call_id"))
        text = as_text(p.get("aggregated_output"))
        if not text:
            text = "\n".join(t for t in (as_text(p.get("stdout")), as_text(p.get("stderr"))) if t) or as_text(
                p.get("formatted_output")
            )
        code = (
            p.get("exit_code")
            if isinstance(p.get("exit_code"), int) and not isinstance(p.get("exit_code"), bool)
            else None
        )
        meta: dict[str, Any] = {}
        seconds = _duration(p.get("duration"))
        if seconds is not None:
            meta["duration_seconds"] = seconds
        for key in ("cwd", "process_id"):
            if p.get(key):
                meta[key] = p[key]
        if _str(p.get("source")) and p["source"] != "agent":
            meta["source"] = p["source"]
        fields = dict(text=text, exit_code=code, is_error=code not in (None, 0), meta=meta)
        if self._result_from_notice(lineno, ts, call_id, "exec_command_end", **fields):
            return
        # No call recorded (a command the user ran with "!", or a call lost to a resume).
        command = command_line(p.get("command"))
        name = "user shell command" if p.get("source") == "user_shell" else "exec_command"
        self.emit(
            lineno,
            ts,
            kind=Kind.TOOL_CALL,
            tool_name=name,
            category=ToolCategory.SHELL,
            command=command,
            tool_input={"command": p.get("command")},
            call_id=call_id,
        )
        index = self.emit(
            lineno, ts, suffix="-result", kind=Kind.TOOL_RESULT, call_id=call_id, tool_name=name, **fields
        )
        if call_id:
            self.calls.setdefault(call_id, index - 1)
            self.results[call_id] = index

    def _patch_end(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        call_id = _str(p.get("call_id"))
        changes = p.get("changes") if isinstance(p.get("changes"), dict) else {}
        diff, paths = changes_to_diff(changes)
        call = self.calls.get(call_id or "")
        if call is not None and self.events[call].diff:
            diff = None  # the call already shows the patch
        text = "\n".join(t for t in (as_text(p.get("stdout")), as_text(p.get("stderr"))) if t)
        success = p.get("success")
        fields = dict(
            text=text,
            diff=diff,
            is_error=success is False,
            meta={"success": success} if isinstance(success, bool) else {},
        )
        if self._result_from_notice(lineno, ts, call_id, "patch_apply_end", **fields):
            return
        fields["diff"] = None
        self.emit(
            lineno,
            ts,
            kind=Kind.TOOL_CALL,
            tool_name="apply_patch",
            category=ToolCategory.EDIT,
            diff=diff,
            path=", ".join(paths) if paths else None,
            tool_input={"changes": list(changes)} if changes else None,
            call_id=call_id,
        )
        index = self.emit(
            lineno, ts, suffix="-result", kind=Kind.TOOL_RESULT, call_id=call_id, tool_name="apply_patch", **fields
        )
        if call_id:
            self.calls.setdefault(call_id, index - 1)
            self.results[call_id] = index

    def _mcp_end(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        call_id = _str(p.get("call_id"))
        invocation = p.get("invocation") if isinstance(p.get("invocation"), dict) else {}
        result = p.get("result")
        meta: dict[str, Any] = {}
        seconds = _duration(p.get("duration"))
        if seconds is not None:
            meta["duration_seconds"] = seconds
        is_error = False
        if isinstance(result, dict) and "Err" in result:
            parsed = {"text": as_text(result["Err"]), "blocks": ()}
            is_error = True
        else:
            ok = result.get("Ok") if isinstance(result, dict) and "Ok" in result else result
            parsed = parse_output(ok.get("content") if isinstance(ok, dict) and "content" in ok else ok)
            if isinstance(ok, dict):
                is_error = bool(ok.get("isError") or ok.get("is_error"))
                if ok.get("structuredContent") is not None:
                    parsed["blocks"] = tuple(parsed["blocks"]) + (
                        Block("json", title="structured content", data=ok["structuredContent"]),
                    )
        fields = dict(text=parsed["text"], blocks=tuple(parsed["blocks"]), is_error=is_error, meta=meta)
        if self._result_from_notice(lineno, ts, call_id, "mcp_tool_call_end", **fields):
            return
        server, tool = as_text(invocation.get("server")), as_text(invocation.get("tool"))
        name = f"{server}.{tool}" if server and tool else (tool or "mcp tool")
        self.emit(
            lineno,
            ts,
            kind=Kind.TOOL_CALL,
            tool_name=name,
            category=ToolCategory.OTHER,
            tool_input=invocation.get("arguments"),
            call_id=call_id,
            meta={"mcp_server": server} if server else {},
        )
        index = self.emit(
            lineno, ts, suffix="-result", kind=Kind.TOOL_RESULT, call_id=call_id, tool_name=name, **fields
        )
        if call_id:
            self.calls.setdefault(call_id, index - 1)
            self.results[call_id] = index

    def _compacted(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        history = p.get("replacement_history")
        meta = {"replacement_history_items": len(history)} if isinstance(history, list) else {}
        self.emit(
            lineno, ts, kind=Kind.COMPACTION, title="Conversation compacted", text=as_text(p.get("message")), meta=meta
        )

    # ---- the session

    def finish(self) -> Session | None:
        if not self.events:
            if self.records:
                self.problems.add(self.path, None, "no Codex conversation events found; skipped")
            return None
        if self.pending_usage is not None:
            # Usage reported before any model output: kept on the last model event (never dropped).
            targets = [
                i for i, e in enumerate(self.events) if e.kind in (Kind.ASSISTANT, Kind.THINKING, Kind.TOOL_CALL)
            ]
            if targets:
                event = self.events[targets[-1]]
                self.events[targets[-1]] = replace(
                    event, usage=(event.usage + self.pending_usage) if event.usage else self.pending_usage
                )
                self.pending_usage = None
        meta_obj = self.session_meta or {}
        raw_id = _str(meta_obj.get("id"))
        if raw_id is None:
            found = _UUID.search(self.path.name)
            raw_id = found.group(0) if found else self.path.stem
            self.problems.add(self.path, None, "no session_meta line; session id taken from the file name")
        meta: dict[str, Any] = {"session_id": raw_id}
        if self.legacy:
            meta["format"] = "legacy record-style rollout"
        meta.update(self.meta)
        if self.final_total is not None:
            meta["token_total"] = self.final_total
        cwd = _str(meta_obj.get("cwd")) or next(iter(self.cwds), None) or self.env_cwd
        if len(self.cwds) > 1:
            meta["cwds"] = list(self.cwds)
        started = parse_time(meta_obj.get("timestamp"))
        if started is None or (self.started is not None and self.started < started):
            started = self.started or started
        return Session(
            id=make_session_id(NAME, raw_id),
            source=SourceRef(str(self.path), NAME),
            agent=AGENT,
            events=tuple(self.events),
            title=self.title,
            started=started,
            ended=self.ended or started,
            cwd=cwd,
            project=_project(cwd),
            models=tuple(self.models),
            git=GitRefs(branches=tuple(self.branches), commits=tuple(self.commits), repos=tuple(self.repos)),
            usage=self.pending_usage,
            meta=meta,
            skipped=dict(self.skipped),
        )


READER = CodexReader()
