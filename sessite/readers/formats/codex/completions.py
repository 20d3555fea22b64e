"""The ``*_end`` notices: ``exec_command_end``, ``patch_apply_end`` and ``mcp_tool_call_end``.

A notice for a recorded call is merged into that call's one result (exit
code, duration, diff), never shown twice. A notice whose call was never
recorded (a command the user ran with "!", or a call lost to a resume) is
shown as the call and its result.
"""

from __future__ import annotations

from typing import Any

from sessite.model import Block, Kind, ToolCategory
from sessite.readers._util import obj, text_of
from sessite.readers.base import as_text
from sessite.readers.formats.codex.assembly import Assembly
from sessite.readers.formats.codex.layout import duration
from sessite.readers.formats.codex.patch import changes_to_diff
from sessite.readers.formats.codex.shell import command_line, parse_output


class CompletionHandling(Assembly):
    """Completion notices from the ``event_msg`` stream, paired with their calls by ``call_id``."""

    def exec_end(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        call_id = text_of(p.get("call_id"))
        text = as_text(p.get("aggregated_output"))
        if not text:
            text = "\n".join(t for t in (as_text(p.get("stdout")), as_text(p.get("stderr"))) if t) or as_text(
                p.get("formatted_output")
            )
        code = p.get("exit_code")
        if not isinstance(code, int) or isinstance(code, bool):
            code = None
        fields: dict[str, Any] = dict(text=text, exit_code=code, is_error=code not in (None, 0), meta=_exec_meta(p))
        if self.result_from_notice(lineno, ts, call_id, "exec_command_end", **fields):
            return
        name = "user shell command" if p.get("source") == "user_shell" else "exec_command"
        call = dict(
            category=ToolCategory.SHELL,
            command=command_line(p.get("command")),
            tool_input={"command": p.get("command")},
        )
        self._call_and_result(lineno, ts, call_id, name, call, fields)

    def patch_end(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        call_id = text_of(p.get("call_id"))
        changes = obj(p.get("changes"))
        diff, paths = changes_to_diff(changes)
        call_index = self.calls.get(call_id or "")
        if call_index is not None and self.events[call_index].diff:
            diff = None  # the call already shows the patch
        text = "\n".join(t for t in (as_text(p.get("stdout")), as_text(p.get("stderr"))) if t)
        success = p.get("success")
        fields: dict[str, Any] = dict(
            text=text,
            diff=diff,
            is_error=success is False,
            meta={"success": success} if isinstance(success, bool) else {},
        )
        if self.result_from_notice(lineno, ts, call_id, "patch_apply_end", **fields):
            return
        fields["diff"] = None
        call = dict(
            category=ToolCategory.EDIT,
            diff=diff,
            path=", ".join(paths) if paths else None,
            tool_input={"changes": list(changes)} if changes else None,
        )
        self._call_and_result(lineno, ts, call_id, "apply_patch", call, fields)

    def mcp_end(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        call_id = text_of(p.get("call_id"))
        invocation = obj(p.get("invocation"))
        meta: dict[str, Any] = {}
        seconds = duration(p.get("duration"))
        if seconds is not None:
            meta["duration_seconds"] = seconds
        text, blocks, is_error = _mcp_result(p.get("result"))
        fields: dict[str, Any] = dict(text=text, blocks=blocks, is_error=is_error, meta=meta)
        if self.result_from_notice(lineno, ts, call_id, "mcp_tool_call_end", **fields):
            return
        server, tool = as_text(invocation.get("server")), as_text(invocation.get("tool"))
        name = f"{server}.{tool}" if server and tool else (tool or "mcp tool")
        call = dict(
            category=ToolCategory.OTHER,
            tool_input=invocation.get("arguments"),
            meta={"mcp_server": server} if server else {},
        )
        self._call_and_result(lineno, ts, call_id, name, call, fields)

    def _call_and_result(
        self, lineno: int, ts: Any, call_id: str | None, name: str, call: dict[str, Any], result: dict[str, Any]
    ) -> None:
        """A notice whose call was never recorded: shown as the call and its result."""
        call_index = self.emit(lineno, ts, kind=Kind.TOOL_CALL, tool_name=name, call_id=call_id, **call)
        index = self.emit(
            lineno, ts, suffix="-result", kind=Kind.TOOL_RESULT, call_id=call_id, tool_name=name, **result
        )
        if call_id:
            self.calls.setdefault(call_id, call_index)
            self.results[call_id] = index


def _exec_meta(p: dict[str, Any]) -> dict[str, Any]:
    """Duration, cwd, process id and (when not the agent) source of an ``exec_command_end``."""
    meta: dict[str, Any] = {}
    seconds = duration(p.get("duration"))
    if seconds is not None:
        meta["duration_seconds"] = seconds
    for key in ("cwd", "process_id"):
        if p.get(key):
            meta[key] = p[key]
    if text_of(p.get("source")) and p["source"] != "agent":
        meta["source"] = p["source"]
    return meta


def _mcp_result(result: Any) -> tuple[str, tuple[Block, ...], bool]:
    """Text, blocks and error flag of an MCP result (``{"Ok": …}`` / ``{"Err": …}`` or bare)."""
    if isinstance(result, dict) and "Err" in result:
        return as_text(result["Err"]), (), True
    ok = result.get("Ok") if isinstance(result, dict) and "Ok" in result else result
    parsed = parse_output(ok.get("content") if isinstance(ok, dict) and "content" in ok else ok)
    blocks = parsed["blocks"]
    is_error = False
    if isinstance(ok, dict):
        is_error = bool(ok.get("isError") or ok.get("is_error"))
        if ok.get("structuredContent") is not None:
            blocks = blocks + (Block("json", title="structured content", data=ok["structuredContent"]),)
    return parsed["text"], blocks, is_error
