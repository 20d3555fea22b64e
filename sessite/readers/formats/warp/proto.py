"""Protocol Buffers wire format, read without generated code: Warp stores each agent task as one.

A message is a run of ``(field number, wire type, value)``; the field numbers mean
something only with the schema (Warp publishes it: ``warpdotdev/warp-proto-apis``,
``apis/multi_agent/v1/task.proto``; the numbers used here are read from there). A
``Fields`` view answers "the string in field 3", "every sub-message in field 5" and never
raises on damaged bytes: a message that does not parse is ``ProtoError`` once, where it
is opened.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any

from sessite.readers.files import decode_bytes

VARINT, FIXED64, BYTES, FIXED32 = 0, 1, 2, 5
_MAX_FIELDS = 1_000_000  # no real message has more; a hostile one would take forever


class ProtoError(ValueError):
    """Bytes that are not a protobuf message."""


def parse(data: bytes) -> list[tuple[int, int, Any]]:
    """Every field of one message: (number, wire type, int or bytes)."""
    out: list[tuple[int, int, Any]] = []
    pos, end = 0, len(data)
    while pos < end:
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        value: Any
        if number == 0:
            raise ProtoError("field number 0")
        if wire == VARINT:
            value, pos = _varint(data, pos)
        elif wire == BYTES:
            size, pos = _varint(data, pos)
            if pos + size > end:
                raise ProtoError("a field runs past the end of its message")
            value, pos = data[pos : pos + size], pos + size
        elif wire == FIXED64:
            value, pos = data[pos : pos + 8], pos + 8
        elif wire == FIXED32:
            value, pos = data[pos : pos + 4], pos + 4
        else:
            raise ProtoError(f"wire type {wire} (groups are not used by Warp)")
        if pos > end:
            raise ProtoError("a fixed-size field runs past the end of its message")
        out.append((number, wire, value))
        if len(out) > _MAX_FIELDS:
            raise ProtoError("too many fields")
    return out


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data):
            raise ProtoError("a number runs past the end of its message")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise ProtoError("a number longer than 10 bytes")


class Fields:
    """One decoded message, read by field number."""

    __slots__ = ("fields",)

    def __init__(self, data: bytes | None) -> None:
        self.fields = parse(data) if data else []

    def numbers(self) -> list[int]:
        return [number for number, _, _ in self.fields]

    def raw(self, number: int) -> Iterator[Any]:
        for field, _, value in self.fields:
            if field == number:
                yield value

    def text(self, number: int) -> str:
        """The last string in a field (proto3: the last one wins), "" when absent."""
        found = [v for v in self.raw(number) if isinstance(v, bytes)]
        return decode_bytes(found[-1])[0] if found else ""

    def texts(self, number: int) -> list[str]:
        return [decode_bytes(v)[0] for v in self.raw(number) if isinstance(v, bytes)]

    def number(self, number: int) -> int | None:
        found = [v for v in self.raw(number) if isinstance(v, int)]
        return found[-1] if found else None

    def sint32(self, number: int) -> int | None:
        """An ``int32`` (negative numbers are ten-byte varints)."""
        value = self.number(number)
        if value is None:
            return None
        value &= 0xFFFFFFFF
        return value - (1 << 32) if value & 0x80000000 else value

    def flag(self, number: int) -> bool:
        return bool(self.number(number))

    def double(self, number: int) -> float | None:
        found = [v for v in self.raw(number) if isinstance(v, bytes) and len(v) == 8]
        return struct.unpack("<d", found[-1])[0] if found else None

    def message(self, number: int) -> Fields | None:
        """The sub-message in a field (the last one), None when absent."""
        found = [v for v in self.raw(number) if isinstance(v, bytes)]
        return Fields(found[-1]) if found else None

    def messages(self, number: int) -> list[Fields]:
        return [Fields(v) for v in self.raw(number) if isinstance(v, bytes)]

    def has(self, number: int) -> bool:
        return any(field == number for field, _, _ in self.fields)

    def first_of(self, numbers: dict[int, str]) -> tuple[int, str] | None:
        """Which field of a ``oneof`` is set: (number, name), the first present in the message."""
        for field, _, _ in self.fields:
            if field in numbers:
                return field, numbers[field]
        return None


def timestamp(message: Fields | None) -> float | None:
    """A ``google.protobuf.Timestamp`` (seconds, nanos) as epoch seconds."""
    if message is None:
        return None
    seconds = message.number(1)
    if seconds is None:
        return None
    return seconds + (message.number(2) or 0) / 1e9


def duration(message: Fields | None) -> float | None:
    """A ``google.protobuf.Duration`` in seconds."""
    return timestamp(message)


def struct_value(message: Fields, depth: int = 0) -> Any:
    """A ``google.protobuf.Struct`` (MCP tool arguments) as a plain dict."""
    out: dict[str, Any] = {}
    for entry in message.messages(1):
        out[entry.text(1)] = _value(entry.message(2), depth + 1)
    return out


def _value(message: Fields | None, depth: int) -> Any:
    if message is None or depth > 50:
        return None
    if message.has(3):
        return message.text(3)
    if message.has(2):
        return message.double(2)
    if message.has(4):
        return message.flag(4)
    if message.has(5):
        inner = message.message(5)
        return struct_value(inner, depth + 1) if inner is not None else {}
    if message.has(6):
        inner = message.message(6)
        return [_value(v, depth + 1) for v in inner.messages(1)] if inner is not None else []
    return None
