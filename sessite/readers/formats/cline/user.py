"""A user message of Cline's history: the user's words, tool results, and context Cline adds.

A tool result in the older style is plain text, ``"[read_file for 'x'] Result:"``
followed by the output (in the same block or the next ones), paired with the
oldest open call of that tool. ``<environment_details>`` blocks are context
Cline adds, shown as SYSTEM (and the source of the working directory).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sessite.model import Block, Kind
from sessite.readers._util import opt_int, text_of
from sessite.readers.base import as_text
from sessite.readers.formats.cline.task import Task, image

_RESULT_HEAD = re.compile(r"\[([A-Za-z0-9_\-]+)(.*?)\] Result:[ \t]*\n?", re.DOTALL)
# The user's words a tool result quotes (feedback on a completion, an answer to a question).
_QUOTED = re.compile(r"<(feedback|answer|user_message)>(.*?)</\1>", re.DOTALL)
# A call Cline refused to run: its result, written in the user's turn like the others.
_NOT_EXECUTED = re.compile(r"Tool \[([A-Za-z0-9_\-]+)\] was not executed\b")
_CWD = re.compile(r"# Current (?:Working|Workspace) Directory \((.+?)\) Files")
_ENVIRONMENT = "<environment_details>"
_NOTICES = (
    ("[TASK RESUMPTION]", "Task resumption"),
    ("# task_progress", "Cline instructions"),
    ("# TODO LIST", "Cline instructions"),
    ("(The user did not provide a new message", "Cline notice"),
    ("Files attached by the user", "Files attached by the user"),
    ("[ERROR] You did not use a tool", "Cline notice"),
    ("[ERROR]", "Cline error notice"),
    ("<explicit_instructions", "Explicit instructions"),
)
_FAILED = ("The tool execution failed", "[ERROR]", "Error executing", "<error>")


@dataclass
class _OpenResult:
    """A text-style tool result still collecting its text and images."""

    name: str
    call_id: str | None
    eid: str
    texts: list[str]
    blocks: list[Block]
    meta: dict[str, Any]


def _exit_code(text: str) -> int | None:
    match = re.search(r"[Ee]xit code:? (-?\d+)", text[:4000])
    return opt_int(match.group(1)) if match else None


def user_blocks(content: list[Any], position: int, line: int, ts: datetime | None, task: Task) -> None:
    """The events of one user message's content blocks."""
    _UserMessage(position, line, ts, task).read(content)


