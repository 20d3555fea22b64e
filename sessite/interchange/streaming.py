"""Text and bytes in pieces: joining line groups, trimming the end, and a reproducible gzip stream.

The exports are produced a message, line or event at a time so a huge session
is never held as one string; these helpers keep that true up to the compressed
file the build writes.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable, Iterator

GZIP_LEVEL = 2  # see gzip_bytes
_GZIP_BATCH = 256 * 1024


def joined_lines(groups: Iterable[list[str]]) -> Iterator[str]:
    """``"\\n".join`` of every group's lines, one group at a time."""
    first = True
    for lines in groups:
        if lines:
            yield ("" if first else "\n") + "\n".join(lines)
            first = False


def trim_end(pieces: Iterable[str]) -> Iterator[str]:
    """``text.rstrip("\\n") + "\\n"`` over pieces, holding back only a run of trailing newlines."""
    pending = ""
    for piece in pieces:
        body = piece.rstrip("\n")
        if body:
            if pending:
                yield pending
            yield body
            pending = piece[len(body) :]
        else:
            pending += piece
    yield "\n"


def gzip_bytes(chunks: Iterable[bytes], level: int = GZIP_LEVEL) -> bytes:
    """A gzip file of the chunks, the same bytes for the same input on any machine: mtime 0,
    no file name, OS byte "unknown", so an unchanged session gives an unchanged file.

    Level 2: on 168 MB of benchmark exports it gave 5.3x at 150 MB/s; level 1 5.0x at
    160 MB/s, level 3 5.5x at 115 MB/s, the default level 6 6.5x at 47 MB/s."""
    deflate = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS)
    xfl = b"\x04" if level == 1 else b"\x02" if level == 9 else b"\x00"
    out = [b"\x1f\x8b\x08\x00\x00\x00\x00\x00" + xfl + b"\xff"]
    crc = size = 0
    for batch in _batched(chunks, _GZIP_BATCH):
        crc = zlib.crc32(batch, crc)
        size += len(batch)
        out.append(deflate.compress(batch))
    out.append(deflate.flush())
    out.append(struct.pack("<II", crc, size & 0xFFFFFFFF))
    return b"".join(out)


def _batched(chunks: Iterable[bytes], size: int) -> Iterator[bytes]:
    """Small chunks gathered to about ``size`` bytes (fewer zlib calls); a big chunk passes as it is."""
    batch: list[bytes] = []
    held = 0
    for chunk in chunks:
        if len(chunk) >= size:
            if batch:
                yield b"".join(batch)
                batch, held = [], 0
            yield chunk
            continue
        batch.append(chunk)
        held += len(chunk)
        if held >= size:
            yield b"".join(batch)
            batch, held = [], 0
    if batch:
        yield b"".join(batch)
