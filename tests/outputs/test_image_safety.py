"""Issue 30, images: only PNG, JPEG, GIF and WebP are decoded, by Pillow's four plugins alone (an EPS
labelled PNG never reaches Ghostscript; no program runs); no image in a built site keeps its
metadata (EXIF GPS and names, XMP, comments, PNG text chunks), on pages and in downloads alike;
the single-file packer holds one full-size image at a time."""

from __future__ import annotations

import base64
import gzip
import io
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from helpers import ALL_EXPORTS, build_site, scan_site
from PIL import Image, PngImagePlugin

from sessite.analyze.image_metadata import LEFT_OUT, without_metadata
from sessite.model import Block
from sessite.outputs import single_images
from sessite.outputs.single_images import fit_images
from sessite.pipeline import worker

PLANTED = ["plantedgpsartist", "planted@example.org", "plantedtoken-xyzzy", "plantedxmp", "plantedcomment"]
EPS = b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\nnewpath 0 0 moveto showpage\n%%EOF\n"


def uri(mime: str, data: bytes) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


def laden_images() -> dict[str, bytes]:
    """One image of each format, each carrying planted metadata where its tools put it."""
    picture = Image.new("RGB", (40, 30), (200, 40, 40))
    exif = Image.Exif()
    exif[0x013B] = "PlantedGpsArtist planted@example.org"  # Artist
    exif[0x8825] = {2: (51.0, 30.0, 0.0), 1: "N"}  # GPSInfo
    out: dict[str, bytes] = {}
    buf = io.BytesIO()
    picture.save(buf, "JPEG", exif=exif, comment=b"PlantedComment")
    out["image/jpeg"] = _with_jpeg_xmp(buf.getvalue())
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", "PlantedToken-xyzzy")
    info.add_itxt("XML:com.adobe.xmp", "<x>PlantedXmp</x>", zip=False)
    buf = io.BytesIO()
    picture.save(buf, "PNG", pnginfo=info, exif=exif)
    out["image/png"] = buf.getvalue()
    buf = io.BytesIO()
    picture.save(buf, "WEBP", exif=exif, xmp=b"<x>PlantedXmp</x>")
    out["image/webp"] = buf.getvalue()
    buf = io.BytesIO()
    picture.save(buf, "GIF", comment=b"PlantedComment")
    out["image/gif"] = buf.getvalue()
    for mime, data in out.items():
        assert any(p.encode() in data.lower() for p in PLANTED), mime
    return out


def _with_jpeg_xmp(data: bytes) -> bytes:
    body = b"http://ns.adobe.com/xap/1.0/\0<x>PlantedXmp</x>"
    return data[:2] + b"\xff\xe1" + (len(body) + 2).to_bytes(2, "big") + body + data[2:]


@pytest.mark.parametrize("mime", ["image/jpeg", "image/png", "image/webp", "image/gif"])
def test_metadata_is_cut_and_the_pixels_kept(mime: str) -> None:
    data = laden_images()[mime]
    clean = without_metadata(uri(mime, data))
    assert clean is not None
    stripped = base64.b64decode(clean.split(",", 1)[1])
    assert not any(p.encode() in stripped.lower() for p in PLANTED)
    before, after = Image.open(io.BytesIO(data)), Image.open(io.BytesIO(stripped))
    assert after.format == before.format and after.size == before.size
    assert after.convert("RGB").tobytes() == before.convert("RGB").tobytes()
    assert not after.getexif()


def test_what_is_not_one_of_the_four_formats_is_left_out() -> None:
    tiff = io.BytesIO()
    Image.new("RGB", (4, 4)).save(tiff, "TIFF")
    assert without_metadata(uri("image/png", tiff.getvalue())) is None
    assert without_metadata(uri("image/png", EPS)) is None
    assert without_metadata(uri("image/png", b"\x89PNG not really")) is None


