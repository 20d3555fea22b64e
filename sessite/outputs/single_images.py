"""The images of a single-file session: re-encoded, downscaled to a byte budget, or left out.

A session's images are inline ``data:`` URIs (the readers turn attached and
pasted images into them). One file must stay small enough to mail or attach, so
every image is decoded (PNG, JPEG, GIF and WebP only, by those Pillow plugins alone) and,
at its own size, kept as it came with its metadata cut (EXIF: where a photo was taken,
the camera, names in XMP; ``analyze/image_metadata``), smaller, encoded again; when they do
not fit, every image gets the same smaller longest side, step by step; when even
the smallest side does not fit, the biggest images are left out, each with a
note where it stood. Pillow does the decoding and encoding: the one well-kept
library that reads PNG, JPEG, GIF and WebP and writes WebP.
"""

from __future__ import annotations

import base64
import io
import itertools
from collections.abc import Callable
from dataclasses import dataclass, replace

from PIL import Image, UnidentifiedImageError

from sessite.analyze.image_metadata import without_metadata
from sessite.model import Block, Event, Session

SHOWN_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")  # what a page draws as <img> (_events.html)
SIDES = (0, 2048, 1600, 1280, 1024, 800, 640, 480, 360, 240)  # longest side tried, biggest first; 0: as it is
MAX_PIXELS = 25_000_000  # a bigger image is not decoded (a "decompression bomb" costs gigabytes)
WORKING_SIDE = max(SIDES)  # each image is held shrunk to this once decoded
DECODED_FORMATS = ("PNG", "JPEG", "GIF", "WEBP")  # the only Pillow plugins that see session bytes
WEBP_QUALITY = 80
JPEG_QUALITY = 88
_SAVE_AS = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}


@dataclass(frozen=True, slots=True)
class Packed:
    """What became of one image."""

    uri: str | None  # its new data: URI; None when left out
    before: int  # bytes of the data: URI as it came
    size: tuple[int, int]  # its width and height as it came (0, 0: unreadable)
    shown: tuple[int, int]  # as it is drawn now
    why: str = ""  # why it was left out

    @property
    def after(self) -> int:
        return len(self.uri) if self.uri else 0

    @property
    def shrunk(self) -> bool:
        return self.uri is not None and self.shown != self.size


@dataclass(frozen=True, slots=True)
class ImageReport:
    """What the packing did to a session's images, for the note at the top of the file."""

    images: tuple[Packed, ...] = ()

    @property
    def shrunk(self) -> int:
        return sum(1 for p in self.images if p.shrunk)

    @property
    def left_out(self) -> int:
        return sum(1 for p in self.images if p.uri is None)

    @property
    def before(self) -> int:
        return sum(p.before for p in self.images)

    @property
    def after(self) -> int:
        return sum(p.after for p in self.images)


_SHOWN_PREFIXES = tuple(f"data:{t}" for t in SHOWN_TYPES)


def _is_shown(block: Block) -> bool:
    return block.type == "image" and str(block.uri or "").startswith(_SHOWN_PREFIXES)


def map_images(session: Session, change: Callable[[int, Block], Block]) -> Session:
    """The session with ``change(n, block)`` in place of its n-th shown image (depth first, in order)."""
    counter = itertools.count()

    def events(items: tuple[Event, ...]) -> tuple[Event, ...]:
        out = []
        for e in items:
            blocks = tuple(change(next(counter), b) if _is_shown(b) else b for b in e.blocks)
            children = events(e.children) if e.children else e.children
            same = children is e.children and all(a is b for a, b in zip(blocks, e.blocks))
            out.append(e if same else replace(e, blocks=blocks, children=children))
        return tuple(out)

    return replace(session, events=events(session.events))


def shown_images(session: Session) -> list[Block]:
    """The session's images a page draws, in ``map_images`` order."""
    found: list[Block] = []

    def keep(_: int, block: Block) -> Block:
        found.append(block)
        return block

    map_images(session, keep)
    return found


def data_uri(mime: str, data: bytes) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


class _Source:
    """One image, checked to be one (its header and structure, not its pixels); at its own size
    it is its own bytes with the metadata cut (nothing decoded or encoded). Only when a smaller
    side is asked for is it decoded, shrunk to ``WORKING_SIDE`` and kept so, the full-size
    pixels released: a session's images are never all held at full size (40 images of 25
    megapixels took 4 GB), and when they fit as they are, none is decoded at all."""

    def __init__(self, block: Block) -> None:
        self.uri = str(block.uri)
        self.readable = False
        self._working: Image.Image | None = None
        self.format = ""
        self.why = ""
        self.size = (0, 0)
        self._encoded: dict[int, tuple[str, tuple[int, int]] | None] = {}
        image = self._decode(load=False)
        if image is not None:
            self.readable = True
            image.close()

    @property
    def image(self) -> Image.Image | None:
        """The image shrunk to at most ``WORKING_SIDE``, decoded when first asked for."""
        if self._working is None and self.readable:
            image = self._decode()
            if image is not None and max(image.size) > WORKING_SIDE:
                working = image.copy()
                working.thumbnail((WORKING_SIDE, WORKING_SIDE), Image.Resampling.LANCZOS, reducing_gap=3.0)
                image.close()
                image = working
            self._working = image
        return self._working

    def _decode(self, load: bool = True) -> Image.Image | None:
        """The image at full size (only PNG, JPEG, GIF and WebP: Pillow's other plugins, EPS's
        Ghostscript among them, never see session bytes), or None and ``why``. Without ``load``,
        its structure is checked (``verify``: chunk CRCs and the like) and its pixels not decoded."""
        head, _, payload = self.uri.partition(",")
        try:
            raw = base64.b64decode(payload, validate=False) if head.endswith(";base64") else b""
            image = Image.open(io.BytesIO(raw), formats=DECODED_FORMATS)  # reads the header only
            self.size = (image.width, image.height)
            if image.width * image.height > MAX_PIXELS:
                self.why = f"{image.width}×{image.height} pixels, too many to decode"
                return None
            self.format = image.format or ""
            image.load() if load else image.verify()
        except UnidentifiedImageError:
            self.why = "not a PNG, JPEG, GIF or WebP image"
            return None
        except Exception:  # noqa: BLE001 - any decoder failure on untrusted bytes costs this image only
            self.why = "not a readable image"
            return None
        return image

    def at(self, side: int) -> tuple[str, tuple[int, int]] | None:
        """Its data: URI and drawn size with the longest side at most ``side`` (0: as it is)."""
        if not self.readable:
            return None
        if side == 0 and side not in self._encoded:
            as_it_came = without_metadata(self.uri)  # the bytes as they came, metadata cut: nothing decoded
            if as_it_came is not None:
                self._encoded[0] = (as_it_came, self.size)
        if side not in self._encoded:
            working = self.image
            full = side == 0 or side > WORKING_SIDE
            image = self._decode() if full and working is not None and working.size != self.size else working
            try:
                self._encoded[side] = _encode(image, self.format, side, self.size) if image is not None else None
            except (OSError, ValueError):  # a pixel mode no encoder takes
                self._encoded[side] = None
                self.why = "not an image this file can hold"
            finally:
                if image is not None and image is not working:
                    image.close()
        return self._encoded[side]


