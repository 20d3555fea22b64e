"""Aider's files, read straight from the text (independently of the reader).

``.aider.chat.history.md`` is written by aider's ``InputOutput.append_chat_history``:

- ``# aider chat started at <time>``: a run begins (one record);
- ``#### <line>  ``: the user's input, one such line per input line, each ending in two
  spaces; consecutive ones are one input (one record, named by its first line);
- ``> <text>  ``: aider's own message; it ends in two spaces, and only its first line has
  the ``> `` (a message of several lines runs to the first line that ends in two spaces,
  unless another mark comes first: then the ``> `` line is a quotation in a reply);
- anything else, between those marks, is the model's reply (one record, named by its
  first non-blank line).

``.aider.input.history``: one record per ``# <time>`` entry. ``.aider.llm.history``: one
record per ``TO LLM <time>`` and ``LLM RESPONSE <time>`` block. Their texts repeat the
transcript's, so they add no texts of their own.

What a faithful page must show: each input's text; each reply's prose, taken as the
stretches outside code fences, SEARCH/REPLACE blocks and ``<think>`` reasoning (a one-word
line right before a fence or a block is the file name aider's edit formats put there). Aider
gives calls no ids, so no call is listed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from ..records import Record

_HEADER = re.compile(r"^# aider chat started at \d{4}-")
_THINK = re.compile(r"<(think|thinking|reasoning|thinking-content-[0-9a-f]+)>.*?</\1>", re.S)
_INPUT = re.compile(r"^# \d{4}-\d\d-\d\d \d\d:\d\d:\d\d")
_LLM = re.compile(r"^(TO LLM|LLM RESPONSE) \d{4}-")


def records(path: Path) -> Iterator[Record]:
    try:
        lines = [line.rstrip("\r") for line in path.read_bytes().decode("utf-8", "replace").split("\n")]
    except OSError:
        return
    if path.name.endswith(".input.history"):
        yield from (Record(path, n, "input") for n, line in enumerate(lines, 1) if _INPUT.match(line))
    elif path.name.endswith(".llm.history"):
        yield from (Record(path, n, m.group(1)) for n, line in enumerate(lines, 1) if (m := _LLM.match(line)))
    else:
        yield from _transcript(path, lines)


def _user(line: str) -> bool:
    return line.startswith("####") and not line.startswith("#####") and line.endswith("  ")


def _quote(line: str) -> bool:
    return line.startswith("> ") or line.rstrip() == ">"


def _transcript(path: Path, lines: list[str]) -> Iterator[Record]:
    index = 0
    reply: list[str] = []
    reply_at = 0
    while index < len(lines):
        line = lines[index]
        end = None
        if _quote(line):
            end = _message_end(lines, index)
        if _HEADER.match(line) or _user(line) or end is not None:
            if any(r.strip() for r in reply):
                yield _reply(path, reply_at, reply)
            reply = []
        if _HEADER.match(line):
            yield Record(path, index + 1, "run")
            index += 1
        elif _user(line):
            start = index
            while index < len(lines) and _user(lines[index]):
                index += 1
            text = "\n".join(row[4:].strip() for row in lines[start:index]).strip()
            yield Record(path, start + 1, "input", user_texts=[text] if text else [])
        elif end is not None:
            yield Record(path, index + 1, "aider")
            index = end + 1
        else:
            if line.strip() and not any(r.strip() for r in reply):
                reply, reply_at = [], index + 1
            reply.append(line)
            index += 1
    if any(r.strip() for r in reply):
        yield _reply(path, reply_at, reply)


def _message_end(lines: list[str], start: int) -> int | None:
    if lines[start].endswith("  ") or lines[start].rstrip() == ">":
        return start
    for index in range(start + 1, len(lines)):
        line = lines[index]
        if _quote(line) or _user(line) or _HEADER.match(line):
            return None
        if line.endswith("  "):
            return index
    return None


def _reply(path: Path, line: int, rows: list[str]) -> Record:
    """A reply's prose: its stretches outside fences, SEARCH/REPLACE blocks and reasoning."""
    text = _THINK.sub("", "\n".join(rows))
    prose: list[str] = []
    current: list[str] = []
    fence = ""
    in_block = False
    for row in text.split("\n"):
        stripped = row.strip()
        opening = re.match(r"^(`{3,}|~{3,})", stripped)
        if fence:
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                fence = ""
            continue
        if in_block:
            in_block = not re.match(r"^>{5,9} REPLACE", stripped)
            continue
        if opening or re.match(r"^<{5,9} SEARCH", stripped):
            if current and current[-1].strip() and not any(c.isspace() for c in current[-1].strip()):
                current.pop()  # the file's name aider's edit formats put right before the block
            prose.append("\n".join(current))
            current = []
            fence = opening.group(1) if opening else ""
            in_block = not opening
            continue
        current.append(row)
    prose.append("\n".join(current))
    return Record(path, line, "reply", assistant_texts=[p.strip() for p in prose if p.strip()])
