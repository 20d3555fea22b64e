"""Image metadata left out of everything published: EXIF (a photo's GPS position, the camera,
the photographer's name), XMP, IPTC, comments and PNG text chunks (where tools put tokens).

A pasted screenshot or photo reaches a session as a ``data:`` URI, and a page draws it as
it came. The pixels are kept byte for byte: only the containers' metadata parts are cut
(PNG chunks, JPEG segments, GIF extensions, WebP chunks), no decoder runs, so this is fast
and changes nothing a browser shows. What the four formats a page draws do not hold, or
what does not parse as the format it claims (a TIFF labelled PNG, which Safari would draw
with its EXIF), is left out with a note in its place.
"""

from __future__ import annotations

import base64
import binascii
import struct
from collections.abc import Callable
from dataclasses import replace

from sessite.model import Block, Event, Session

# What a PNG needs to be drawn as it was (colour, transparency, animation); every other
# ancillary chunk (tEXt, zTXt, iTXt, eXIf, tIME, private ones) is cut.
_PNG_KEEP = {
    b"IHDR", b"PLTE", b"IDAT", b"IEND", b"tRNS", b"gAMA", b"cHRM", b"sRGB", b"iCCP", b"sBIT",
    b"bKGD", b"pHYs", b"acTL", b"fcTL", b"fdAT", b"cICP", b"mDCv", b"cLLi",
}  # fmt: skip
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_GIF_KEEP_APPS = (b"NETSCAPE2.0", b"ANIMEXTS1.0")  # looping; XMP and the rest are cut
LEFT_OUT = "left out: not a well-formed PNG, JPEG, GIF or WebP image"


class NotAnImage(ValueError):
    """The bytes are not the image format they were taken for."""


def strip_png(data: bytes) -> bytes:
    if not data.startswith(_PNG_SIGNATURE):
        raise NotAnImage("no PNG signature")
    out, pos = [_PNG_SIGNATURE], len(_PNG_SIGNATURE)
    while pos + 12 <= len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        end = pos + 12 + length
        if end > len(data):
            raise NotAnImage("a chunk runs past the end")
        if kind in _PNG_KEEP or not kind[:1].islower():  # critical chunks are all kept
            out.append(data[pos:end])
        pos = end
        if kind == b"IEND":
            return b"".join(out)
    raise NotAnImage("no IEND chunk")


def strip_jpeg(data: bytes) -> bytes:
    """Segments kept but APP1 (EXIF, XMP), APP3-APP15 (IPTC …) and COM; APP2 only as an ICC profile."""
    if not data.startswith(b"\xff\xd8"):
        raise NotAnImage("no JPEG start")
    out, pos = [b"\xff\xd8"], 2
    while pos + 2 <= len(data):
        if data[pos] != 0xFF:
            raise NotAnImage("a segment without a marker")
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker == 0xD9:
            out.append(b"\xff\xd9")
            return b"".join(out)
        if 0xD0 <= marker <= 0xD7 or marker == 0x01:
            out.append(data[pos : pos + 2])
            pos += 2
            continue
        length = int.from_bytes(data[pos + 2 : pos + 4], "big")
        end = pos + 2 + length
        if length < 2 or end > len(data):
            raise NotAnImage("a segment runs past the end")
        if _keep_jpeg_segment(marker, data[pos + 4 : end]):
            out.append(data[pos:end])
        pos = end
        if marker == 0xDA:  # start of scan: entropy-coded data up to the next marker
            scan_end = _scan_end(data, pos)
            out.append(data[pos:scan_end])
            pos = scan_end
    if pos >= len(data) and len(out) > 1:
        out.append(b"\xff\xd9")  # a file cut short in its last scan: browsers draw what came
        return b"".join(out)
    raise NotAnImage("no JPEG end")


def _keep_jpeg_segment(marker: int, body: bytes) -> bool:
    if marker == 0xFE:  # a comment
        return False
    if marker == 0xE2:
        return body.startswith(b"ICC_PROFILE\0")
    if marker == 0xEE:
        return body.startswith(b"Adobe")  # the colour transform CMYK pictures need
    return not 0xE1 <= marker <= 0xEF  # APP0 (JFIF) stays


def _scan_end(data: bytes, pos: int) -> int:
    """Where the entropy-coded data from ``pos`` ends: the first 0xFF not followed by 0x00 or a restart."""
    while True:
        pos = data.find(b"\xff", pos)
        if pos < 0 or pos + 1 >= len(data):
            return len(data)
        follower = data[pos + 1]
        if follower != 0x00 and not 0xD0 <= follower <= 0xD7 and follower != 0xFF:
            return pos
        pos += 2 if follower != 0xFF else 1


