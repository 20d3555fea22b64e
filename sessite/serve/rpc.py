"""Agent endpoints: AICF-RPC 1.0 and JSON-RPC 2.0 over one set of tools.

Both protocols parse into (tool, arguments), validate the arguments against the
tool's declared parameters, call the same function, and encode the result or
error in their own way. A malformed request always gets the protocol's error,
never a traceback.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

MAX_REQUEST_BYTES = 1 << 20
BATCH_SECONDS = 10.0  # a JSON-RPC batch answers what it could do in this time; the rest get an error
_INTEGER = re.compile(r"-?[0-9]{1,18}")  # ASCII digits only: "²".isdigit() is True but int("²") fails


def scrub(text: str) -> str:
    """``text`` as valid Unicode: a lone surrogate (``\\ud800`` in JSON) becomes U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return text


def loads(text: str | bytes) -> Any:
    """``json.loads`` that fails with ValueError on nesting too deep to parse, as on any bad JSON."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("JSON nested too deep") from None


@dataclass(frozen=True)
class Param:
    name: str
    type: str  # string | integer | boolean
    description: str = ""
    required: bool = False
    default: Any = None
    minimum: int | None = None
    maximum: int | None = None


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    params: tuple[Param, ...]
    fn: Callable[..., Any]


class ToolError(Exception):
    """An error with an AICF code (400, 404, 422, 500)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class Registry:
    tools: dict[str, Tool] = field(default_factory=dict)

    def add(self, tool: Tool) -> None:
        self.tools[tool.name] = tool

    def get(self, name: str) -> Tool:
        tool = self.tools.get(name)
        if tool is None:
            raise ToolError(404, f"Tool not found: {name}")
        return tool

    def invoke(self, name: str, arguments: dict[str, Any]) -> Any:
        tool = self.get(name)
        kwargs = validate(tool, arguments)
        try:
            return tool.fn(**kwargs)
        except ToolError:
            raise
        except Exception as exc:  # noqa: BLE001 - an agent gets an error, never a traceback
            raise ToolError(500, f"Internal error in {name}: {type(exc).__name__}") from exc


