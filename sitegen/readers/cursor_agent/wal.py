"""A SQLite database as it stands with its write-ahead log, read without writing anything.

``cursor-agent`` keeps its ``store.db`` in WAL mode, and a chat that was never checkpointed
lives entirely in ``store.db-wal`` (the main file is one empty page). Opening the database
``immutable`` (as every reader must, so a running agent is never touched) ignores the WAL;
opening it normally would create or write ``-shm`` files inside the archive. So the WAL is
applied here, in memory: its valid committed frames (salts matching its header, checksums
chained as SQLite checks them) are laid over the main file's pages, and the image is handed
to an in-memory SQLite connection. Nothing is written, on disk or into the input folder.
"""

from __future__ import annotations

import sqlite3
import struct
from contextlib import suppress
from pathlib import Path

from sitegen.readers._util import connect_ro
from sitegen.readers.sqlite_wal import apply_wal

_MAGIC = (0x377F0682, 0x377F0683)  # little- and big-endian checksums
_HEADER = 32
_FRAME_HEADER = 24
MAX_IMAGE = 1 << 30  # beyond this, the database is read without its WAL (one problem line)


class WalError(Exception):
    """The WAL cannot be applied (too large, unreadable): the database is read without it."""


def wal_of(path: Path) -> Path | None:
    """The non-empty ``-wal`` file beside a database, if there is one."""
    wal = path.with_name(path.name + "-wal")
    try:
        return wal if wal.is_file() and wal.stat().st_size > _HEADER else None
    except OSError:
        return None


def connect(path: Path) -> sqlite3.Connection:
    """The database read-only: immutable on disk without a WAL, else its WAL-applied image in memory
    (``sitegen.readers.sqlite_wal``, the toolkit's one reading of a log).

    Raises sqlite3.Error when the file is not a database, WalError when the WAL cannot be used."""
    wal = wal_of(path)
    if wal is None:
        return connect_ro(path)
    try:
        if path.stat().st_size + wal.stat().st_size > MAX_IMAGE:
            raise WalError(f"{wal.name} is too big to apply in memory")
        image = apply_wal(path.read_bytes(), wal.read_bytes())
    except OSError as exc:
        raise WalError(f"{wal.name} cannot be read ({exc})") from exc
    if image is None:
        raise WalError(f"{wal.name} is not a usable write-ahead log")
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    conn.deserialize(image)
    conn.execute("PRAGMA query_only = ON")
    conn.text_factory = bytes
    return conn


def schema_in_wal(path: Path, limit: int = 1 << 16) -> bytes:
    """Page 1 (the schema) as the WAL's last frame for it has it, read frame header by frame
    header without checksums (a cheap look for ``detect``); empty when there is none."""
    wal = wal_of(path)
    if wal is None:
        return b""
    found = b""
    with suppress(OSError, struct.error), open(wal, "rb") as fh:
        magic, _v, page_size, _seq, salt1, salt2 = struct.unpack(">6I", fh.read(24))
        if magic not in _MAGIC or page_size < 512 or page_size > limit:
            return b""
        fh.seek(_HEADER)
        while header := fh.read(_FRAME_HEADER):
            if len(header) < _FRAME_HEADER:
                break
            number, _after, f1, f2 = struct.unpack(">4I", header[:16])
            if (f1, f2) != (salt1, salt2):
                break
            if number == 1:
                found = fh.read(page_size)
            else:
                fh.seek(page_size, 1)
    return found