def strip_gif(data: bytes) -> bytes:
    """Comment extensions and application extensions other than looping are cut."""
    if data[:6] not in (b"GIF87a", b"GIF89a") or len(data) < 13:
        raise NotAnImage("no GIF header")
    flags = data[10]
    pos = 13 + (3 * 2 ** ((flags & 7) + 1) if flags & 0x80 else 0)
    out = [data[:pos]]
    while pos < len(data):
        kind = data[pos]
        if kind == 0x3B:
            out.append(b"\x3b")
            return b"".join(out)
        if kind == 0x21 and pos + 2 <= len(data):
            label = data[pos + 1]
            end = _sub_blocks_end(data, pos + 2)
            app = data[pos + 3 : pos + 14] if label == 0xFF else b""
            if label in (0xF9, 0x01) or (label == 0xFF and app in _GIF_KEEP_APPS):
                out.append(data[pos:end])
            pos = end
        elif kind == 0x2C and pos + 10 <= len(data):
            local = data[pos + 9]
            start = pos + 10 + (3 * 2 ** ((local & 7) + 1) if local & 0x80 else 0)
            end = _sub_blocks_end(data, start + 1)  # after the LZW code size
            out.append(data[pos:end])
            pos = end
        else:
            raise NotAnImage("an unknown GIF block")
    out.append(b"\x3b")  # cut short: browsers draw what came
    return b"".join(out)


def _sub_blocks_end(data: bytes, pos: int) -> int:
    while pos < len(data):
        size = data[pos]
        pos += 1 + size
        if size == 0:
            return pos
    raise NotAnImage("GIF data blocks run past the end")


def strip_webp(data: bytes) -> bytes:
    """The EXIF and XMP chunks cut, and their flags in the VP8X header cleared."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WEBP":
        raise NotAnImage("no WebP header")
    out, pos = [], 12
    while pos + 8 <= len(data):
        kind = data[pos : pos + 4]
        (size,) = struct.unpack("<I", data[pos + 4 : pos + 8])
        end = pos + 8 + size + (size & 1)
        if pos + 8 + size > len(data):
            raise NotAnImage("a chunk runs past the end")
        chunk = data[pos:end]
        if kind == b"VP8X" and size >= 1:
            chunk = chunk[:8] + bytes([chunk[8] & ~0x0C & 0xFF]) + chunk[9:]
        if kind not in (b"EXIF", b"XMP "):
            out.append(chunk)
        pos = end
    body = b"WEBP" + b"".join(out)
    return b"RIFF" + struct.pack("<I", len(body)) + body


_STRIPPERS: dict[str, Callable[[bytes], bytes]] = {
    "image/png": strip_png,
    "image/jpeg": strip_jpeg,
    "image/gif": strip_gif,
    "image/webp": strip_webp,
}
_MAGIC = ((b"\x89PNG", "image/png"), (b"\xff\xd8", "image/jpeg"), (b"GIF8", "image/gif"), (b"RIFF", "image/webp"))


def sniffed_type(data: bytes) -> str | None:
    """Which of the four formats the bytes are, by their first bytes (the label may be wrong)."""
    return next((mime for magic, mime in _MAGIC if data.startswith(magic)), None)


def without_metadata(uri: str) -> str | None:
    """A ``data:image/...;base64`` URI with its image's metadata cut (the same URI when it holds
    none); None when it is not one of the four formats, whatever its label says."""
    head, _, payload = uri.partition(",")
    if not head.endswith(";base64"):
        return None
    try:
        data = base64.b64decode(payload, validate=False)
    except (binascii.Error, ValueError):
        return None
    mime = sniffed_type(data)
    if mime is None:
        return None
    try:
        stripped = _STRIPPERS[mime](data)
    except (NotAnImage, struct.error, IndexError):
        return None
    if stripped == data:
        return uri
    return f"data:{mime};base64,{base64.b64encode(stripped).decode('ascii')}"


def _block(block: Block) -> Block:
    if block.type != "image" or not str(block.uri or "").startswith("data:"):
        return block
    uri = str(block.uri)
    clean = without_metadata(uri)
    if clean is None:  # its bytes would reach the downloads with whatever metadata they hold
        return Block("image", mime=block.mime, title=f"{block.title}: {LEFT_OUT}" if block.title else LEFT_OUT)
    if clean is uri:
        return block
    return replace(block, uri=clean, mime=clean[5 : clean.index(";")])


def session_without_image_metadata(session: Session) -> Session:
    """``session`` itself when none of its images holds metadata, else a copy with it cut."""

    def events(items: tuple[Event, ...]) -> tuple[Event, ...]:
        out = []
        changed = False
        for e in items:
            blocks = tuple(_block(b) for b in e.blocks) if e.blocks else e.blocks
            children = events(e.children) if e.children else e.children
            if children is e.children and all(a is b for a, b in zip(blocks, e.blocks)):
                out.append(e)
            else:
                changed = True
                out.append(replace(e, blocks=blocks, children=children))
        return tuple(out) if changed else items

    kept = events(session.events)
    return session if kept is session.events else replace(session, events=kept)