class _UserMessage:
    def __init__(self, position: int, line: int, ts: datetime | None, task: Task) -> None:
        self.position = position
        self.line = line
        self.ts = ts
        self.task = task
        self.result: _OpenResult | None = None

    def read(self, content: list[Any]) -> None:
        for index, block in enumerate(content):
            bid = f"m{self.position}-{index}"
            btype = block.get("type") if isinstance(block, dict) else None
            if not isinstance(block, dict):
                self.close()
                self.task.emit(
                    bid, kind=Kind.UNKNOWN, timestamp=self.ts, title="Cline content block", raw=block, line=self.line
                )
            elif btype == "text":
                self._text(as_text(block.get("text")), bid)
            elif btype == "image":
                self._image(block, bid)
            elif btype == "tool_result":
                self.close()
                self._tool_result(block, bid)
            else:
                self.close()
                self.task.report(self.line, f"message {self.position}: unknown block type {btype!r}; shown as raw JSON")
                title = f"Cline block {btype!r}"
                self.task.emit(bid, kind=Kind.UNKNOWN, timestamp=self.ts, title=title, raw=block, line=self.line)
        self.close()

    def close(self, is_error: bool = False) -> None:
        """Emit the text-style result being collected, if any."""
        result = self.result
        if result is None:
            return
        text = "\n\n".join(t for t in result.texts if t)
        stripped = text.lstrip()
        is_error = is_error or stripped.startswith(_FAILED) or "The user denied this operation" in stripped[:200]
        self.task.emit(
            result.eid,
            kind=Kind.TOOL_RESULT,
            timestamp=self.ts,
            text=text,
            blocks=tuple(result.blocks),
            call_id=result.call_id,
            tool_name=None if result.call_id else result.name,
            is_error=is_error,
            exit_code=_exit_code(text) if result.name == "execute_command" else None,
            line=self.line,
            meta=result.meta,
        )
        self.result = None

    def _text(self, text: str, bid: str) -> None:
        head = _RESULT_HEAD.match(text[:4000])
        if head:
            self.close()
            name = head.group(1)
            call_id = self.task.take_call(name)
            subject = head.group(2).strip()
            meta = {"for": subject[4:].strip("'")} if subject.startswith("for ") and not call_id else {}
            self.result = _OpenResult(name, call_id, f"{bid}-result", [text[head.end() :].strip("\n")], [], meta)
            return
        stripped = text.lstrip()
        refused = _NOT_EXECUTED.match(stripped[:200])
        if stripped.startswith(_ENVIRONMENT):
            self.close()
            self._environment(stripped, bid)
        elif refused:
            self.close()
            name = refused.group(1)
            self.result = _OpenResult(name, self.task.take_call(name), f"{bid}-result", [stripped], [], {})
            self.close(is_error=True)
        elif self.result is not None:
            self._result_text(text, bid)
        else:
            _user_text(text, bid, self.line, self.ts, self.task)

    def _result_text(self, text: str, bid: str) -> None:
        """More text of a result; the user's words it quotes (feedback on a completion, an answer)
        are the user's turn, shown as such."""
        assert self.result is not None
        quoted = _QUOTED.search(text)
        if quoted is None:
            self.result.texts.append(text)
            return
        self.result.texts.append(text[: quoted.start()].strip())
        self.close()
        words = quoted.group(2).strip()
        if words:
            meta = {"tag": quoted.group(1)}
            self.task.emit(bid, kind=Kind.USER, timestamp=self.ts, text=words, line=self.line, meta=meta)

    def _environment(self, stripped: str, bid: str) -> None:
        inner = stripped[len(_ENVIRONMENT) :]
        inner = inner.split("</environment_details>", 1)[0].strip("\n")
        cwd = _CWD.search(inner)
        if cwd and not self.task.cwd:
            self.task.cwd = cwd.group(1).strip()
        blocks = (Block("text", text=inner),)
        self.task.emit(
            bid, kind=Kind.SYSTEM, timestamp=self.ts, title="Environment details", blocks=blocks, line=self.line
        )

    def _image(self, block: dict[str, Any], bid: str) -> None:
        if self.result is not None:
            self.result.blocks.append(image(block))
        else:
            self.task.emit(bid, kind=Kind.USER, timestamp=self.ts, blocks=(image(block),), line=self.line)

    def _tool_result(self, block: dict[str, Any], bid: str) -> None:
        """A ``tool_result`` block (the newer style), linked to its call by id."""
        call_id = text_of(block.get("tool_use_id"))
        inner = block.get("content")
        texts: list[str] = []
        blocks: list[Block] = []
        for item in inner if isinstance(inner, list) else [inner]:
            if isinstance(item, dict) and item.get("type") == "image":
                blocks.append(image(item))
            elif isinstance(item, dict) and item.get("type") == "text":
                texts.append(as_text(item.get("text")))
            elif item is not None:
                texts.append(as_text(item))
        if call_id:
            self.task.open_calls = [c for c in self.task.open_calls if c[1] != call_id]
        self.task.emit(
            f"{bid}-result",
            kind=Kind.TOOL_RESULT,
            timestamp=self.ts,
            text="\n\n".join(texts),
            blocks=tuple(blocks),
            call_id=call_id,
            is_error=bool(block.get("is_error")),
            line=self.line,
        )


def _user_text(text: str, bid: str, line: int, ts: datetime | None, task: Task) -> None:
    """The user's words, a notice Cline wrote in the user's turn, or a tagged answer or feedback."""
    stripped = text.strip()
    for prefix, title in _NOTICES:
        if stripped.startswith(prefix):
            task.emit(bid, kind=Kind.SYSTEM, timestamp=ts, title=title, text=stripped, line=line)
            return
    meta: dict[str, Any] = {}
    quoted = _QUOTED.search(stripped) if not stripped.startswith("<task>") else None
    if quoted:
        # Cline's framing ("New instructions for task continuation:") around the user's words
        framing = stripped[: quoted.start()].strip()
        meta = {"tag": quoted.group(1), **({"framed by": framing} if framing else {})}
        stripped = quoted.group(2).strip()
    elif stripped.startswith("<task>"):
        inner = stripped[len("<task>") :]
        end = inner.rfind("</task>")
        stripped = (inner[:end] if end >= 0 else inner).strip()
    if stripped:
        task.emit(bid, kind=Kind.USER, timestamp=ts, text=stripped, line=line, meta=meta)
