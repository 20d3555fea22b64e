"""zstd frames, decompressed by ``compression.zstd`` (Python 3.14) or the ``zstandard`` package
(a dependency before 3.14).

Crush (a development branch) and Zed store JSON zstd-compressed. A value that cannot be
decompressed (a damaged frame, or no decoder in a bare checkout) is one problem line and its
record is counted as not shown. One frame is read, and its output is capped, so a hostile
frame cannot claim gigabytes; a ``Quota`` caps what all the frames of one database
decompress to together. A frame over a cap says so (not "damaged").
"""

from __future__ import annotations

import importlib
import io
from collections.abc import Callable
from functools import partial
from typing import Any

from sessite.readers.limits import MAX_ZSTD_PER_DATABASE, MIB

# Output beyond this is not decompressed.
MAX_OUTPUT = 256 * MIB


class OverCap(ValueError):
    """The frame decompresses to more than the cap left."""


class Quota:
    """What the frames of one database may still decompress to, together."""

    def __init__(self, total: int = MAX_ZSTD_PER_DATABASE) -> None:
        self.total = total
        self.left = total


def _stdlib_decode(module: Any, data: bytes, cap: int = MAX_OUTPUT) -> bytes:
    decompressor = module.ZstdDecompressor()
    out = decompressor.decompress(data, max_length=cap + 1)
    if len(out) > cap:
        raise OverCap("decompresses to more than the limit")
    if not decompressor.eof:
        raise ValueError("the frame is cut short")
    return bytes(out)


def _zstandard_decode(module: Any, data: bytes, cap: int = MAX_OUTPUT) -> bytes:
    # zstandard keeps to ``max_output_size`` only for a frame that does not record its size
    if module.frame_content_size(data) > cap:
        raise OverCap("decompresses to more than the limit")
    try:
        out: bytes = module.ZstdDecompressor().decompress(data, max_output_size=cap)
    except module.ZstdError:
        if module.frame_content_size(data) < 0 and _longer_than(module, data, cap):
            raise OverCap("decompresses to more than the limit") from None
        raise  # damaged or cut short
    return out


def _longer_than(module: Any, data: bytes, cap: int) -> bool:
    """Does a frame that does not record its size decompress past ``cap``? (Read to cap + 1.)"""
    try:
        with module.ZstdDecompressor().stream_reader(io.BytesIO(data)) as reader:
            return len(reader.read(cap + 1)) > cap
    except module.ZstdError:
        return False


def _decoder() -> Callable[..., bytes] | None:
    for name, decode in (("compression.zstd", _stdlib_decode), ("zstandard", _zstandard_decode)):
        try:
            return partial(decode, importlib.import_module(name))
        except ImportError:
            continue
    return None


_DECODE = _decoder()


def unzstd(data: bytes) -> bytes | None:
    """The decompressed bytes, or None (no decoder here, a damaged frame, or over the cap)."""
    return unzstd_why(data)[0]


def unzstd_why(data: bytes, quota: Quota | None = None) -> tuple[bytes | None, str]:
    """The decompressed bytes and ``""``, or None and why not, in words for a problem line."""
    if _DECODE is None:
        return None, "this Python has no zstd decoder"
    cap = MAX_OUTPUT if quota is None else min(MAX_OUTPUT, quota.left)
    try:
        out = _DECODE(data, cap)
    except OverCap:
        if quota is not None and quota.left < MAX_OUTPUT:
            return None, f"over the {quota.total // MIB} MB cap on what one database's zstd values decompress to"
        return None, f"it decompresses to more than {MAX_OUTPUT // MIB} MB (the cap on one zstd value)"
    except Exception:  # noqa: BLE001 - any decoder error means the frame is unreadable
        return None, "a damaged zstd frame"
    if quota is not None:
        quota.left -= len(out)
    return out, ""
