"""Reading a session file's bytes safely: only inside the archive, never failing on bad bytes.

Every reader opens files through here. A file reached through a symlink that leads out of
the archive is not read (one problem line); undecodable bytes are replaced; JSON is decoded
by ``safejson``, so one hostile value (nested 100,000 deep, ``1e400``, ``"\\ud800"``) costs
that value, and a damaged line or array element costs only itself.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from sessite.model import Problems
from sessite.readers import ledger
from sessite.readers.limits import MAX_LINE_BYTES, MAX_RECORDS, MIB
from sessite.readers.regular import open_regular, read_regular
from sessite.readers.safejson import TooManyObjects, loads, raw_decode, too_many_brackets

# The most lines one JSON-lines file is read to. The longest real session logs we know hold
# a few thousand lines; a file of millions of tiny lines would otherwise hold every one of
# them as an event in memory at once (about 800 bytes each), so past this the rest of the
# file is counted, named in one problem line, and not read.
MAX_FILE_LINES = 250_000


def decode_bytes(data: bytes) -> tuple[str, bool]:
    """Decode a file's bytes: honour a BOM, prefer UTF-8, never fail.

    Returns the text and whether anything had to be replaced.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace"), False
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace"), True


def iter_jsonl(path: Path, problems: Problems) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for each good line; report each bad one.

    Streams the file line by line; a bad line, a non-object line, undecodable
    bytes or a truncated last line is one problem and the rest is kept. Lines past
    ``MAX_FILE_LINES`` are counted, not read (one problem line says how many).
    """
    fh = open_file(path, problems)
    if fh is None:
        return
    notes: list[str] = []
    with fh:
        first = True
        for lineno, raw in enumerate(_lines(fh), 1):
            if lineno > MAX_FILE_LINES:
                _beyond_limit(fh, path, lineno, problems)
                return
            if raw is None:
                problems.add(
                    path, lineno, f"a line longer than {MAX_LINE_BYTES // MIB} MB (the cap on one line); skipped"
                )
                continue
            if first:
                first = False
                if raw.startswith(b"\xef\xbb\xbf"):
                    raw = raw[3:]
                elif raw.startswith((b"\xff\xfe", b"\xfe\xff")):
                    problems.add(path, None, "file is UTF-16; expected UTF-8 JSON lines (skipped)")
                    return
            if not raw or raw.isspace():  # not raw.strip(), which copies every line
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                text = raw.decode("utf-8", errors="replace")
                problems.add(path, lineno, "invalid UTF-8; undecodable bytes replaced")
            try:
                obj = loads(text, notes)
            except ValueError as exc:
                what = "truncated JSON" if not raw.endswith(b"\n") else "malformed JSON"
                detail = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
                problems.add(path, lineno, f"{what} ({detail}); line skipped")
                continue
            if notes:
                report_notes(problems, path, lineno, notes)
            if not isinstance(obj, dict):
                problems.add(path, lineno, f"expected a JSON object, got {type(obj).__name__}; line skipped")
                continue
            yield lineno, obj


def _lines(fh: BinaryIO) -> Iterator[bytes | None]:
    """The file's lines, each read to at most ``MAX_LINE_BYTES``: a longer one is read on in
    chunks to its end and given as None (its bytes are never held)."""
    readline = fh.readline
    while raw := readline(MAX_LINE_BYTES + 1):
        if len(raw) <= MAX_LINE_BYTES or raw.endswith(b"\n"):
            yield raw
            continue
        del raw
        while (rest := readline(MIB)) and not rest.endswith(b"\n"):
            pass
        yield None


def _beyond_limit(fh: BinaryIO, path: Path, first: int, problems: Problems) -> None:
    """Count the lines from ``first`` on without decoding them: one problem line, and each
    line's fate for the fidelity ledger."""
    last = first + _count_lines(fh)
    problems.unread_lines[str(path)] = last - first + 1
    problems.add(
        path,
        first,
        f"{last - first + 1:,} more lines after the first {MAX_FILE_LINES:,} are not read "
        "(a file is read to at most that many lines, to keep memory bounded)",
    )
    if ledger.active():
        for line in range(first, last + 1):
            ledger.not_shown(path, line, f"beyond the first {MAX_FILE_LINES:,} lines of the file")


def _count_lines(fh: BinaryIO) -> int:
    """The lines left in ``fh``, counted a megabyte at a time (a huge line is never held)."""
    count, tail = 0, b"\n"
    while chunk := fh.read(MIB):
        count += chunk.count(b"\n")
        tail = chunk[-1:]
    return count + (tail != b"\n")


