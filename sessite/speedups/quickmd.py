"""The markdown most messages use, rendered without mistune, with mistune's bytes.

A message is mostly prose with `code`, **bold**, ``#`` headings, ``-`` lists, pipe
tables and fenced code blocks, each block apart from the next by a blank line. Such a text
is drawn here as mistune draws it (``markup._SafeRenderer``); anything else (a
character or a line start this grammar does not know) returns None and goes to
mistune. The grammar is kept narrow on purpose: each rule below is one that
CommonMark and mistune agree on, and tests/speedups/test_quickmd.py compares the two on
every message of the test data and the benchmark archives.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# Words and sentence punctuation; `code` and **bold** are matched before these are checked.
_PROSE = re.compile(r"[A-Za-z0-9,.;:?!'\"()# ]*")
_CODE = re.compile(r"(?<!`)`([^`\n ][^`\n]*[^`\n ]|[^`\n ])`(?!`)")  # one backtick each side, not a run
_BOLD = re.compile(r"(?<![^ (])\*\*([A-Za-z0-9][A-Za-z0-9 ]*[A-Za-z0-9]|[A-Za-z0-9])\*\*(?=[ ,.;:?!)]|$)")
_HEADING = re.compile(r"(#{1,6}) ([^ ](?:.*[^ #])?)")
_FENCE = re.compile(r"```([A-Za-z0-9_+-]*)")
_RULE = re.compile(r"-+")  # a table's rule cell, unaligned
_FENCE_LIKE = re.compile(r" {0,3}(```|~~~)")
# A line that would start a block of its own, or continue one, inside a paragraph or list item.
_BLOCK_START = re.compile(r"[-+*](?: |$)|[-_=>#|~ \t]|\*\*\*|[0-9]+[.)]|```")

Code = Callable[[str, str | None], str]  # block_code(code, info): what a fenced block becomes


def render(text: str, block_code: Code) -> str | None:
    """``text`` as mistune's HTML, or None when it uses markdown beyond this grammar."""
    if "\r" in text or "\x00" in text:
        return None
    out: list[str] = []
    lines = text.split("\n")
    i, n = 0, len(lines)
    last = ""  # the kind of the block before: two lists apart by a blank line are one loose list
    while i < n:
        line = lines[i]
        if not line:
            i += 1
            continue
        fence = _FENCE.fullmatch(line)
        end = _block_end(lines, i) if fence is None else _fence_end(lines, i)
        if end is None:
            return None
        block = lines[i:end]
        if fence is not None:
            code = "".join(ln + "\n" for ln in block[1:])
            out.append(block_code(code, fence.group(1) or None))
            kind = "code"
        else:
            kind, html = _block(block)
            if html is None or (kind == "list" and last == "list"):
                return None
            out.append(html)
        last = kind
        i = end + 1 if fence is not None else end
        if fence is not None and i < n and lines[i]:
            return None  # a block right after a fence: keep to blank-line-apart blocks
    return "".join(out)


def _block_end(lines: list[str], start: int) -> int | None:
    """Where a block of text lines ends (the next blank line or the end)."""
    end = start
    while end < len(lines) and lines[end]:
        end += 1
    return end


def _fence_end(lines: list[str], start: int) -> int | None:
    """The closing fence's line of the fence opened at ``start`` (None when unclosed or unclear)."""
    for end in range(start + 1, len(lines)):
        line = lines[end]
        if line == "```":
            return end
        if _FENCE_LIKE.match(line):
            return None  # a fence-like line inside: mistune's rules, not ours
    return None


def _block(block: list[str]) -> tuple[str, str | None]:
    """A heading, a tight list or a paragraph as HTML (None when it is something else)."""
    first = block[0]
    if first.startswith("#"):
        head = _HEADING.fullmatch(first)
        if head is None or len(block) > 1:
            return "heading", None
        inline = _inline(head.group(2))
        level = min(len(head.group(1)) + 1, 6)  # below the page's own h1, as markup._SafeRenderer.heading
        return "heading", None if inline is None else f"<h{level}>{inline}</h{level}>\n"
    if first.startswith("- "):
        items = []
        for line in block:
            item = _inline(line[2:]) if line.startswith("- ") and not _BLOCK_START.match(line[2:]) else None
            if not item:
                return "list", None
            items.append(f"<li>{item}</li>\n")
        return "list", "<ul>\n" + "".join(items) + "</ul>\n"
    if first.startswith("|"):
        return "table", _table(block)
    if any(_BLOCK_START.match(line) or line.endswith(" ") for line in block):
        return "paragraph", None
    inline = _inline("\n".join(block))
    return "paragraph", None if inline is None else f"<p>{inline}</p>\n"


def _table(block: list[str]) -> str | None:
    """A pipe table with a plain ``|---|---|`` rule and rows as wide as its head (mistune's table plugin)."""
    rows = [cells for cells in map(_cells, block) if cells is not None]
    if len(rows) != len(block) or len(rows) < 3 or not all(_RULE.fullmatch(c) for c in rows[1]):
        return None
    if any(len(row) != len(rows[0]) for row in rows):
        return None
    head = _row(rows[0], "th")
    body = [html for html in (_row(row, "td") for row in rows[2:]) if html is not None]
    if head is None or len(body) != len(rows) - 2:
        return None
    return f"<table>\n<thead>\n{head}</thead>\n<tbody>\n{''.join(body)}</tbody>\n</table>\n"


def _cells(line: str) -> list[str] | None:
    """A ``| a | b |`` row's cells, stripped (None when it is not such a row)."""
    if len(line) < 2 or not line.startswith("|") or not line.endswith("|") or "\\" in line:
        return None
    return [cell.strip(" ") for cell in line[1:-1].split("|")]


def _row(cells: list[str], tag: str) -> str | None:
    inline = [_inline(cell) for cell in cells]
    if not all(inline):  # an empty cell, or one with more than this grammar
        return None
    return "<tr>\n" + "".join(f"  <{tag}>{html}</{tag}>\n" for html in inline) + "</tr>\n"


def _inline(text: str) -> str | None:
    """Prose with `code` and **bold** as HTML, None when anything else is in it."""
    if text.endswith(" "):
        return None
    out: list[str] = []
    pos = 0
    for m in _CODE.finditer(text):
        prose = _prose(text[pos : m.start()])
        if prose is None:
            return None
        code = m.group(1).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
        out.append(f"{prose}<code>{code}</code>")
        pos = m.end()
    prose = _prose(text[pos:])
    if prose is None:
        return None
    out.append(prose)
    return "".join(out)


def _prose(text: str) -> str | None:
    """Words with **bold**, escaped as mistune escapes text (only quotes occur here)."""
    plain = _BOLD.sub(r"<strong>\1</strong>", text)
    rest = plain.replace("<strong>", "").replace("</strong>", "")
    if not _PROSE.fullmatch(rest.replace("\n", " ")) or "  " in rest:
        return None
    return plain.replace('"', "&quot;")
