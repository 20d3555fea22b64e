"""One diff per edit, drawn with line backgrounds and line numbers.

An edit can carry two diffs of the same change: one the reader made from the
call's input (old and new strings: few changed lines, but numbered from the
snippet's first line) and one from the tool's result (numbered in the file,
but sometimes a whole hunk removed and added again). The page shows one:
the result's when it is as tight as the call's, else the call's, moved to the
lines the result names. The other stays on the page, folded with the tool's
reply (``templates/_events.html``).

Lines are ``<span>`` blocks inside a ``<pre>``; numbers come from a ``data-n``
attribute drawn by CSS (``static/timeline.css``), so copying a diff copies its
lines without the gutter.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from markupsafe import Markup

from sessite.model import Event
from sessite.render.markup import escape_text

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")
_FILE_HEADERS = ("--- ", "+++ ", "diff ", "index ", "*** ", "new file", "deleted file", "similarity", "rename ")
LONG_LINES = 40  # a diff longer than this starts clipped, with a button to see all of it
MAX_DRAWN_LINES = 4000  # beyond this a diff is plain coloured text (markup per line would outweigh it)


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a diff: its mark (``+``, ``-``, `` ``, ``@`` for a hunk head, ``h`` a file head, ``\\``)."""

    mark: str
    text: str
    old: int | None = None
    new: int | None = None


def parse(diff: str) -> list[Line]:
    """A unified diff's lines with the old and new line number of each.

    A hunk ends when its head's line counts are used up, so the next file's heads
    are heads; a file's ``--- x`` and ``+++ x`` naming one file become one line, ``x``."""
    lines: list[Line] = []
    old = new = 0
    left_old = left_new = 0  # lines the current hunk still holds, per side
    for raw in diff.splitlines():
        head = _HUNK.match(raw)
        in_hunk = left_old > 0 or left_new > 0
        if head:
            old, new = int(head.group(1)), int(head.group(3))
            left_old = int(head.group(2)) if head.group(2) is not None else 1
            left_new = int(head.group(4)) if head.group(4) is not None else 1
            lines.append(Line("@", raw))
        elif not in_hunk and raw.startswith(_FILE_HEADERS):
            if raw.startswith("+++ ") and lines and lines[-1].text == "--- " + raw[4:]:
                lines[-1] = Line("h", raw[4:])
            else:
                lines.append(Line("h", raw))
        elif raw.startswith("+"):
            lines.append(Line("+", raw[1:], None, new if in_hunk else None))
            new, left_new = new + 1, left_new - 1
        elif raw.startswith("-"):
            lines.append(Line("-", raw[1:], old if in_hunk else None, None))
            old, left_old = old + 1, left_old - 1
        elif raw.startswith("\\"):
            lines.append(Line("\\", raw))
        elif in_hunk:
            lines.append(Line(" ", raw[1:] if raw.startswith(" ") else raw, old, new))
            old, new, left_old, left_new = old + 1, new + 1, left_old - 1, left_new - 1
        else:
            lines.append(Line("h", raw))  # words outside any hunk
    return lines


@lru_cache(maxsize=64)
def _parsed(diff: str) -> tuple[Line, ...]:
    """``parse``, remembered: a page asks for one edit's diff lines up to five times
    (choosing its diff, counting its lines, drawing it)."""
    return tuple(parse(diff))


@lru_cache(maxsize=64)
def changed(diff: str) -> tuple[int, int]:
    """Lines added and removed (file and hunk heads not counted)."""
    added = removed = 0
    for line in _parsed(diff):
        if line.mark == "+":
            added += 1
        elif line.mark == "-":
            removed += 1
    return added, removed


