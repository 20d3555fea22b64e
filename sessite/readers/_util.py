"""Small helpers every reader may share.

Not a reader (it is not a format): event-id bookkeeping, defensive
field access, unified diffs, and read-only SQLite access that never touches a
running agent's database.
"""

from __future__ import annotations

import difflib
import math
import sqlite3
from collections.abc import Collection, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

from sessite.model import cut_words, one_line
from sessite.readers.files import decode_bytes
from sessite.readers.regular import open_regular
from sessite.readers.safejson import loads
from sessite.readers.sqlite_guard import GuardedConnection, guard, named_error

SQLITE_HEADER = b"SQLite format 3\x00"
# Beyond this many lines a diff is written as plain removal + addition (difflib is quadratic).
_DIFF_MAX_LINES = 4000


class Ids:
    """Hands out event ids unique within one session (``base``, then ``base-2``, ``base-3`` …).

    ``sep`` joins a repeated base and its count; a format keeps the one its
    permalinks have always used.
    """

    def __init__(self, sep: str = "-") -> None:
        self.used: set[str] = set()
        self.sep = sep
        # A repeated base -> the count to try next: every lower one is taken, and stays taken,
        # so 40,000 events sharing one base cost 40,000 steps, not 40,000² / 2.
        self._next: dict[str, int] = {}

    def take(self, base: str) -> str:
        """``base``, or ``base-N`` with the smallest N (from 2) not yet taken."""
        base = base or "e"
        if base not in self.used:
            self.used.add(base)
            return base
        n = self._next.get(base, 2)
        while (taken := f"{base}{self.sep}{n}") in self.used:
            n += 1
        self.used.add(taken)
        self._next[base] = n + 1
        return taken


def to_int(value: Any) -> int:
    """A count from a JSON value (0 for anything that is not a number, or not a sane one:
    NaN, infinities, beyond ±2**63, "²")."""
    if isinstance(value, float):
        value = int(value) if math.isfinite(value) else None
    elif isinstance(value, str) and value.strip().startswith("-"):
        return 0  # a count written as text is never negative
    number = opt_int(value)
    return 0 if number is None else number


def opt_int(value: Any) -> int | None:
    """A whole number from a JSON value, or None (unlike ``to_int``, a missing count is not 0).

    Numbers beyond ±2**63 are None too: no count is that big, and sums of them would
    overflow what pages, exports and SQLite can hold.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, float):
        value = int(value) if value.is_integer() else None  # NaN and infinities are not integers
    elif isinstance(value, str):
        text = value.strip()
        digits = text[1:] if text.startswith("-") else text
        value = int(text) if digits.isascii() and digits.isdigit() and len(digits) <= _INT_DIGITS else None
    if isinstance(value, int) and -_INT_LIMIT < value < _INT_LIMIT:
        return value
    return None


def to_float(value: Any) -> float | None:
    """A finite amount (a cost, a duration) from a JSON number, else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:  # an int beyond the double range
        return None
    return number if math.isfinite(number) else None


_INT_LIMIT = 2**63
_INT_DIGITS = 19


def shown(value: Any, limit: int = 60) -> str:
    """A value quoted in a problem or a title: its repr, cut to a readable length."""
    return cut_words(repr(value), limit)


def text_of(value: Any) -> str | None:
    """A non-empty string, else None."""
    return value if isinstance(value, str) and value else None


