"""zstd frames, decompressed with whatever this machine has: ``compression.zstd`` (Python 3.14),
the ``zstandard`` package, or the system's ``libzstd`` through ctypes.

Crush (a development branch) and Zed store JSON zstd-compressed. Nothing is installed for
it: without any decoder a compressed value is one problem line and its record is counted
as not shown. Output is capped, so a hostile frame cannot claim gigabytes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import importlib
from collections.abc import Callable
from typing import Any

# Output beyond this is not decompressed.
MAX_OUTPUT = 256 * 1024 * 1024
_CHUNK = 256 * 1024


def _module_decoder() -> Callable[[bytes], bytes] | None:
    for name in ("compression.zstd", "zstandard"):
        try:
            module: Any = importlib.import_module(name)
        except ImportError:
            continue
        if name == "zstandard":
            return lambda data: module.ZstdDecompressor().decompress(data, max_output_size=MAX_OUTPUT)
        decompress: Callable[[bytes], bytes] = module.decompress
        return decompress
    return None


class _InBuffer(ctypes.Structure):
    _fields_ = [("src", ctypes.c_void_p), ("size", ctypes.c_size_t), ("pos", ctypes.c_size_t)]


class _OutBuffer(ctypes.Structure):
    _fields_ = [("dst", ctypes.c_void_p), ("size", ctypes.c_size_t), ("pos", ctypes.c_size_t)]


def _library_decoder() -> Callable[[bytes], bytes] | None:
    """The system's libzstd (its streaming API: frames with or without a recorded size)."""
    name = ctypes.util.find_library("zstd")
    if not name:
        return None
    try:
        lib = ctypes.CDLL(name)
        lib.ZSTD_createDCtx.restype = ctypes.c_void_p
        lib.ZSTD_freeDCtx.argtypes = [ctypes.c_void_p]
        lib.ZSTD_decompressStream.restype = ctypes.c_size_t
        lib.ZSTD_decompressStream.argtypes = [ctypes.c_void_p, ctypes.POINTER(_OutBuffer), ctypes.POINTER(_InBuffer)]
        lib.ZSTD_isError.restype = ctypes.c_uint
        lib.ZSTD_isError.argtypes = [ctypes.c_size_t]
    except (OSError, AttributeError):
        return None

    def decode(data: bytes) -> bytes:
        ctx = lib.ZSTD_createDCtx()
        if not ctx:
            raise MemoryError("libzstd could not make a context")
        try:
            source = ctypes.create_string_buffer(data, len(data))
            given = _InBuffer(ctypes.cast(source, ctypes.c_void_p), len(data), 0)
            chunk = ctypes.create_string_buffer(_CHUNK)
            out = bytearray()
            left = 1
            while given.pos < given.size or left:
                room = _OutBuffer(ctypes.cast(chunk, ctypes.c_void_p), _CHUNK, 0)
                before = given.pos
                left = lib.ZSTD_decompressStream(ctx, ctypes.byref(room), ctypes.byref(given))
                if lib.ZSTD_isError(left):
                    raise ValueError("not a zstd frame, or a damaged one")
                out += chunk.raw[: room.pos]
                if len(out) > MAX_OUTPUT:
                    raise ValueError("decompresses to more than the limit")
                if left and given.pos == given.size and room.pos < _CHUNK and given.pos == before:
                    raise ValueError("the frame is cut short")
            return bytes(out)
        finally:
            lib.ZSTD_freeDCtx(ctx)

    return decode


_DECODE = _module_decoder() or _library_decoder()


def available() -> bool:
    return _DECODE is not None


def unzstd(data: bytes) -> bytes | None:
    """The decompressed bytes, or None (no decoder here, or a damaged frame)."""
    if _DECODE is None:
        return None
    try:
        return _DECODE(data)
    except Exception:  # noqa: BLE001 - any decoder error means the frame is unreadable
        return None
