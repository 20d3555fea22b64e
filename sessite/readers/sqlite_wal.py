"""A SQLite database as its app last committed it: the main file plus its ``-wal``, read without writing.

Agents such as Crush and Warp keep their database in WAL mode: the newest
transactions live in ``<db>-wal`` until the app checkpoints them, often for
the app's whole life (a copy taken from a dotfiles repository has most of its
rows there). ``immutable=1`` reads the main file only, and opening the file any
other way would checkpoint the log or create a ``-shm`` beside it.

So the log is applied here, in memory: its frames are checked the way SQLite
checks them (the header's salts, the running checksum) and only frames up to
the last commit are used; the resulting image is loaded into an in-memory
connection (``deserialize``). Nothing is written anywhere. A database too big
to hold in memory is read from its main file alone, with one problem line.
"""

from __future__ import annotations

import sqlite3
import struct
from pathlib import Path

from sessite.model import Problems
from sessite.readers._util import SQLITE_ERRORS, connect_ro, is_sqlite
from sessite.readers.files import read_bytes
from sessite.readers.sqlite_guard import GuardedConnection, generated_note, guard

# Beyond this many bytes (database and log together) the log is not applied in memory.
MEMORY_LIMIT = 512 * 1024 * 1024
_WAL_MAGIC = (0x377F0682, 0x377F0683)  # little- or big-endian checksums
_WAL_HEADER = 32
_FRAME_HEADER = 24
_DB_HEADER = 100


def wal_path(path: Path) -> Path:
    return path.with_name(path.name + "-wal")


def open_database(path: Path, problems: Problems, label: str) -> sqlite3.Connection:
    """The database at ``path`` with its committed log applied, opened so nothing can write it
    and guarded (``sqlite_guard``: generated columns read as empty, with one problem line).

    Raises sqlite3.Error when it is not a database. A log that cannot be used (damaged,
    unreadable, too big) costs one problem line, and the main file is read alone.
    """
    conn = _open(path, problems, label)
    note = generated_note(conn)
    if note is not None:
        problems.add(path, None, f"{label}: {note}")
    return conn


def _open(path: Path, problems: Problems, label: str) -> sqlite3.Connection:
    if not is_sqlite(path):
        raise sqlite3.DatabaseError("not a SQLite database")
    wal = wal_path(path)
    try:
        wal_size = wal.stat().st_size if wal.is_file() else 0
        total = path.stat().st_size + wal_size
    except OSError:
        wal_size = total = 0
    if wal_size < _WAL_HEADER:
        return connect_ro(path)
    if total > MEMORY_LIMIT:
        problems.add(path, None, f"{label}: {wal.name} is not read (database too big to apply it in memory)")
        return connect_ro(path)
    main = read_bytes(path, problems)
    log = read_bytes(wal, problems)
    try:
        image = apply_wal(main, log) if main is not None and log is not None else None
    except WalClaimsTooMuch as exc:
        problems.add(path, None, f"{label}: {wal.name} {exc}; the main file is read alone")
        return connect_ro(path)
    del main, log
    if image is None:
        problems.add(path, None, f"{label}: {wal.name} is not a usable write-ahead log; the main file is read alone")
        return connect_ro(path)
    conn = sqlite3.connect(":memory:", check_same_thread=False, factory=GuardedConnection)
    try:
        conn.deserialize(image)
        del image
        conn.execute("PRAGMA query_only = 1")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except SQLITE_ERRORS:
        conn.close()
        problems.add(path, None, f"{label}: the database with {wal.name} applied cannot be read; main file read alone")
        return connect_ro(path)
    conn.text_factory = bytes  # decode ourselves: stores hold invalid UTF-8 now and then
    return guard(conn)


class WalClaimsTooMuch(ValueError):
    """A commit frame says the database holds more pages than the two files could make."""


def apply_wal(main: bytes, log: bytes) -> bytes | None:
    """The database image once the log's committed frames are written over ``main``
    (``main`` unchanged when the log holds no committed frame); None for a log that is not one.

    Raises WalClaimsTooMuch when a commit says the database is bigger than the main file's
    pages and the log's frames together: the image is never bigger than the files."""
    if len(log) < _WAL_HEADER:
        return None
    magic, version, page_size, _seq, salt1, salt2, sum1, sum2 = struct.unpack(">8I", log[:_WAL_HEADER])
    if magic not in _WAL_MAGIC or version != 3007000 or not _valid_page_size(page_size):
        return None
    order = ">" if magic & 1 else "<"
    s0, s1 = _checksum(log[:24], 0, 0, order)
    if (s0, s1) != (sum1, sum2):
        return None
    committed: dict[int, int] = {}  # page number -> offset of its newest committed copy in the log
    pending: dict[int, int] = {}
    pages = 0
    offset = _WAL_HEADER
    frame = _FRAME_HEADER + page_size
    while offset + frame <= len(log):
        pgno, commit, f_salt1, f_salt2, f_sum1, f_sum2 = struct.unpack(">6I", log[offset : offset + _FRAME_HEADER])
        if (f_salt1, f_salt2) != (salt1, salt2) or pgno == 0:
            break  # a frame of an earlier generation of the log: the valid ones end here
        s0, s1 = _checksum(log[offset : offset + 8], s0, s1, order)
        s0, s1 = _checksum(log[offset + _FRAME_HEADER : offset + frame], s0, s1, order)
        if (s0, s1) != (f_sum1, f_sum2):
            break  # torn or stale: SQLite stops at the first frame that does not check out
        pending[pgno] = offset + _FRAME_HEADER
        if commit:
            committed.update(pending)
            pending.clear()
            pages = commit
        offset += frame
    if not committed:
        return main
    most = max(len(main) // page_size, max(committed))  # every page is in one file or the other
    if pages > most:
        raise WalClaimsTooMuch(
            f"claims a database of {pages:,} pages of {page_size:,} bytes, more than the main file and "
            f"the log hold ({most:,}: the cap on what a log may claim)"
        )
    image = bytearray(main[: pages * page_size].ljust(pages * page_size, b"\0"))
    for pgno, start in committed.items():
        if pgno <= pages:
            image[(pgno - 1) * page_size : pgno * page_size] = log[start : start + page_size]
    if len(image) >= _DB_HEADER:
        image[18:20] = b"\x01\x01"  # a rollback-journal database: an in-memory copy has no log of its own
    return bytes(image)


def _valid_page_size(size: int) -> bool:
    return 512 <= size <= 65536 and size & (size - 1) == 0


def _checksum(data: bytes, s0: int, s1: int, order: str) -> tuple[int, int]:
    """SQLite's running WAL checksum over ``data`` (a multiple of 8 bytes)."""
    words = struct.unpack(f"{order}{len(data) // 4}I", data)
    mask = 0xFFFFFFFF
    for index in range(0, len(words), 2):
        s0 = (s0 + words[index] + s1) & mask
        s1 = (s1 + words[index + 1] + s0) & mask
    return s0, s1
