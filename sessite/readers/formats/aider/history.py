"""Aider's two other files: what the user typed, and what went to and came from the model, with times.

The chat transcript has no time but its runs' start; these files give the rest:

- ``.aider.input.history`` (prompt_toolkit's history): ``# <time>`` then the input, each
  line prefixed ``+``; one entry per input, across every run in the project;
- ``.aider.llm.history`` (``--llm-history-file``): ``TO LLM <time>`` then the whole prompt,
  ``LLM RESPONSE <time>`` then the reply, each line prefixed with its role.

A prompt takes the time of its typed input, a reply the time of the response that holds
the same text. Entries are records named by their header's line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from sessite.readers.base import parse_time

_INPUT = re.compile(r"^# (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?)\s*$")
_LLM = re.compile(r"^(TO LLM|LLM RESPONSE) (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\S*)\s*$")


@dataclass
class Entry:
    line: int
    time: datetime | None
    text: str
    kind: str  # "input", "prompt" or "reply"


def inputs(lines: list[str]) -> list[Entry]:
    """The typed inputs of ``.aider.input.history``, oldest first."""
    out: list[Entry] = []
    for number, line in enumerate(lines, 1):
        match = _INPUT.match(line)
        if match:
            out.append(Entry(number, parse_time(match.group(1)), "", "input"))
        elif line.startswith("+") and out:
            out[-1].text += ("\n" if out[-1].text else "") + line[1:]
    for entry in out:
        entry.text = entry.text.rstrip()
    return out


def exchanges(lines: list[str]) -> list[Entry]:
    """The prompts sent and the replies received in ``.aider.llm.history``, oldest first."""
    out: list[Entry] = []
    body: list[str] = []
    for number, line in enumerate(lines, 1):
        match = _LLM.match(line)
        if match:
            _close(out, body)
            kind = "prompt" if match.group(1) == "TO LLM" else "reply"
            out.append(Entry(number, parse_time(match.group(2)), "", kind))
        elif out:
            body.append(line)
    _close(out, body)
    return out


def _close(out: list[Entry], body: list[str]) -> None:
    if out and out[-1].kind == "reply":
        rows = [
            row[len("ASSISTANT ") :] if row.startswith("ASSISTANT ") else row.removeprefix("ASSISTANT") for row in body
        ]
        out[-1].text = "\n".join(rows).strip()
    body.clear()


def same_text(a: str, b: str) -> bool:
    """Two copies of one text, whatever their line ends and surrounding blanks."""
    return " ".join(a.split()) == " ".join(b.split())