def validate(tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
    """Check and coerce arguments against the tool's parameters (422 on any mismatch)."""
    known = {p.name for p in tool.params}
    unknown = sorted(set(arguments) - known)
    if unknown:
        raise ToolError(422, f"Unknown argument for {tool.name}: {', '.join(unknown)}")
    out: dict[str, Any] = {}
    for param in tool.params:
        if param.name not in arguments or arguments[param.name] is None:
            if param.required:
                raise ToolError(422, f"Missing required argument: {param.name}")
            out[param.name] = param.default
            continue
        value = arguments[param.name]
        if param.type == "integer":
            if isinstance(value, bool) or not isinstance(value, int):
                if isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
                    value = int(value)
                else:
                    raise ToolError(422, f"Argument {param.name} must be an integer")
            if param.minimum is not None and value < param.minimum:
                raise ToolError(422, f"Argument {param.name} must be >= {param.minimum}")
            if param.maximum is not None and value > param.maximum:
                raise ToolError(422, f"Argument {param.name} must be <= {param.maximum}")
        elif param.type == "boolean":
            if isinstance(value, str) and value.lower() in ("true", "false"):
                value = value.lower() == "true"
            if not isinstance(value, bool):
                raise ToolError(422, f"Argument {param.name} must be a boolean")
        elif param.type == "string":
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                value = str(value)
            if not isinstance(value, str):
                raise ToolError(422, f"Argument {param.name} must be a string")
            if len(value) > 10_000:
                raise ToolError(422, f"Argument {param.name} is too long")
        out[param.name] = value
    return out


# ---------------------------------------------------------------- AICF-RPC


def aicf_split(text: str) -> list[str]:
    """Split on unescaped pipes and unescape ``\\|``, ``\\n``, ``\\t``, ``\\\\``."""
    fields: list[str] = []
    current: list[str] = []
    chars = iter(text)
    for ch in chars:
        if ch == "\\":
            nxt = next(chars, None)
            if nxt is None:
                raise ToolError(400, "Dangling escape at end of request")
            current.append({"n": "\n", "t": "\t", "|": "|", "\\": "\\", "r": "\r"}.get(nxt, "\\" + nxt))
        elif ch == "|":
            fields.append("".join(current))
            current = []
        else:
            current.append(ch)
    fields.append("".join(current))
    return fields


def aicf_escape(value: str) -> str:
    return (
        value.replace("\\", "\\\\").replace("|", "\\|").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")
    )


def _coerce(arg: str) -> Any:
    """AICF args that look like JSON, numbers, booleans or null are coerced."""
    stripped = arg.strip()
    if stripped in ("true", "false", "null") or stripped[:1] in ("{", "[") or _is_number(stripped):
        try:
            return loads(stripped)
        except ValueError:
            return arg
    return arg


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return bool(text) and text[0] in "-0123456789"


def handle_aicf(registry: Registry, body: bytes) -> str:
    """One AICF-RPC request body in, one response line out."""
    try:
        try:
            text = body.decode("utf-8").strip("\r\n")
        except UnicodeDecodeError:
            raise ToolError(400, "Request is not UTF-8") from None
        if not text:
            raise ToolError(400, "Empty request")
        fields = aicf_split(text)
        command = fields[0].strip().upper()
        if command == "LIST":
            if len(fields) != 1:
                raise ToolError(400, "LIST takes no arguments")
            return "TOOLS|" + "|".join(aicf_escape(n) for n in registry.tools)
        if command == "INFO":
            if len(fields) != 2 or not fields[1]:
                raise ToolError(400, "INFO takes one tool name")
            tool = registry.get(fields[1])
            params = [f"{p.name}:{p.type}{'' if p.required else '?'}" for p in tool.params]
            return "|".join(["TOOL", aicf_escape(tool.name), aicf_escape(tool.description), *params])
        if command == "CALL":
            if len(fields) < 2 or not fields[1]:
                raise ToolError(400, "CALL needs a tool name")
            tool = registry.get(fields[1])
            args = fields[2:]
            arguments = _aicf_arguments(tool, args)
            result = registry.invoke(tool.name, arguments)
            payload = (
                result
                if isinstance(result, str)
                else json.dumps(result, ensure_ascii=False, separators=(",", ":"), default=str)
            )
            return "OK|" + aicf_escape(scrub(payload))
        raise ToolError(400, f"Unknown command: {fields[0][:40]}")
    except ToolError as exc:
        return f"ERR|{exc.code}|{aicf_escape(scrub(exc.message))}"


def _aicf_arguments(tool: Tool, args: list[str]) -> dict[str, Any]:
    """Positional args map onto the tool's parameters in order; a single JSON
    object argument may give them by name instead."""
    if len(args) == 1 and args[0].strip().startswith("{"):
        value = _coerce(args[0])
        if isinstance(value, dict):
            return value
        raise ToolError(422, "Argument object is not valid JSON")
    if len(args) > len(tool.params):
        raise ToolError(422, f"{tool.name} takes at most {len(tool.params)} arguments, got {len(args)}")
    out: dict[str, Any] = {}
    for param, raw in zip(tool.params, args):
        if raw == "":
            continue  # an empty positional argument means "use the default"
        out[param.name] = raw if param.type == "string" else _coerce(raw)
    return out


# ---------------------------------------------------------------- JSON-RPC 2.0

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603
_TOOL_ERROR_TO_JSONRPC = {400: INVALID_REQUEST, 404: INVALID_PARAMS, 422: INVALID_PARAMS, 500: INTERNAL_ERROR}


SERVER_ERROR = -32000  # implementation-defined: the batch's time budget ran out


def handle_jsonrpc(registry: Registry, body: bytes, budget: float = BATCH_SECONDS) -> dict | list | None:
    """One JSON-RPC 2.0 request (or batch) in; the response object(s), or None for notifications only.

    A batch gets ``budget`` seconds in all: calls not started by then are answered with an error.
    """
    try:
        request = loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return _error(None, PARSE_ERROR, "Parse error")
    if not isinstance(request, list):
        return _one(registry, request)
    if not request:
        return _error(None, INVALID_REQUEST, "Invalid Request: empty batch")
    deadline = time.monotonic() + budget
    responses = []
    for item in request[:100]:
        if time.monotonic() > deadline:
            rid = item.get("id") if isinstance(item, dict) and _valid_id(item.get("id")) else None
            response: dict | None = _error(rid, SERVER_ERROR, "Server error: the batch ran out of time")
        else:
            response = _one(registry, item)
        if response is not None:
            responses.append(response)
    return responses or None


def encode_jsonrpc(response: dict | list) -> bytes:
    """The response as UTF-8 JSON (lone surrogates from the request become U+FFFD)."""
    return scrub(json.dumps(response, ensure_ascii=False, default=str)).encode("utf-8")


def _one(registry: Registry, request: Any) -> dict | None:
    if not isinstance(request, dict) or request.get("jsonrpc") != "2.0" or not isinstance(request.get("method"), str):
        rid = request.get("id") if isinstance(request, dict) and _valid_id(request.get("id")) else None
        return _error(rid, INVALID_REQUEST, "Invalid Request")
    rid = request.get("id")
    if "id" in request and not _valid_id(rid):
        return _error(None, INVALID_REQUEST, "Invalid Request: bad id")
    notification = "id" not in request
    method = request["method"]
    params = request.get("params", {})
    try:
        if method == "aip.tool.invoke":
            if not isinstance(params, dict) or not isinstance(params.get("tool"), str):
                return (
                    None
                    if notification
                    else _error(rid, INVALID_PARAMS, "Invalid params: params.tool (string) is required")
                )
            arguments = params.get("arguments", {})
            if arguments is None:
                arguments = {}
            if not isinstance(arguments, dict):
                return (
                    None
                    if notification
                    else _error(rid, INVALID_PARAMS, "Invalid params: params.arguments must be an object")
                )
            result = registry.invoke(params["tool"], arguments)
        elif method == "aip.tool.list":
            result = [
                {
                    "name": t.name,
                    "description": t.description,
                    "parameters": [p.__dict__ | {"default": p.default} for p in t.params],
                }
                for t in registry.tools.values()
            ]
        else:
            return None if notification else _error(rid, METHOD_NOT_FOUND, f"Method not found: {method[:80]}")
    except ToolError as exc:
        return (
            None
            if notification
            else _error(rid, _TOOL_ERROR_TO_JSONRPC.get(exc.code, INTERNAL_ERROR), exc.message, {"code": exc.code})
        )
    if notification:
        return None
    return {"jsonrpc": "2.0", "result": result, "id": rid}


def _valid_id(value: Any) -> bool:
    return value is None or (isinstance(value, (str, int, float)) and not isinstance(value, bool))


def _error(rid: Any, code: int, message: str, data: Any = None) -> dict:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "error": error, "id": rid}