def _shifted(diff: str, anchor: str) -> str:
    """``diff`` (numbered from a snippet) renumbered to the file lines ``anchor`` (a diff of the
    same change, numbered in the file) gives its first old and new line; as it is when they
    cannot be found."""
    own = _parsed(diff)
    theirs = _parsed(anchor)
    shift_old = _offset([ln.old for ln in own], [ln.text for ln in own], [(t.old, t.text) for t in theirs])
    shift_new = _offset([ln.new for ln in own], [ln.text for ln in own], [(t.new, t.text) for t in theirs])
    either = shift_old if shift_old is not None else shift_new
    if either is None:
        return diff
    by_old = either if shift_old is None else shift_old
    by_new = either if shift_new is None else shift_new
    out: list[str] = []
    for raw in diff.splitlines():
        head = _HUNK.match(raw)
        if head:
            a, b, c, d, rest = head.groups()
            old_span = f"{int(a) + by_old}" + (f",{b}" if b is not None else "")
            new_span = f"{int(c) + by_new}" + (f",{d}" if d is not None else "")
            raw = f"@@ -{old_span} +{new_span} @@{rest}"
        out.append(raw)
    return "\n".join(out)


def _offset(numbers: list[int | None], texts: list[str], theirs: list[tuple[int | None, str]]) -> int | None:
    """How far one side's numbered lines move to sit where ``theirs`` has the same text:
    the first shift under which its first lines (up to five) all read as ``theirs`` does."""
    own = [(n, t) for n, t in zip(numbers, texts, strict=True) if n is not None][:5]
    their_text = {n: t for n, t in theirs if n is not None}
    if not own:
        return None
    first_number, first_text = own[0]
    for number, text in theirs:
        if number is None or text != first_text:
            continue
        shift = number - first_number
        if all(their_text.get(n + shift, t) == t for n, t in own):
            return shift
    return None


def edit_diffs(call: Event, results: Sequence[Event]) -> tuple[str | None, list[str]]:
    """The one diff an edit shows, and the others (kept, folded with the tool's reply).

    The result's diff wins when it changes no more lines than the call's (it is
    numbered in the file); otherwise the call's, renumbered from the result's.
    """
    theirs = [r.diff for r in results if r.diff]
    if not call.diff:
        return (theirs[0], theirs[1:]) if theirs else (None, [])
    if not theirs:
        return call.diff, []
    best = theirs[0]
    if sum(changed(best)) <= sum(changed(call.diff)):
        return best, [call.diff, *theirs[1:]]
    return _shifted(call.diff, best), theirs


_CLASS = {"+": "i", "-": "d", " ": "c", "@": "u", "h": "h", "\\": "x"}


def render(diff: str) -> Markup:
    """A diff as a ``<pre class="dv">`` of line blocks: ``i`` added, ``d`` removed, ``c`` context,
    ``u`` a hunk head; each numbered (old, new) in ``data-n``."""
    lines = _parsed(diff)
    if len(lines) > MAX_DRAWN_LINES:
        body = "".join(f'<span class="l {_CLASS[ln.mark]}">{escape_text(_mark(ln))}</span>' for ln in lines)
        return _folded(f'<pre class="dv plain">{body}</pre>', len(lines))
    width = max(
        (len(str(n)) for ln in lines for n in (ln.old, ln.new) if n is not None),
        default=1,
    )
    parts: list[str] = []
    for ln in lines:
        if ln.mark in ("@", "h", "\\"):
            parts.append(f'<span class="l {_CLASS[ln.mark]}">{escape_text(ln.text)}</span>')
            continue
        old = "" if ln.old is None else str(ln.old)
        new = "" if ln.new is None else str(ln.new)
        gutter = f"{old:>{width}} {new:>{width}}"
        parts.append(f'<span class="l {_CLASS[ln.mark]}" data-n="{gutter}">{escape_text(_mark(ln))}</span>')
    return _folded(f'<pre class="dv">{"".join(parts)}</pre>', len(lines))


def _folded(pre: str, lines: int) -> Markup:
    """A long diff starts clipped, with the button ``static/app.js`` shows to see all of it."""
    if lines <= LONG_LINES:
        return Markup(pre)
    button = f'<button type="button" class="expand" data-expand hidden>Show all {lines} lines</button>'
    return Markup(f'<div class="diff-box collapsible collapsed" data-collapsible>{pre}{button}</div>')


def _mark(line: Line) -> str:
    return line.text if line.mark in ("@", "h", "\\") else line.mark + line.text
