"""The Reader interface and the small helpers every reader shares.

A reader turns one path (a file or a directory it claims) into Sessions. It
never raises on bad input: it reports a Problem and keeps what it can; and
``Reader.read``, the one way in for every caller, turns a reader's own slip into
one problem line and makes each session sound (``finish``) before it goes on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sessite.model import Problems, Session, declare_injected_tags
from sessite.readers.entire import checkpoint_meta
from sessite.readers.files import decode_bytes
from sessite.readers.finish import with_sound_fields, with_unread_lines, without_surrogates
from sessite.readers.kept import is_kept, mark_dropped
from sessite.readers.merge import distinct_ids, merge_copies
from sessite.readers.platform import Platform
from sessite.readers.regular import open_regular
from sessite.readers.safejson import as_text as as_text  # readers import it from here
from sessite.readers.safejson import loads, scrub_text
from sessite.readers.skeleton import needs_skeleton, skeleton

# Bytes read to sniff a file's format; detect() must never read a whole file.
SNIFF_BYTES = 64 * 1024


_OBJECT_LINES = 20  # lines of a head parsed for the readers that look at records


class Sniff:
    """A path and the first bytes of its file, read at most once however many readers ask.

    Discovery makes one per path and hands it to every reader's ``detect``, so a file
    is opened once, not once per format.
    """

    __slots__ = ("path", "_raw", "_head", "_texts", "_is_dir", "_skeletal", "_objects", "_pending")

    def __init__(self, path: Path, skeletal: bool = False) -> None:
        self.path = path
        self._skeletal = skeletal
        self._raw: bytes | None = None
        self._head: bytes | None = None
        self._texts: dict[int, str] = {}
        self._objects: list[dict[str, Any] | None] | None = None  # the head's lines parsed so far, for every reader
        self._pending: Iterator[str] = iter(())  # the head's lines not parsed yet
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
                    with open_regular(self.path) as fh:
                        self._raw = fh.read(SNIFF_BYTES)
                except OSError:
                    pass
        return self._raw

    def text(self, size: int = SNIFF_BYTES) -> str:
        """The first ``size`` bytes as text (BOM stripped, errors replaced); of a skeletal
        sniff, of the head's skeleton."""
        if size not in self._texts:
            self._texts[size] = decode_bytes(self.head()[:size])[0]
        return self._texts[size]

    def head(self) -> bytes:
        """``raw``, or for a skeletal sniff the skeleton of the file's JSON head."""
        if self._head is None:
            self._head = self.raw()
            if self._skeletal:
                try:
                    with open_regular(self.path) as fh:
                        self._head = skeleton(fh, SNIFF_BYTES)
                except OSError:
                    pass
        return self._head

    def skeletal(self) -> Sniff | None:
        """This file sniffed through its head's skeleton (``skeleton.py``: the same keys, every
        string cut to 1 kB, nesting past 64 levels made null), or None when its head holds
        no bulk: discovery's look at a JSON file none recognised, in case one huge or deeply
        nested value near the top hid the keys that say what it is. Only then, since a
        skeleton costs a read of up to 16 MB."""
        raw = self.raw()
        if self._skeletal or len(raw) < SNIFF_BYTES or not needs_skeleton(raw):
            return None
        return Sniff(self.path, skeletal=True)

    def object_line(self, size: int = SNIFF_BYTES) -> tuple[str, str, dict[str, Any] | None] | None:
        """None unless the file starts with ``{``; else the sniffed head, its first line, and
        that line as an object (None when it does not parse: a pretty-printed document, or a
        line longer than the sniff)."""
        head = self.text(size).lstrip()
        if not head.startswith("{"):
            return None
        first = head.split("\n", 1)[0].strip()
        try:
            obj = loads(first)
        except ValueError:
            obj = None
        return head, first, obj if isinstance(obj, dict) else None

    def json_lines(self, count: int = _OBJECT_LINES) -> Iterator[dict[str, Any]]:
        """The first few parseable JSON object lines (a line cut by the sniff is left out).
        Every reader asks this of every file: each line is parsed once, as far as the
        readers ask, and the objects shared."""
        if self._objects is None:
            self._objects, self._pending = [], iter(self._head_lines())
        objects = self._objects
        while len(objects) < count:
            line = next(self._pending, None)
            if line is None:
                break
            try:
                obj = loads(line)
            except ValueError:
                obj = None
            objects.append(obj if isinstance(obj, dict) else None)
        return (obj for obj in objects[:count] if obj is not None)

    def _head_lines(self) -> list[str]:
        """The head's non-blank lines, stripped (the last one left out when the sniff probably cut it)."""
        text = self.text()
        lines = text.split("\n")
        if len(text) >= SNIFF_BYTES:
            lines = lines[:-1]  # the last one is probably cut
            if not any(line.strip() for line in lines):
                lines = self._lines_after_long_first()  # one value made the first line longer than the sniff
        return [stripped for line in lines if (stripped := line.strip())]

    def after_lines(self, count: int) -> Sniff | None:
        """This file sniffed from its ``count + 1``-th line on (None when it has no more lines):
        discovery's second look at a JSON-lines file whose first records are too damaged to
        say what format it is (a ``"type"`` of ``1e400``, a header nested 10,000 deep)."""
        try:
            with open_regular(self.path) as fh:
                for _ in range(count):
                    if not fh.readline(LONG_LINE_BYTES).endswith(b"\n"):
                        return None
                rest = fh.read(SNIFF_BYTES)
        except OSError:
            return None
        if not rest.strip():
            return None
        later = Sniff(self.path)
        later._raw, later._is_dir = rest, False
        return later

    def _lines_after_long_first(self) -> list[str]:
        """The complete lines in the ``SNIFF_BYTES`` after a first line longer than the sniff
        (its end is looked for up to ``LONG_LINE_BYTES`` in), so one huge value on the first
        line does not hide what the file is."""
        try:
            with open_regular(self.path) as fh:
                fh.seek(len(self.raw()))
                for _ in range(LONG_LINE_BYTES // _CHUNK):
                    chunk = fh.read(_CHUNK)
                    end = chunk.find(b"\n")
                    if end >= 0:
                        after = (chunk[end + 1 :] + fh.read(SNIFF_BYTES))[:SNIFF_BYTES]
                        lines = decode_bytes(after)[0].split("\n")
                        return lines[:-1] if len(after) >= SNIFF_BYTES else lines
                    if len(chunk) < _CHUNK:
                        return []
        except OSError:
            pass
        return []


LONG_LINE_BYTES = 64 * 1024 * 1024
_CHUNK = 1024 * 1024


# Blocks that IDE agents (Cline, Cursor, Copilot and others) put into a user's turn.
COMMON_INJECTED_TAGS = frozenset(
    {
        "environment_details",
        "attached_files",
        "external_links",
        "current_datetime",
        "custom_instruction",
        "reminder",
        "context",
    }
)
declare_injected_tags(COMMON_INJECTED_TAGS)


class Reader:
    """One per format. Stateless: path in, sessions out.

    Subclasses set ``name`` and implement ``detect`` and ``read_source``; the rest are defaults.
    """

    name: str = ""  # short format name, also used in session ids
    claims_directories: bool = False  # the format is a folder (sage project, Cline task, ...)
    claims_files: bool = False  # a folder reader that also reads single files
    # Hidden files or folders of this format that a walk of an archive enters (a project's
    # committed ``.crush/``, ``.aider.chat.history.md``); every other dot-name is skipped.
    dot_names: tuple[str, ...] = ()
    agent: str = ""  # the agent's name in ``sessite discover`` ("qwen-code"); "" when the reader declares no folders
    # Tags of the blocks this format's agent puts into a user's turn (context, not the user's words):
    # titles leave them out (``model.user_words``). Declared when the class is defined.
    injected_tags: frozenset[str] = COMMON_INJECTED_TAGS

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        declare_injected_tags(cls.injected_tags)

    def detect(self, sniff: Sniff) -> bool:
        """Cheap sniff: name pattern plus the first record(s); never the whole file."""
        raise NotImplementedError

    def detect_path(self, path: Path) -> bool:
        """``detect`` for one path, outside discovery."""
        return self.detect(Sniff(path))

    def read(self, path: Path, problems: Problems) -> Iterator[Session]:
        """Yield every session in ``path``; report bad input to ``problems``; never raise.

        Every caller reads through here: a reader bug costs the rest of its file (one
        problem line, never a traceback); a field of the wrong type (``title: true``) is
        made sound, and a session built from a file name that is not valid UTF-8 has its
        strings repaired (``finish``), before anything renders it.
        """
        odd_names = _has_odd_name(path) or any(_has_odd_name(p) for p in self._companions_or_none(path))
        try:
            for session in self.read_source(path, problems):
                session = with_unread_lines(with_sound_fields(session, problems, path), problems)
                yield without_surrogates(session) if odd_names else session
        except Exception as exc:  # noqa: BLE001 - a reader bug costs only the rest of its file
            problems.add(
                path, None, f"{self.name} reader failed ({type(exc).__name__}: {exc}); the rest of this file is skipped"
            )

    def read_group(self, paths: Sequence[Path], problems: Problems) -> Iterator[Session]:
        """``read`` for files discovery grouped by ``session_key`` (one path, usually): the
        sessions of several files with one id are merged event by event (``merge``); what only
        an earlier copy kept by ``sessite collect`` holds is marked as dropped (``kept``)."""
        meta = checkpoint_meta(paths[0])  # a transcript kept in an Entire checkpoint: what it says
        if len(paths) == 1:
            sessions: Iterable[Session] = distinct_ids(self.read(paths[0], problems), problems)
        else:
            reads = [list(self.read(p, problems)) for p in paths]
            sessions = merge_copies(reads, problems)
            kept = [r for p, r in zip(paths, reads) if is_kept(p)]
            if kept and len(kept) < len(reads):  # an earlier copy kept by ``sessite collect``: mark what it alone holds
                sessions = mark_dropped(sessions, [r for p, r in zip(paths, reads) if not is_kept(p)], kept)
        for session in sessions:
            yield replace(session, meta={**session.meta, **meta}) if meta else session

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        """The format's own reading: yield every session in ``path``; report bad input to ``problems``."""
        raise NotImplementedError

    def _companions_or_none(self, path: Path) -> list[Path]:
        try:
            return self.companions(path)
        except Exception:  # noqa: BLE001 - discovery already said why; reading goes on without them
            return []

    def companions(self, path: Path) -> list[Path]:
        """The other files a read of ``path`` consumes (sub-agent logs, a project's history),
        so discovery does not offer them again."""
        return []

    def holds_nothing(self, sniffed: Sniff) -> str | None:
        """Why ``sniffed``, a file no reader claimed, is this format's file with no conversation in
        it (bookkeeping records only), or None. Discovery says that instead of "not a recognised
        session format"."""
        return None

    def detect_records(self, sniffed: Sniff) -> bool:
        """Whether the body records in ``sniffed`` (a JSON-lines file seen from a later line,
        its header damaged) are this format's: discovery's second look. Off by default."""
        return False

    def default_folders(self, plat: Platform) -> list[Path]:
        """Where the agent keeps its sessions on Linux, macOS and Windows, derived only from
        ``plat`` (home, environment, system) so tests can point it at a fake home.

        Folders or files; ``sessite discover`` shows the ones that exist under ``agent``."""
        return []

    def discovery_roots(self, folder: Path) -> tuple[Path, ...]:
        """What discovery walks for one of ``default_folders`` that exists: only the parts
        that hold sessions (the folder itself, by default)."""
        return (folder,)

    def session_key(self, sniffed: Sniff) -> str | None:
        """The id of the session a file holds, when the first records tell it cheaply (None otherwise).

        Files that give the same key (successive snapshots of one session, a session
        copied by a checkpointing tool) are read together and merged record by record,
        so the fuller one is never dropped as a copy."""
        return None


def _has_odd_name(path: Path) -> bool:
    """A path that is not valid UTF-8 (Python keeps its bytes as lone surrogates)."""
    text = str(path)
    return not text.isascii() and scrub_text(text) != text


def sniff(path: Path, size: int = SNIFF_BYTES) -> str:
    """The first bytes of a file as text (BOM stripped, errors replaced)."""
    try:
        with open_regular(path) as fh:
            head = fh.read(size)
    except OSError:
        return ""
    return decode_bytes(head)[0]


def parse_time(value: Any) -> datetime | None:
    """Parse the timestamps formats use: ISO 8601 (with Z, with or without a
    colon in the offset, with micro/nanoseconds) or epoch seconds/milliseconds.
    Naive times are taken as UTC. Returns None for anything else, however odd
    (``"²"``, ``1e400``, NaN, a 5,000-digit number, the year 1 or 9999).
    """
    if value is None or value == "" or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return _from_epoch(value)
    if not isinstance(value, str):
        return None
    text = value.strip()
    if text.isascii() and text.isdigit():
        return _from_epoch(int(text)) if len(text) <= _EPOCH_DIGITS else None
    if len(text) > _ISO_MAX or not text.isascii():
        return None
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    text = _OFFSET_NO_COLON.sub(r"\1:\2", text)
    # Python 3.11 accepts at most 6 fractional digits.
    text = _FRACTION_TAIL.sub(r"\1", text)
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed if _in_range(parsed) else None


_OFFSET_NO_COLON = re.compile(r"([+-]\d{2})(\d{2})$")
_EPOCH_DIGITS = 20  # far beyond any epoch in milliseconds; int() of 5,000 digits raises
_ISO_MAX = 64  # no ISO timestamp is longer
_FRACTION_TAIL = re.compile(r"(\.\d{6})\d+")


def _from_epoch(value: float) -> datetime | None:
    try:
        seconds = value / 1000 if value > 1e11 else value
        parsed = datetime.fromtimestamp(seconds, tz=UTC)
    except (OverflowError, OSError, ValueError):  # 1e400, NaN, beyond the calendar
        return None
    return parsed if _in_range(parsed) else None


def _in_range(stamp: datetime) -> bool:
    """Not in the first or last year of the calendar, where moving to another UTC offset overflows."""
    return datetime.min.year < stamp.year < datetime.max.year