def open_file(path: Path, problems: Problems) -> BinaryIO | None:
    """The file opened for reading, or None (and a problem) when it cannot be opened or
    lies outside the archive (a symlink pointing out of it). The caller closes it."""
    if outside_archive(path, problems):
        return None
    try:
        return open_regular(path)
    except OSError as exc:
        problems.add(path, None, f"cannot open: {exc.strerror or exc}")
        return None


def read_bytes(path: Path, problems: Problems) -> bytes | None:
    """A whole file's bytes, or None (and a problem) when it cannot be read or lies outside the archive."""
    if outside_archive(path, problems):
        return None
    try:
        return read_regular(path)
    except OSError as exc:
        problems.add(path, None, f"cannot read: {exc.strerror or exc}")
        return None


def outside_archive(path: Path, problems: Problems, stage: str = "read") -> bool:
    """True (after one problem line) when ``path`` is in the archive's tree but resolves
    outside it: a symlink (to a file, or a folder on its way) pointing out of the archive.

    The archive is ``problems.root``; a symlinked root itself is fine, and so is a symlinked agent
    folder discovery followed (``problems.trusted``): a file is judged after it. Without a root
    (a reader used on its own) nothing is judged.
    """
    if problems.root is None:
        return False
    root = str(problems.root)
    if not _within(os.path.abspath(path), os.path.abspath(root)):
        return False  # not below the archive at all, so not a link out of it
    real = os.path.realpath(path)
    if _within(real, os.path.realpath(root)) or any(_within(real, folder) for folder in problems.trusted):
        return False
    what = "folder" if os.path.isdir(path) else "file"
    problems.add(path, None, f"symlink to a {what} outside the archive; not read", stage)
    return True


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def report_notes(problems: Problems, path: Path, line: int | None, notes: list[str]) -> None:
    """Report (and clear) the repairs ``safejson`` made to one value: one problem each."""
    for note in notes:
        problems.add(path, line, note)
    notes.clear()


def load_json(path: Path, problems: Problems) -> Any:
    """Load a whole JSON document, or report why not and return None."""
    data = read_bytes(path, problems)
    if data is None:
        return None
    text, replaced = decode_bytes(data)
    if replaced:
        problems.add(path, None, "invalid UTF-8; undecodable bytes replaced")
    notes: list[str] = []
    try:
        value = loads(text, notes)
    except ValueError as exc:
        problems.add(path, getattr(exc, "lineno", None), f"malformed JSON ({getattr(exc, 'msg', exc)})")
        return None
    report_notes(problems, path, None, notes)
    return value


def iter_json_array(path: Path, problems: Problems) -> Iterator[tuple[int, Any]]:
    """Yield (line, item) for each element of a top-level JSON array.

    Decodes element by element, so a truncated or damaged file still yields
    every element before the damage (and reports where it stopped).
    """
    data = read_bytes(path, problems)
    if data is None:
        return
    text, replaced = decode_bytes(data)
    del data
    if replaced:
        problems.add(path, None, "invalid UTF-8; undecodable bytes replaced")
    line, counted = 1, 0
    notes: list[str] = []
    heavy = too_many_brackets(text)  # then each element's objects are counted as it is decoded

    def line_at(pos: int) -> int:
        # Count newlines incrementally: recounting from 0 each time is quadratic.
        nonlocal line, counted
        line += text.count("\n", counted, pos)
        counted = pos
        return line

    pos = _skip_ws(text, 0)
    if pos >= len(text) or text[pos] != "[":
        problems.add(path, 1, "expected a JSON array")
        return
    pos = _skip_ws(text, pos + 1)
    if pos < len(text) and text[pos] == "]":
        return
    records = 0
    while pos < len(text):
        if records == MAX_RECORDS:
            problems.add(
                path,
                line_at(pos),
                f"more than {MAX_RECORDS:,} elements in the array (the cap on records per document); "
                "the rest is not read",
            )
            return
        records += 1
        try:
            item, end = raw_decode(text, pos, notes, counted=heavy)
        except TooManyObjects as exc:
            problems.add(path, line_at(pos), f"an element with {exc}; the rest of the file is skipped")
            return
        except ValueError:
            problems.add(path, line_at(pos), "truncated or malformed JSON; the rest of the file is skipped")
            return
        if notes:
            report_notes(problems, path, line_at(pos), notes)
        yield line_at(pos), item
        pos = _skip_ws(text, end)
        if pos < len(text) and text[pos] == ",":
            pos = _skip_ws(text, pos + 1)
        elif pos < len(text) and text[pos] == "]":
            return
        else:
            problems.add(path, line_at(pos), "truncated JSON array; the rest of the file is skipped")
            return
    problems.add(path, line_at(len(text)), "truncated JSON array (no closing bracket)")


_WS = re.compile(r"[ \t\r\n]*")


def _skip_ws(text: str, pos: int) -> int:
    return _WS.match(text, pos).end()  # type: ignore[union-attr]
