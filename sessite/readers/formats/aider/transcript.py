"""``.aider.chat.history.md`` cut into its records: run headers, prompts, aider's messages, replies.

Aider appends to this file as it goes, and each kind of text has its own mark:

- ``# aider chat started at <time>`` starts a run;
- a prompt is ``#### <line>`` per line, every line ending in two spaces (a Markdown line break);
- aider's own messages (tool output, questions and answers, warnings) start with ``> `` and
  end in two spaces; a message of several lines has ``> `` on its first line only;
- the model's reply is written as it is, between blank lines.

So a line ``> …`` without the closing two spaces is the first of a message of several lines
only when a line with them follows before any other mark; otherwise it is a quotation in
a reply. Each record is named by its first line (1-based).
"""

from __future__ import annotations

from dataclasses import dataclass

from sessite.readers.formats.aider.vocabulary import RUN_HEADER

HEADER, USER, TOOL, REPLY = "header", "user", "tool", "reply"


@dataclass(frozen=True)
class Chunk:
    kind: str  # HEADER, USER, TOOL or REPLY
    line: int  # its first line, 1-based
    text: str


def _is_user(line: str) -> bool:
    return line.startswith("####") and not line.startswith("#####") and line.endswith("  ")


def _is_tool(line: str) -> bool:
    return line.startswith("> ") or line.rstrip() == ">"


def _tool_end(lines: list[str], start: int) -> int | None:
    """The last line of the aider message starting at ``start``, None when it is a quotation."""
    first = lines[start]
    if first.endswith("  ") or first.rstrip() == ">":
        return start
    for index in range(start + 1, len(lines)):
        line = lines[index]
        if _is_tool(line) or _is_user(line) or RUN_HEADER.match(line):
            return None
        if line.endswith("  "):
            return index
    return None


def chunks(lines: list[str]) -> list[Chunk]:
    """Every record of the transcript, in order."""
    out: list[Chunk] = []
    reply: list[str] = []
    reply_line = 0
    index = 0

    def flush() -> None:
        nonlocal reply
        while reply and not reply[-1].strip():
            reply.pop()
        if reply:
            out.append(Chunk(REPLY, reply_line, "\n".join(reply)))
        reply = []

    while index < len(lines):
        line = lines[index]
        if RUN_HEADER.match(line):
            flush()
            out.append(Chunk(HEADER, index + 1, line.strip()))
            index += 1
            continue
        if _is_user(line):
            flush()
            start = index
            while index < len(lines) and _is_user(lines[index]):
                index += 1
            text = "\n".join(row[5:].rstrip() if row.startswith("#### ") else "" for row in lines[start:index])
            out.append(Chunk(USER, start + 1, text.strip("\n")))
            continue
        end = _tool_end(lines, index) if _is_tool(line) else None
        if end is not None:
            flush()
            rows = [line[2:], *lines[index + 1 : end + 1]]
            out.append(Chunk(TOOL, index + 1, "\n".join(rows).rstrip()))
            index = end + 1
            continue
        if reply or line.strip():
            if not reply:
                reply_line = index + 1
            reply.append(line)
        index += 1
    flush()
    return out


def runs(all_chunks: list[Chunk]) -> list[list[Chunk]]:
    """The chunks of each run (a run header and what follows it; what comes before the first header is a run too)."""
    out: list[list[Chunk]] = []
    for chunk in all_chunks:
        if chunk.kind == HEADER or not out:
            out.append([])
        out[-1].append(chunk)
    return out
