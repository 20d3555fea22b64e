"""A file-reading tool's result shown as the file it read: the agent's ``   12→`` prefixes
(Claude Code's Read, ``cat -n`` with an arrow) become a line-number gutter, and the lines are
highlighted by the language of the file's extension.

Only a result whose first line carries such a prefix changes; the lines after the numbered ones
(a ``<system-reminder>`` the agent appended) stay plain text below the file. Anything else is
left alone, so its HTML stays byte for byte what it was.
"""

from __future__ import annotations

import re

from markupsafe import Markup

from sessite.render.markup import escape_text, highlight_code

_NUMBERED = re.compile(r" *(\d+)→(.*)")  # one line as the tool wrote it: right-aligned number, arrow, text


def numbered(text: str) -> tuple[int, list[str], str] | None:
    """(first line number, the file's lines, what follows them) when ``text`` starts with
    consecutively numbered lines; None otherwise (the result is not a file's lines)."""
    lines = text.split("\n")
    first = _NUMBERED.fullmatch(lines[0])
    if first is None:
        return None
    start = int(first.group(1))
    body: list[str] = []
    for index, line in enumerate(lines):
        found = _NUMBERED.fullmatch(line)
        if found is None or int(found.group(1)) != start + index:
            rest = "\n".join(lines[index:])
            return start, body, rest
        body.append(found.group(2))
    return start, body, ""


def file_view(text: str, path: str | None) -> Markup | None:
    """The HTML of a Read result as a file (see the module), or None when it is not one."""
    found = numbered(text)
    if found is None:
        return None
    start, body, rest = found
    # the site's own lean highlighting (render.markup), and the numbers in a column of their own
    # beside it: not selected or copied with the code, and a few bytes a line
    code = highlight_code("\n".join(body), None, path or "")
    gutter = "\n".join(str(n) for n in range(start, start + len(body)))
    tail = f'<pre class="file-tail">{escape_text(rest.strip(chr(10)))}</pre>' if rest.strip() else ""
    numbers = f'<pre class="gutter" aria-hidden="true">{gutter}</pre>'
    return Markup(f'<div class="file-view" tabindex="0">{numbers}{code}</div>{tail}')  # tabindex: it scrolls sideways
