"""Shell calls and tool outputs across Codex's three shell generations.

``shell`` sends an argv list and gets a JSON string with ``metadata.exit_code``;
``shell_command`` gets ``Exit code: N`` text and ``exec_command`` gets
``Process exited with code N``, each before an ``Output:`` line. All of them
become a readable command line and a result with an exit code.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from typing import Any, TypedDict

from sessite.model import Block
from sessite.readers._util import opt_int, text_of
from sessite.readers.base import as_text
from sessite.readers.formats.codex.layout import duration
from sessite.readers.safejson import loads

_SHELLS = {"bash", "sh", "zsh", "dash", "fish", "ksh"}
_POWERSHELLS = {"powershell", "powershell.exe", "pwsh", "pwsh.exe"}
_OUTPUT_HEADER = re.compile(
    r"^(?:Chunk ID: (?P<chunk>\S+)|Wall time: (?P<wall>[0-9.]+) seconds?|Exit code: (?P<exit1>-?\d+)"
    r"|Process exited with code (?P<exit2>-?\d+)|Process running with session ID (?P<session>\d+)"
    r"|Original token count: (?P<tokens>\d+)|Total output lines: (?P<lines>\d+))\s*$"
)
_OUTPUT_MARKER = "\nOutput:\n"
# Header lines that become result meta: group name -> (meta key, conversion).
_HEADER_META: tuple[tuple[str, str, Callable[[str], Any]], ...] = (
    ("wall", "wall_time_seconds", float),
    ("session", "running_session_id", int),
    ("tokens", "original_token_count", int),
    ("lines", "total_output_lines", int),
    ("chunk", "chunk_id", str),
)


class ToolOutput(TypedDict):
    """A tool output as the result event shows it."""

    text: str
    blocks: tuple[Block, ...]
    exit_code: int | None
    is_error: bool
    meta: dict[str, Any]


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


def parse_output(output: Any) -> ToolOutput:
    """text, blocks, exit_code, is_error and meta of a tool output, whatever its generation."""
    if isinstance(output, dict):
        content = output.get("content", output.get("output"))
        if content is None:
            return _plain(as_text(output), is_error=output.get("success") is False)
        inner = parse_output(content)
        inner["is_error"] = inner["is_error"] or output.get("success") is False
        return inner
    if isinstance(output, list):
        return _content_list(output)
    if not isinstance(output, str):
        return _plain(as_text(output))
    return _shell_json(output) or _headed_text(output)


def _plain(text: str, is_error: bool = False) -> ToolOutput:
    return {"text": text, "blocks": (), "exit_code": None, "is_error": is_error, "meta": {}}


def _content_list(items: list[Any]) -> ToolOutput:
    """A list of content items: text items joined, images and anything else as blocks."""
    texts: list[str] = []
    blocks: list[Block] = []
    for item in items:
        if isinstance(item, dict) and item.get("type") in ("input_text", "output_text", "text"):
            texts.append(as_text(item.get("text")))
        elif isinstance(item, dict) and item.get("type") in ("input_image", "image"):
            blocks.append(Block("image", uri=text_of(item.get("image_url")) or text_of(item.get("url"))))
        else:
            blocks.append(Block("json", data=item))
    result = _plain("\n".join(texts))
    result["blocks"] = tuple(blocks)
    return result


def _shell_json(text: str) -> ToolOutput | None:
    """The ``shell`` generation: ``{"output": …, "metadata": {"exit_code", "duration_seconds"}}`` as a string."""
    stripped = text.lstrip()
    if not (stripped.startswith("{") and '"metadata"' in stripped[:200000]):
        return None
    try:
        obj = loads(stripped)
    except ValueError:
        return None
    if not (isinstance(obj, dict) and "output" in obj and isinstance(obj.get("metadata"), dict)):
        return None
    meta = obj["metadata"]
    result = _plain(as_text(obj.get("output")))
    code = opt_int(meta.get("exit_code")) if isinstance(meta.get("exit_code"), int) else None
    if code is not None:
        result["exit_code"] = code
        result["is_error"] = code != 0
    seconds = duration(meta.get("duration_seconds"))
    if seconds is not None:
        result["meta"]["duration_seconds"] = seconds
    return result


def _headed_text(text: str) -> ToolOutput:
    """``Exit code: N\\nWall time: …\\nOutput:\\n…`` (shell_command) or
    ``Chunk ID: …\\nWall time: …\\nProcess exited with code N\\n…Output:\\n…`` (exec_command)."""
    lines, body = _split_header(text)
    matched, recognised = _header_fields(lines, marked=body is not None)
    result = _plain(text)
    if not matched:
        return result
    code = opt_int(matched.get("exit1") or matched.get("exit2"))
    if code is not None:
        result["exit_code"] = code
        result["is_error"] = code != 0
    for group, key, convert in _HEADER_META:
        if group in matched:
            result["meta"][key] = convert(matched[group])
    if body is not None and recognised:
        result["text"] = body
    return result


def _split_header(text: str) -> tuple[list[str], str | None]:
    """The candidate header lines of an output, and what follows its ``Output:`` line (None without one)."""
    head, found, body = text.partition(_OUTPUT_MARKER)
    if not found and text.endswith("\nOutput:"):
        head, found, body = text[: -len("\nOutput:")], "x", ""
    if not found:
        return text.split("\n", 8)[:8], None
    return (head.split("\n") if head.count("\n") < 8 else []), body  # a header is a few short lines


def _header_fields(lines: list[str], marked: bool) -> tuple[dict[str, str], bool]:
    """The header fields found in ``lines``, and whether every line was a header line.

    Before an ``Output:`` marker every line must be a header line; without one,
    only the leading header lines are read.
    """
    matched: dict[str, str] = {}
    recognised = bool(lines)
    for line in lines:
        match = _OUTPUT_HEADER.match(line)
        if match:
            matched.update({k: v for k, v in match.groupdict().items() if v is not None})
        elif marked:
            recognised = False
            break
        else:
            break
    return matched, recognised
