"""A second look at text whose secrets may be hidden by how they were written: a JSON
``\\u0041`` escape or an escaped slash inside a key, a shell line continuation
(backslash, newline) in the middle of one.

``NormalView`` is the text with those undone, and knows where each of its
characters came from, so a secret found in the view is replaced in the text
itself: everything outside the changed stretch stays exactly as written.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

# Escapes and continuations worth undoing; an escape only when it stands for a character keys are made of.
_HIDDEN = re.compile(r"\\\r?\n[ \t]*|\\u00([2-7][0-9a-fA-F])|\\/")
_MAY_HIDE = re.compile(r"\\(?:u00|\r?\n|/)")
_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-.:~&%")


def may_hide_secrets(text: str) -> bool:
    """Cheap first test: one pass that stops only at backslashes (after one memchr for the first)."""
    return "\\" in text and _MAY_HIDE.search(text) is not None


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
            if found[1] == "u":
                char = chr(int(match.group(1), 16))
                if char not in _KEY_CHARS:
                    continue
                found = char
            elif found == "\\/":
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
        """The text with the stretch where ``redacted_view`` differs from the view replaced by
        that stretch of ``redacted_view``."""
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
