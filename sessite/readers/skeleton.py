"""The head of a JSON file with its bulk cut out, so one huge or hostile value near the top
cannot hide what format the file is.

Detection looks at a file's first ``SNIFF_BYTES``. A 100 kB string in a header's first
field, or a value nested 100,000 deep, fills that window before the keys that name the
format appear. The skeleton keeps the file's structure and keys, with every string cut to
``STRING_KEEP`` characters and every value nested past ``DEPTH_KEEP`` replaced by ``null``;
it stays valid JSON (or JSON lines: newlines between records are kept) and is read from
at most ``READ_LIMIT`` bytes of the file.
"""

from __future__ import annotations

import re
from typing import BinaryIO

STRING_KEEP = 1024  # characters of a string kept (more than any detector looks at)
DEPTH_KEEP = 64  # nesting kept: far deeper than any format's records need
READ_LIMIT = 16 * 1024 * 1024  # bytes of the file a skeleton may read

_SPECIAL = re.compile(rb'["\[\]{}]')
_STRING_BODY = re.compile(rb'(?:[^"\\]|\\.)*')
_OPEN = frozenset(b"[{")


def needs_skeleton(head: bytes) -> bool:
    """Whether the raw head holds a string longer than ``STRING_KEEP`` or nesting deeper than
    ``DEPTH_KEEP`` (a cheap test; most heads need nothing)."""
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not stripped.startswith((b"{", b"[")):
        return False
    if re.search(rb'"(?:[^"\\\n]|\\.){%d}' % STRING_KEEP, head):
        return True
    return _max_depth(head) > DEPTH_KEEP


def _max_depth(data: bytes) -> int:
    depth = deepest = 0
    for match in re.finditer(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]', data):
        token = match.group()
        if token[0] in _OPEN:
            depth += 1
            deepest = max(deepest, depth)
        elif token[0] != 0x22:
            depth -= 1
    return deepest


def skeleton(fh: BinaryIO, size: int) -> bytes:
    """Up to ``size`` bytes of skeleton read from ``fh`` (at its start)."""
    reader = _Reader(fh)
    out = bytearray()
    depth = 0
    i = 0
    while len(out) < size:
        match = reader.search(_SPECIAL, i)
        if match is None:
            out += reader.data[i:]
            break
        j = match.start()
        out += reader.data[i:j]
        token = reader.data[j]
        if token == 0x22:  # a string
            i = _copy_string(reader, j, out)
        elif token in _OPEN:
            if depth >= DEPTH_KEEP:
                out += b"null"
                i = _skip_value(reader, j)
            else:
                depth += 1
                out.append(token)
                i = j + 1
        else:
            depth = max(0, depth - 1)
            out.append(token)
            i = j + 1
        if i < 0:
            break
    return bytes(out[:size])


class _Reader:
    """The file's bytes read on demand, never more than ``READ_LIMIT``."""

    def __init__(self, fh: BinaryIO) -> None:
        self.fh = fh
        self.data = bytearray()
        self.eof = False

    def more(self) -> bool:
        if self.eof or len(self.data) >= READ_LIMIT:
            return False
        chunk = self.fh.read(256 * 1024)
        if not chunk:
            self.eof = True
            return False
        self.data += chunk  # a bytearray grows in place
        return True

    def search(self, pattern: re.Pattern[bytes], start: int) -> re.Match[bytes] | None:
        while True:
            match = pattern.search(self.data, start)
            if match is not None or not self.more():
                return match


def _string_end(reader: _Reader, start: int) -> int:
    """The position of the quote closing the string at ``start``, or -1 when the file (or the
    read limit) ends inside it. Each chunk is scanned once: a match stops only at a quote or
    at a backslash the chunk cut, where the next scan resumes."""
    position = start + 1
    while True:
        body = _STRING_BODY.match(reader.data, position)
        position = body.end() if body else position
        if position < len(reader.data) and reader.data[position] == 0x22:
            return position
        if not reader.more():
            return -1


def _copy_string(reader: _Reader, start: int, out: bytearray) -> int:
    """Copy the string at ``start`` (cut to ``STRING_KEEP`` characters, still closed); the
    position after it, or -1 when the file (or the read limit) ends inside it."""
    end = _string_end(reader, start)
    text = bytes(reader.data[start + 1 : end if end >= 0 else len(reader.data)])
    if len(text) > STRING_KEEP:
        text = text[:STRING_KEEP]
        text = text[: len(text) - (len(text) - len(text.rstrip(b"\\"))) % 2]  # no escape cut in half
    out += b'"' + text + b'"'
    return end + 1 if end >= 0 else -1


def _skip_value(reader: _Reader, start: int) -> int:
    """The position after the array or object at ``start`` (strings inside skipped whole), or
    -1 when the file (or the read limit) ends first."""
    depth = 0
    i = start
    while True:
        match = reader.search(_SPECIAL, i)
        if match is None:
            return -1
        j = match.start()
        token = reader.data[j]
        if token == 0x22:
            end = _string_end(reader, j)
            if end < 0:
                return -1
            i = end + 1
            continue
        depth += 1 if token in _OPEN else -1
        i = j + 1
        if depth == 0:
            return i
