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
    """The database read-only: immutable on disk without a WAL, else its WAL-applied image in memory.

    Raises sqlite3.Error when the file is not a database, WalError when the WAL cannot be used."""
    wal = wal_of(path)
    if wal is None:
        return connect_ro(path)
    image = applied(path.read_bytes(), wal.read_bytes())
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    conn.deserialize(image)
    conn.execute("PRAGMA query_only = ON")
    conn.text_factory = bytes
    return conn


def applied(main: bytes, wal: bytes) -> bytes:
    """The main file's pages with the WAL's committed frames laid over them."""
    if len(wal) < _HEADER:
        return main
    magic, _version, page_size, _seq, salt1, salt2, sum1, sum2 = struct.unpack(">8I", wal[:_HEADER])
    if magic not in _MAGIC or page_size < 512 or page_size & (page_size - 1):
        return main  # not a WAL SQLite would use
    order = ">" if magic & 1 else "<"
    if _checksum(wal[:24], 0, 0, order) != (sum1, sum2):
        return main
    pages, size = _committed(wal, page_size, (salt1, salt2), (sum1, sum2), order)
    if size is None:
        return main
    if size * page_size > MAX_IMAGE:
        raise WalError(f"the database with its WAL would be {size * page_size} bytes")
    image = bytearray(main[: size * page_size].ljust(size * page_size, b"\0"))
    for number, offset in pages.items():
        if number <= size:
            image[(number - 1) * page_size : number * page_size] = wal[offset : offset + page_size]
    if len(image) >= 20:
        image[18:20] = b"\x01\x01"  # a rollback-journal database: what an in-memory copy can be
    return bytes(image)


def _committed(
    wal: bytes, page_size: int, salts: tuple[int, int], sums: tuple[int, int], order: str
) -> tuple[dict[int, int], int | None]:
    """Page number -> offset of its newest committed frame, and the database size in pages."""
    s1, s2 = sums
    pending: dict[int, int] = {}
    committed: dict[int, int] = {}
    size: int | None = None
    pos = _HEADER
    while pos + _FRAME_HEADER + page_size <= len(wal):
        number, after, salt1, salt2, frame1, frame2 = struct.unpack(">6I", wal[pos : pos + _FRAME_HEADER])
        if (salt1, salt2) != salts or number == 0:
            break
        s1, s2 = _checksum(wal[pos : pos + 8], s1, s2, order)
        s1, s2 = _checksum(wal[pos + _FRAME_HEADER : pos + _FRAME_HEADER + page_size], s1, s2, order)
        if (s1, s2) != (frame1, frame2):
            break
        pending[number] = pos + _FRAME_HEADER
        if after:  # a commit frame: everything so far is the database
            committed.update(pending)
            pending.clear()
            size = after
        pos += _FRAME_HEADER + page_size
    return committed, size


def _checksum(data: bytes, s1: int, s2: int, order: str) -> tuple[int, int]:
    words = struct.unpack(f"{order}{len(data) // 4}I", data)
    for i in range(0, len(words) - 1, 2):
        s1 = (s1 + words[i] + s2) & 0xFFFFFFFF
        s2 = (s2 + words[i + 1] + s1) & 0xFFFFFFFF
    return s1, s2


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
