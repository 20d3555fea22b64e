"""The Reader interface and the small helpers every reader shares.

A reader turns one path (a file or a directory it claims) into Sessions. It
never raises on bad input: it reports a Problem and keeps what it can.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sitegen.model import Problems, Session

# Bytes read to sniff a file's format; detect() must never read a whole file.
SNIFF_BYTES = 64 * 1024


class Sniff:
    """A path and the first bytes of its file, read at most once however many readers ask.

    Discovery makes one per path and hands it to every reader's ``detect``, so a file
    is opened once, not once per format.
    """

    __slots__ = ("path", "_raw", "_texts", "_is_dir")

    def __init__(self, path: Path) -> None:
        self.path = path
        self._raw: bytes | None = None
        self._texts: dict[int, str] = {}
        self._is_dir: bool | None = None

    @property
    def is_dir(self) -> bool:
        if self._is_dir is None:
            self._is_dir = self.path.is_dir()
        return self._is_dir

    def raw(self) -> bytes:
        """The first ``SNIFF_BYTES`` of the file (empty for a folder or an unreadable file)."""
        if self._raw is None:
            self._raw = b""
            if not self.is_dir:
                try:
                    with open(self.path, "rb") as fh:
                        self._raw = fh.read(SNIFF_BYTES)
                except OSError:
                    pass
        return self._raw

    def text(self, size: int = SNIFF_BYTES) -> str:
        """The first ``size`` bytes as text (BOM stripped, errors replaced)."""
        if size not in self._texts:
            self._texts[size] = decode_bytes(self.raw()[:size])[0]
        return self._texts[size]

    def object_line(self, size: int = SNIFF_BYTES) -> tuple[str, str, dict[str, Any] | None] | None:
        """None unless the file starts with ``{``; else the sniffed head, its first line, and
        that line as an object (None when it does not parse: a pretty-printed document, or a
        line longer than the sniff)."""
        head = self.text(size).lstrip()
        if not head.startswith("{"):
            return None
        first = head.split("\n", 1)[0].strip()
        try:
            obj = json.loads(first)
        except ValueError:
            obj = None
        return head, first, obj if isinstance(obj, dict) else None

    def json_lines(self, count: int = 20) -> Iterator[dict[str, Any]]:
        """The first few parseable JSON object lines (a line cut by the sniff is left out)."""
        text = self.text()
        lines = text.split("\n")
        if len(text) >= SNIFF_BYTES:
            lines = lines[:-1]  # the last one is probably cut
        seen = 0
        for line in lines:
            line = line.strip()
            if not line:
                continue
            seen += 1
            if seen > count:
                return
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if isinstance(obj, dict):
                yield obj


class Reader:
    """One per format. Stateless: path in, sessions out.

    Subclasses set ``name`` and implement ``detect`` and ``read``; the rest are defaults.
    """

    name: str = ""  # short format name, also used in session ids
    claims_directories: bool = False  # the format is a folder (sage project, Cline task, ...)
    claims_files: bool = False  # a folder reader that also reads single files

    def detect(self, sniff: Sniff) -> bool:
        """Cheap sniff: name pattern plus the first record(s); never the whole file."""
        raise NotImplementedError

    def detect_path(self, path: Path) -> bool:
        """``detect`` for one path, outside discovery."""
        return self.detect(Sniff(path))

    def read(self, path: Path, problems: Problems) -> Iterator[Session]:
        """Yield every session in ``path``; report bad input to ``problems``."""
        raise NotImplementedError

    def companions(self, path: Path) -> list[Path]:
        """The other files a read of ``path`` consumes (sub-agent logs, a project's history),
        so discovery does not offer them again."""
        return []


def sniff(path: Path, size: int = SNIFF_BYTES) -> str:
    """The first bytes of a file as text (BOM stripped, errors replaced)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(size)
    except OSError:
        return ""
    return decode_bytes(head)[0]



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
    bytes or a truncated last line is one problem and the rest is kept.
    """
    try:
        fh = open(path, "rb")
    except OSError as exc:
        problems.add(path, None, f"cannot open: {exc.strerror or exc}")
        return
    with fh:
        first = True
        for lineno, raw in enumerate(fh, 1):
            if first:
                first = False
                if raw.startswith(b"\xef\xbb\xbf"):
                    raw = raw[3:]
                elif raw.startswith((b"\xff\xfe", b"\xfe\xff")):
                    problems.add(path, None, "file is UTF-16; expected UTF-8 JSON lines (skipped)")
                    return
            if not raw.strip():
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                text = raw.decode("utf-8", errors="replace")
                problems.add(path, lineno, "invalid UTF-8; undecodable bytes replaced")
            try:
                obj = json.loads(text)
            except ValueError as exc:
                what = "truncated JSON" if not raw.endswith(b"\n") else "malformed JSON"
                problems.add(path, lineno, f"{what} ({exc.msg}); line skipped")
                continue
            if not isinstance(obj, dict):
                problems.add(path, lineno, f"expected a JSON object, got {type(obj).__name__}; line skipped")
                continue
            yield lineno, obj


def load_json(path: Path, problems: Problems) -> Any:
    """Load a whole JSON document, or report why not and return None."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        problems.add(path, None, f"cannot read: {exc.strerror or exc}")
        return None
    text, replaced = decode_bytes(data)
    if replaced:
        problems.add(path, None, "invalid UTF-8; undecodable bytes replaced")
    try:
        return json.loads(text)
    except ValueError as exc:
        problems.add(path, getattr(exc, "lineno", None), f"malformed JSON ({getattr(exc, 'msg', exc)})")
        return None


def iter_json_array(path: Path, problems: Problems) -> Iterator[tuple[int, Any]]:
    """Yield (line, item) for each element of a top-level JSON array.

    Decodes element by element, so a truncated or damaged file still yields
    every element before the damage (and reports where it stopped).
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        problems.add(path, None, f"cannot read: {exc.strerror or exc}")
        return
    text, replaced = decode_bytes(data)
    del data
    if replaced:
        problems.add(path, None, "invalid UTF-8; undecodable bytes replaced")
    decoder = json.JSONDecoder()
    line, counted = 1, 0

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
    while pos < len(text):
        try:
            item, end = decoder.raw_decode(text, pos)
        except ValueError:
            problems.add(path, line_at(pos), "truncated or malformed JSON; the rest of the file is skipped")
            return
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


_OFFSET_NO_COLON = re.compile(r"([+-]\d{2})(\d{2})$")


def parse_time(value: Any) -> datetime | None:
    """Parse the timestamps formats use: ISO 8601 (with Z, with or without a
    colon in the offset, with micro/nanoseconds) or epoch seconds/milliseconds.
    Naive times are taken as UTC. Returns None for anything else.
    """
    if value is None or value == "" or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        seconds = value / 1000 if value > 1e11 else value
        try:
            return datetime.fromtimestamp(seconds, tz=UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str):
        return None
    text = value.strip()
    if text.isdigit():
        return parse_time(int(text))
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    text = _OFFSET_NO_COLON.sub(r"\1:\2", text)
    # Python 3.11 accepts at most 6 fractional digits.
    text = re.sub(r"(\.\d{6})\d+", r"\1", text)
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed


def as_text(value: Any) -> str:
    """Render any JSON value as display text (strings as-is, the rest as JSON)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=2)
