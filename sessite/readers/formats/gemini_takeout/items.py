"""One activity item of the Takeout as events.

An item is ``{header, title, time, products, activityControls, safeHtmlItem?, subtitles?,
attachedFiles?, imageFile?}``. ``Prompted <words>`` is a prompt (the words) and Gemini's
answer (``safeHtmlItem``, HTML); its ``subtitles`` name what came with it: files attached
(``-  name`` with the file as ``url``), counts ("1 generated image.", "Attached 1 file."),
a Gem used, or the text of what Gemini made (a canvas, code). Other items (``Created Gemini
Canvas titled …``, ``Used …``, ``Selected preferred draft``, ``Gave feedback: …``,
``Answered survey question``) are what the user did in the app: a note each, the canvas
Gemini wrote shown as its answer.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from sessite.model import Block, Kind
from sessite.readers._util import array, obj, text_of
from sessite.readers.builder import SessionBuilder
from sessite.readers.formats.gemini_takeout.html import html_markdown

_PROMPTED = "Prompted"
_COUNT = re.compile(r"^(?:\d+ generated (?:image|video|audio)s?|Attached \d+ files?)\.$")
_IMAGE = re.compile(r"\.(?:png|jpe?g|gif|webp|avif|heic|bmp)$", re.I)


def item_events(b: SessionBuilder, item: dict[str, Any], line: int, when: datetime | None) -> None:
    title = text_of(item.get("title")) or ""
    subtitles = [obj(s) for s in array(item.get("subtitles")) if isinstance(s, dict)]
    attached, counts, links, texts = _sorted(subtitles)
    answers = [text_of(obj(h).get("html")) or "" for h in array(item.get("safeHtmlItem"))]
    meta: dict[str, Any] = {}
    if counts:
        meta["with"] = " ".join(counts)
    base = f"item-{when.isoformat() if when else line}"
    if title == _PROMPTED or title.startswith(_PROMPTED + " "):
        blocks = attached + _files(item, answers, attached) + links
        words = title[len(_PROMPTED) :].strip()
        b.emit(base, kind=Kind.USER, text=words, blocks=tuple(blocks), timestamp=when, line=line, meta=meta)
        _answers(b, base, answers, texts, when, line)
        return
    if title.startswith("Created ") and texts:
        kind, note = Kind.ASSISTANT, {"title": title}
    else:
        kind, note = Kind.SYSTEM, {"title": title or "Gemini Apps activity"}
    b.emit(
        base,
        kind=kind,
        text="\n\n".join(texts),
        blocks=tuple(attached + links),
        timestamp=when,
        line=line,
        meta=meta,
        **note,
    )
    _answers(b, f"{base}-answer", answers, [], when, line)


def _sorted(subtitles: list[dict[str, Any]]) -> tuple[list[Block], list[str], list[Block], list[str]]:
    """Subtitles by what they are: attached files, counts, links, and text Gemini wrote."""
    attached: list[Block] = []
    counts: list[str] = []
    links: list[Block] = []
    texts: list[str] = []
    for subtitle in subtitles:
        name = text_of(subtitle.get("name")) or ""
        url = text_of(subtitle.get("url"))
        if name.startswith("-") and url:
            attached.append(_file(url, name.lstrip("- ").strip()))
        elif _COUNT.match(name.strip()):
            counts.append(name.strip())
        elif url:
            links.append(Block("reference", uri=url, title=name or url))
        elif name.strip():
            texts.append(name)
    return attached, counts, links, texts


def _file(path: str, name: str | None = None) -> Block:
    """A file of the Takeout beside the activity (an image, or any other file)."""
    kind = "image" if _IMAGE.search(path) else "file"
    return Block(kind, uri=path, title=name or path)


def _files(item: dict[str, Any], answers: list[str], attached: list[Block]) -> list[Block]:
    """Files the item lists that neither its answer shows nor a subtitle already names."""
    named = {block.uri for block in attached}
    listed = [f for f in array(item.get("attachedFiles")) if isinstance(f, str)]
    image = text_of(item.get("imageFile"))
    out = []
    for path in dict.fromkeys([*listed, *([image] if image else [])]):
        if path not in named and not any(path in answer for answer in answers):
            out.append(_file(path))
    return out


def _answers(
    b: SessionBuilder, base: str, answers: list[str], texts: list[str], when: datetime | None, line: int
) -> None:
    """Gemini's answer (each HTML part), then the text it made (a canvas, code) when the item has one."""
    parts = [html_markdown(answer) for answer in answers if answer.strip()]
    if texts:
        parts.append(("\n\n".join(texts), []))
    for number, (text, images) in enumerate(parts):
        if text.strip() or images:
            b.emit(f"{base}-{number}", kind=Kind.ASSISTANT, text=text, blocks=tuple(images), timestamp=when, line=line)