def _session(root: Path, images: list[str]) -> Path:
    root.mkdir(parents=True)
    blocks: list[dict[str, Any]] = [{"type": "text", "text": "look"}]
    for one in images:
        mime, data = one[5:].split(";base64,")
        blocks.append({"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}})
    line = {
        "parentUuid": None,
        "cwd": "/home/dev/shop",
        "sessionId": "11111111-2222-4333-8444-555555555555",
        "type": "user",
        "message": {"role": "user", "content": blocks},
        "uuid": "u-1",
        "timestamp": "2026-10-01T10:00:00.000Z",
    }
    (root / "s.jsonl").write_text(json.dumps(line) + "\n")
    return root


def test_no_image_metadata_anywhere_in_a_built_site(tmp_path: Path) -> None:
    images = [uri(mime, data) for mime, data in laden_images().items()]
    archive = _session(tmp_path / "archive", [*images, uri("image/png", EPS)])
    site = tmp_path / "site"
    for redact_pii in (False, True):
        report = build_site(archive, site, exports=ALL_EXPORTS, redact_pii=redact_pii)
        assert report.sessions == 1
        assert scan_site(site, {"metadata": PLANTED}) == {}
        assert planted_in_base64(site) == []
    page = next(site.rglob("sessions/*.html")).read_text()
    assert page.count("<img ") == 4 and LEFT_OUT in page


_BASE64 = re.compile(rb"[A-Za-z0-9+/]{40,}={0,2}")


def planted_in_base64(site: Path) -> list[str]:
    """The built files (gzip ones unpacked) with a planted value in any run of base64 (an image's bytes)."""
    found = []
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        data = path.read_bytes()
        data = gzip.decompress(data) if path.suffix == ".gz" else data
        for run in _BASE64.findall(data.replace(b"\\/", b"/")):
            raw = base64.b64decode(run[: len(run) // 4 * 4] or b"", validate=False).lower()
            if any(p.encode() in raw for p in PLANTED):
                found.append(path.relative_to(site).as_posix())
                break
    return found


def test_the_scan_sees_metadata_when_it_is_there(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(worker, "session_without_image_metadata", lambda session: session)
    archive = _session(tmp_path / "archive", [uri("image/jpeg", laden_images()["image/jpeg"])])
    build_site(archive, tmp_path / "site", exports=ALL_EXPORTS)
    assert any(p.startswith("sessions/") for p in planted_in_base64(tmp_path / "site"))


def test_no_program_runs_and_only_the_four_formats_are_decoded(monkeypatch: pytest.MonkeyPatch) -> None:
    """An EPS or TIFF labelled PNG reaches the packer (as it would without the metadata step)."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"a program was run: {args[:1]}")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    tiff = io.BytesIO()
    Image.new("RGB", (4, 4)).save(tiff, "TIFF")
    good = io.BytesIO()
    Image.new("RGB", (4, 4)).save(good, "PNG")
    blocks = [Block("image", uri=uri("image/png", data)) for data in (EPS, tiff.getvalue(), good.getvalue())]
    report = fit_images(blocks, 10_000_000)
    assert [p.why for p in report.images] == ["not a PNG, JPEG, GIF or WebP image"] * 2 + [""]


def test_the_packer_holds_each_image_shrunk_and_only_when_it_must(monkeypatch: pytest.MonkeyPatch) -> None:
    """Decoded to check it, released; at its own size its bytes (nothing held); for a smaller side
    decoded again, shrunk to the working side, the full-size pixels released."""
    monkeypatch.setattr(single_images, "WORKING_SIDE", 64)
    big = io.BytesIO()
    Image.new("RGB", (300, 200), (1, 2, 3)).save(big, "PNG")
    source = single_images._Source(Block("image", uri=uri("image/png", big.getvalue())))
    assert source.readable and source._working is None and source.size == (300, 200)
    found = source.at(0)
    assert found is not None and found[1] == (300, 200) and source._working is None
    smaller = source.at(32)
    assert smaller is not None and smaller[1][0] == 32
    assert source._working is not None and source._working.size == (64, 43)


def test_at_the_working_side_an_image_is_still_shrunk_as_webp(monkeypatch: pytest.MonkeyPatch) -> None:
    """The working copy is already that size; the image itself is bigger, so it is a smaller WebP."""
    monkeypatch.setattr(single_images, "WORKING_SIDE", 64)
    big = io.BytesIO()
    Image.new("RGB", (300, 200), (1, 2, 3)).save(big, "PNG")
    source = single_images._Source(Block("image", uri=uri("image/png", big.getvalue())))
    found = source.at(64)
    assert found is not None and found[0].startswith("data:image/webp;") and found[1] == (64, 43)