def obj(value: Any) -> dict[str, Any]:
    """The value if it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def array(value: Any) -> list[Any]:
    """The value if it is a JSON array, else an empty one (``tools: true`` holds no tools)."""
    return value if isinstance(value, list) else []


def maybe_json(value: Any) -> Any:
    """Parse a JSON-encoded string (tool arguments often are one); anything else as is."""
    if isinstance(value, (bytes, bytearray)):
        value = decode_bytes(bytes(value))[0]
    if isinstance(value, str):
        stripped = value.strip()
        if stripped[:1] in ("{", "[", '"') or stripped in ("true", "false", "null") or stripped[:1].isdigit():
            try:
                return loads(stripped)
            except ValueError:
                return value
    return value


def shorten(text: str, limit: int = 100) -> str:
    """One line of at most ``limit`` characters (whitespace folded, an ellipsis when cut)."""
    return one_line(text, limit)


def project_of(cwd: str | None) -> str | None:
    """The project name a session is filed under: the last folder of its working directory."""
    if not cwd:
        return None
    name = cwd.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    return name or None


def unified_diff(path: str | None, old: str, new: str) -> str:
    """A unified diff of old -> new, labelled with path (new file when old is empty)."""
    a = old.splitlines()
    b = new.splitlines()
    label = path or "file"
    head = ["--- /dev/null" if not old else f"--- {label}", f"+++ {label}"]
    if len(a) + len(b) > _DIFF_MAX_LINES or not a:
        body = [f"@@ -{1 if a else 0},{len(a)} +{1 if b else 0},{len(b)} @@"] if (a or b) else []
        body += ["-" + line for line in a] + ["+" + line for line in b]
        return "\n".join(head + body)
    lines = list(difflib.unified_diff(a, b, lineterm="", n=3))
    return "\n".join(head + lines[2:]) if lines else ""


# --------------------------------------------------------------------------- SQLite, read-only


# What reading a damaged database can raise: Python decodes SQLite's error message (which
# may quote the damaged schema's bytes) as UTF-8, so a flipped byte is a UnicodeDecodeError.
SQLITE_ERRORS = (sqlite3.Error, UnicodeDecodeError)


def is_sqlite(path: Path) -> bool:
    """True when the file starts with the SQLite header (reads 16 bytes)."""
    try:
        with open_regular(path) as fh:
            return fh.read(16) == SQLITE_HEADER
    except OSError:
        return False


def sqlite_uri(path: Path) -> str:
    """A ``file:`` URI that opens ``path`` read-only and immutable.

    ``immutable=1`` means SQLite takes no locks and never creates a journal,
    ``-wal`` or ``-shm`` file, so a running editor's database is neither
    touched nor blocked. The path is percent-encoded (``?``, ``#``, ``%`` and
    spaces in folder names are common on macOS and Windows).
    """
    return Path(path).absolute().as_uri() + "?mode=ro&immutable=1"


def connect_ro(path: Path) -> sqlite3.Connection:
    """Open a SQLite file read-only and guarded (``sqlite_guard``: no generated column run, a
    budget of work); raises sqlite3.Error when it cannot."""
    conn = sqlite3.connect(sqlite_uri(path), uri=True, check_same_thread=False, factory=GuardedConnection)
    conn.text_factory = bytes  # decode ourselves: stores hold invalid UTF-8 now and then
    return guard(conn)


def table_names(path: Path) -> set[str]:
    """The tables of a SQLite file, or an empty set when it is not one (cheap)."""
    if not is_sqlite(path):
        return set()
    try:
        with closing(connect_ro(path)) as conn:
            rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    except SQLITE_ERRORS:
        return set()
    return {as_str(row[0]) for row in rows}


def named(value: Any, names: Collection[str]) -> bool:
    """Whether ``value`` is one of ``names``: an untrusted value of another type (a list, an
    object: unhashable) is simply not one, instead of raising inside a ``detect``."""
    return isinstance(value, str) and value in names


def as_str(value: Any) -> str:
    """A SQLite cell as text (bytes decoded leniently)."""
    if isinstance(value, (bytes, bytearray)):
        return decode_bytes(bytes(value))[0]
    if value is None:
        return ""
    return str(value)


def wal_note(path: Path) -> str | None:
    """A warning when a write-ahead log sits next to the database (its newest changes are not read)."""
    wal = path.with_name(path.name + "-wal")
    try:
        if wal.is_file() and wal.stat().st_size > 0:
            return (
                f"{wal.name} is not empty: changes the app has not yet written into {path.name} are not read"
                " (quit the app for a complete read)"
            )
    except OSError:
        return None
    return None


def iter_rows(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...] = ()) -> Iterator[dict[str, Any]]:
    """Rows as dicts keyed by column name (a damaged schema whose names are not UTF-8 is a
    ``sqlite3.DatabaseError``, which every reader of a database already answers)."""
    try:
        cursor = conn.execute(sql, params)
        names = [d[0] for d in cursor.description or ()]
    except UnicodeDecodeError as exc:
        raise sqlite3.DatabaseError(f"the database's schema is not valid UTF-8 ({exc.reason})") from exc
    try:
        for row in cursor:
            yield dict(zip(names, row))
    except sqlite3.Error as exc:
        raise named_error(conn, exc) from None
