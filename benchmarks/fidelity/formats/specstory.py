"""SpecStory's markdown history, read straight from the text (independently of the reader).

``.specstory/history/*.md`` as SpecStory writes it (``Markdown v2``, and the Cursor
extension's older files): every role line (``_**User (<time>)**_``, ``_**Agent (<model>
<time>)**_``, ``_**Agent - sidechain (…)**_``, the older bare ``_**User**_`` and
``_**Assistant**_``) opens one record, outside code fences. A user's record holds what the
user typed (up to the next role line, ``---`` separators dropped). An agent's record holds
its prose: what is outside ``<think>…</think>`` and ``<tool-use …>…</tool-use>`` blocks.
SpecStory gives tool uses no ids, so no call is listed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from ..records import Record, read_text

_ROLE = re.compile(r"^_\*\*(User|Agent|Assistant)( - sidechain)?( \(.*\))?\*\*_\s*$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_BLOCKS = re.compile(r"<think>.*?</think>|<tool-use [^>]*>.*?</tool-use>", re.S)


def records(path: Path) -> Iterator[Record]:
    text = read_text(path)
    if text is None:
        return
    opened: list[tuple[int, str, list[str]]] = []
    fence = ""
    for number, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        if line.rstrip().endswith(("</tool-use>", "</think>")):
            fence = ""  # a block's unbalanced fence does not outlive the block
        elif fence:
            if line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                fence = ""
        elif opened and (m := _FENCE.match(line)):
            fence = m.group(1)
        elif m := _ROLE.match(line):
            opened.append((number, "user" if m.group(1) == "User" else "agent", []))
            continue
        if opened:
            opened[-1][2].append(line)
    for number, role, rows in opened:
        body = "\n".join(r for r in rows if r.strip() != "---").strip()
        if role == "user":
            yield Record(path, number, "user", user_texts=[body] if body else [])
        else:
            prose = [p.strip() for p in _BLOCKS.split(body) if p.strip()]
            yield Record(path, number, "agent", assistant_texts=prose)
