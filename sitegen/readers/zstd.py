"""zstd frames, decompressed by ``compression.zstd`` (Python 3.14) or the ``zstandard`` package
(a dependency before 3.14).

Crush (a development branch) and Zed store JSON zstd-compressed. A value that cannot be
decompressed (a damaged frame, or no decoder in a bare checkout) is one problem line and its
record is counted as not shown. One frame is read, and its output is capped, so a hostile
frame cannot claim gigabytes.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import partial
from typing import Any

# Output beyond this is not decompressed.
MAX_OUTPUT = 256 * 1024 * 1024


def _stdlib_decode(module: Any, data: bytes) -> bytes:
    decompressor = module.ZstdDecompressor()
    out = decompressor.decompress(data, max_length=MAX_OUTPUT + 1)
    if len(out) > MAX_OUTPUT:
        raise ValueError("decompresses to more than the limit")
    if not decompressor.eof:
        raise ValueError("the frame is cut short")
    return bytes(out)


def _zstandard_decode(module: Any, data: bytes) -> bytes:
    # zstandard keeps to ``max_output_size`` only for a frame that does not record its size
    if module.frame_content_size(data) > MAX_OUTPUT:
        raise ValueError("decompresses to more than the limit")
    out: bytes = module.ZstdDecompressor().decompress(data, max_output_size=MAX_OUTPUT)
    return out


def _decoder() -> Callable[[bytes], bytes] | None:
    for name, decode in (("compression.zstd", _stdlib_decode), ("zstandard", _zstandard_decode)):
        try:
            return partial(decode, importlib.import_module(name))
        except ImportError:
            continue
    return None


_DECODE = _decoder()


def unzstd(data: bytes) -> bytes | None:
    """The decompressed bytes, or None (no decoder here, or a damaged frame)."""
    if _DECODE is None:
        return None
    try:
        return _DECODE(data)
    except Exception:  # noqa: BLE001 - any decoder error means the frame is unreadable
        return None
