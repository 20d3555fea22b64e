"""The schema of a database that so far lives only in its write-ahead log, for ``detect``.

``cursor-agent`` keeps its ``store.db`` in WAL mode, and a chat that was never checkpointed
lives entirely in ``store.db-wal`` (the main file is one empty page), so the main file's
tables say nothing. Reading the store applies the log in memory (``sessite.readers.sqlite_wal``);
a sniff only needs page 1 as the log last wrote it.
"""

from __future__ import annotations

import struct
from contextlib import suppress
from pathlib import Path

from sessite.readers.regular import open_regular
from sessite.readers.sqlite_wal import wal_path

_MAGIC = (0x377F0682, 0x377F0683)  # little- and big-endian checksums
_HEADER = 32
_FRAME_HEADER = 24


def schema_in_wal(path: Path, limit: int = 1 << 16) -> bytes:
    """Page 1 (the schema) as the WAL's last frame for it has it, read frame header by frame
    header without checksums (a cheap look for ``detect``); empty when there is none."""
    found = b""
    with suppress(OSError, struct.error), open_regular(wal_path(path)) as fh:
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
