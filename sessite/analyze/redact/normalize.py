"""A second look at text whose secrets may be hidden by how they were written: a JSON
``\\u0041`` escape or an escaped slash inside a key (once or twice escaped: tool output
that is itself a JSON string), a shell line continuation (backslash, newline; or its
escaped spellings) in the middle of one, an invisible character (zero-width space or
joiner, soft hyphen, word joiner) inside one.

``NormalView`` is the text with those undone, and knows where each of its
characters came from, so a secret found in the view is replaced in the text
itself: everything outside the stretches replaced stays exactly as written.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from sessite.analyze.redact.markers import MARKER, hole_spans

# Escapes and continuations worth undoing; an escape only when it stands for a character keys are made of.
# A continuation escaped in JSON is three backslashes and n (the backslash, then the newline), or more.
_HIDDEN = re.compile(
    r"\\\r?\n[ \t]*|\\{3,}n(?:[ \t]|\\+t)*|\\+u00([2-7][0-9a-fA-F])|\\+/|[\u200b-\u200d\u2060\ufeff\u00ad]"
)
_MAY_HIDE = re.compile(r"\\(?:u00|\r?\n|/|\\)")
_INVISIBLE = (
    "\u200b\u200c\u200d\u2060\ufeff\u00ad"  # zero-width space, non-joiner, joiner; word joiner; BOM; soft hyphen
)
_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-.:~&%")


def may_hide_secrets(text: str) -> bool:
    """Cheap first test: one pass that stops only at backslashes (after one memchr for the first),
    and for text that is not all ASCII (one C pass) a look for each invisible character (a
    substring search each: ten times faster than one character class on page-sized text)."""
    if "\\" in text and _MAY_HIDE.search(text) is not None:
        return True
    return not text.isascii() and any(char in text for char in _INVISIBLE)


@dataclass(frozen=True)
class NormalView:
    """``text`` as it reads with escapes and continuations undone. ``pieces`` holds, for each undone
    stretch, (start in text, end in text, start in view, length in view)."""

    text: str
    view: str
    pieces: tuple[tuple[int, int, int, int], ...]

    @classmethod
    def of(cls, text: str) -> NormalView | None:
        out: list[str] = []
        pieces: list[tuple[int, int, int, int]] = []
        last = 0
        size = 0
        for match in _HIDDEN.finditer(text):
            found = match.group(0)
            if match.group(1) is not None:
                char = chr(int(match.group(1), 16))
                if char not in _KEY_CHARS:
                    continue
                found = char
            elif found.endswith("/"):
                found = "/"
            else:
                found = ""
            out.append(text[last : match.start()])
            size += match.start() - last
            pieces.append((match.start(), match.end(), size, len(found)))
            out.append(found)
            size += len(found)
            last = match.end()
        if not pieces:
            return None
        out.append(text[last:])
        return cls(text, "".join(out), tuple(pieces))

    def _piece_before(self, index: int) -> int:
        """The last piece whose view start is at or before ``index`` (-1: none)."""
        return bisect_right(self.pieces, index, key=lambda piece: piece[2]) - 1

    def start_in_text(self, index: int) -> int:
        """Where the view's character ``index`` starts in the text."""
        k = self._piece_before(index)
        if k < 0:
            return index
        start, end, view_start, length = self.pieces[k]
        if index < view_start + length:
            return start
        return end + index - view_start - length

    def end_in_text(self, index: int) -> int:
        """Where the view's stretch ending (exclusive) at ``index`` ends in the text."""
        if index <= 0:
            return 0
        k = self._piece_before(index - 1)
        if k >= 0:
            start, end, view_start, length = self.pieces[k]
            if index - 1 < view_start + length:
                return end
        return self.start_in_text(index - 1) + 1

    def splice(self, redacted_view: str) -> str:
        """The text with each stretch the redaction of the view replaced (by a marker) replaced
        there too; the rest of the text as written."""
        pieces = MARKER.split(redacted_view)  # literal, kind, literal, kind, …, literal
        spans = hole_spans(self.view, pieces[::2]) if len(pieces) > 1 else None
        if spans is None:
            return self._splice_stretch(redacted_view)
        out: list[str] = []
        last = 0
        for (start, end), kind in zip(spans, pieces[1::2]):
            start, end = self.start_in_text(start), self.end_in_text(end)
            if start < last:
                return self._splice_stretch(redacted_view)
            out.append(self.text[last:start])
            out.append(f"[REDACTED:{kind}]")
            last = end
        out.append(self.text[last:])
        return "".join(out)

    def _splice_stretch(self, redacted_view: str) -> str:
        """The text with the one stretch from the first difference to the last replaced by that
        stretch of ``redacted_view`` (when the markers cannot be lined up one by one)."""
        view = self.view
        head = _common_prefix(view, redacted_view)
        limit = min(len(view), len(redacted_view)) - head
        tail = _common_prefix(view[::-1][:limit], redacted_view[::-1][:limit])
        start = self.start_in_text(head)
        end = self.end_in_text(len(view) - tail)
        return self.text[:start] + redacted_view[head : len(redacted_view) - tail] + self.text[end:]


def _common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix (halving, so the comparing is done in C)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[low:mid] == b[low:mid]:
            low = mid
        else:
            high = mid - 1
    return low