def _encode(image: Image.Image, fmt: str, side: int, size: tuple[int, int]) -> tuple[str, tuple[int, int]]:
    """At its own ``size``: the same format again (WebP for others); smaller: WebP, which keeps
    alpha. ``image`` may already be shrunk (the working copy): smaller is judged by ``size``."""
    frame = image.copy()  # the first frame of an animation
    smaller = bool(side) and max(size) > side
    if smaller and max(frame.size) > side:
        frame.thumbnail((side, side), Image.Resampling.LANCZOS, reducing_gap=3.0)
    keep = fmt if not smaller and fmt in _SAVE_AS else "WEBP"
    out = io.BytesIO()
    if keep == "JPEG":
        frame.convert("RGB").save(out, "JPEG", quality=JPEG_QUALITY, optimize=True)
    elif keep in ("PNG", "GIF"):
        frame.save(out, keep, optimize=True)
    else:
        alpha = frame.mode in ("RGBA", "LA", "PA") or "transparency" in frame.info
        frame.convert("RGBA" if alpha else "RGB").save(out, "WEBP", quality=WEBP_QUALITY, method=4)
    return data_uri(_SAVE_AS[keep], out.getvalue()), frame.size


def fit_images(blocks: list[Block], budget: int) -> ImageReport:
    """Every image re-encoded at the biggest common longest side whose total fits ``budget``
    bytes of data: URIs; the biggest left out when even the smallest side does not fit."""
    sources = [_Source(b) for b in blocks]
    side = _largest_fitting_side(sources, budget)
    encoded = [s.at(side) for s in sources]
    weight = [len(e[0]) if e else 0 for e in encoded]
    kept = [e is not None for e in encoded]
    total = sum(weight)
    for i in sorted(range(len(sources)), key=lambda i: -weight[i]):
        if total <= budget or not weight[i]:
            break
        kept[i] = False
        total -= weight[i]
    packed = []
    for source, found, keep in zip(sources, encoded, kept):
        if found is not None and keep:
            packed.append(Packed(found[0], len(source.uri), source.size, found[1]))
        else:
            why = source.why if found is None else "over the file's size budget"
            packed.append(Packed(None, len(source.uri), source.size, (0, 0), why))
    return ImageReport(tuple(packed))


def _largest_fitting_side(sources: list[_Source], budget: int) -> int:
    """The first of ``SIDES`` at which every image together fits ``budget`` (the last if none does).

    Sizes shrink with the side, so a binary search encodes each image a few times, not ten;
    first, their own sizes (their bytes as they came, metadata cut: nothing encoded)."""
    lo, hi = 0, len(SIDES) - 1

    def fits(i: int) -> bool:
        return sum(len(found[0]) for s in sources if (found := s.at(SIDES[i]))) <= budget

    if fits(0):
        return SIDES[0]

    while lo < hi:
        mid = (lo + hi) // 2
        if fits(mid):
            hi = mid
        else:
            lo = mid + 1
    return SIDES[lo]


def left_out_title(block: Block, packed: Packed) -> str:
    """The words shown where an image was left out."""
    name = f"{block.title}: " if block.title else ""
    return f"{name}left out of this file ({packed.why}, {size_words(packed.before)})"


def size_words(n: int) -> str:
    """Bytes as a person reads them: ``4.8 MB``, ``312 KB``."""
    return f"{n / 1_000_000:.1f} MB" if n >= 1_000_000 else f"{max(1, round(n / 1000))} KB"


def packed_blocks(session: Session, report: ImageReport) -> Session:
    """The session with each shown image as packed: its new URI, or a note where it was left out."""
    images = report.images

    def change(n: int, block: Block) -> Block:
        p = images[n]
        if p.uri is None:
            return Block("image", mime=block.mime, title=left_out_title(block, p))
        return replace(block, uri=p.uri, mime=p.uri[5 : p.uri.index(";")])

    return map_images(session, change)


def without_images(session: Session) -> Session:
    """The session with every shown image as a note of about the same length as a left-out one."""
    return map_images(session, lambda n, b: Block("image", mime=b.mime, title=left_out_title(b, _PLACEHOLDER)))


_PLACEHOLDER = Packed(None, 10_000_000, (0, 0), (0, 0), "over the file's size budget")
