"""A message's ``parts`` column as the array it holds.

The column is JSON text; a development branch of Crush stores it zstd-compressed
(a frame starts with ``28 b5 2f fd``, JSON with ``[``), read when this Python can
decompress it. A column that is not an array costs one problem and its message.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sessite.readers._util import obj, text_of
from sessite.readers.files import decode_bytes
from sessite.readers.formats.crush.store import MessageRow
from sessite.readers.safejson import loads
from sessite.readers.zstd import Quota, unzstd_why

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


@dataclass
class Decoded:
    """A message and its parts (None when they could not be read)."""

    row: MessageRow
    parts: list[Any] | None
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)  # call id -> its tool_call data


def decode(row: MessageRow, report: Callable[[int, str], None], quota: Quota | None = None) -> Decoded:
    """The parts array of one message; a column that is not one costs one problem. ``quota``:
    what the database's zstd parts may still decompress to, together."""
    raw = row.parts
    if isinstance(raw, (bytes, bytearray)) and bytes(raw[:4]) == ZSTD_MAGIC:
        raw, why = unzstd_why(bytes(raw), quota)
        if raw is None:
            report(row.line, f"parts are zstd-compressed and cannot be decompressed here ({why}); message not shown")
            return Decoded(row, None)
    text = decode_bytes(bytes(raw))[0] if isinstance(raw, (bytes, bytearray)) else raw
    if not isinstance(text, str):
        report(row.line, f"parts is a {type(text).__name__}, not JSON text; message not shown")
        return Decoded(row, None)
    notes: list[str] = []
    try:
        parts = loads(text, notes) if text.strip() else []
    except ValueError as exc:
        report(row.line, f"parts are not JSON ({exc}); message not shown")
        return Decoded(row, None)
    for note in notes:
        report(row.line, note)
    if not isinstance(parts, list):
        report(row.line, f"parts is a JSON {type(parts).__name__}, not an array; message not shown")
        return Decoded(row, None)
    decoded = Decoded(row, parts)
    for part in parts:
        data = obj(obj(part).get("data"))
        if obj(part).get("type") == "tool_call" and text_of(data.get("id")):
            decoded.calls[data["id"]] = data
    return decoded
