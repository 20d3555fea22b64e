"""Google Takeout's Gemini Apps activity (``MyActivity.json``), read straight from the JSON
(independently of the reader).

The file is an array of activity items; one record per item, numbered 1, 2 … in file order.

What a faithful page must show:
- the user's words: the ``title`` of a ``Prompted …`` item, without that word;
- Gemini's words: the text of each ``safeHtmlItem[].html`` (the answer, as HTML), and the
  ``subtitles`` that carry text of their own (no ``url``, not a count such as "1 generated
  image." or "Attached 1 file.": a canvas or code Gemini wrote).
Gemini Apps activity has no tool calls.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from ..records import Record, json_document

_COUNT = re.compile(r"^(?:\d+ generated (?:image|video|audio)s?|Attached \d+ files?)\.$")
_INLINE = {"strong", "b", "em", "i", "code", "a", "span", "sup", "sub"}


def records(path: Path) -> Iterator[Record]:
    items = json_document(path)
    for number, item in enumerate(items if isinstance(items, list) else [], 1):
        yield _record(path, number, item if isinstance(item, dict) else {})


def _record(path: Path, number: int, item: dict[str, Any]) -> Record:
    title = item.get("title") if isinstance(item.get("title"), str) else ""
    out = Record(path, number, title.split(" ", 1)[0] or "item")
    if title == "Prompted" or title.startswith("Prompted "):
        words = title[len("Prompted") :].strip()
        if words:
            out.user_texts.append(words)
    for part in item.get("safeHtmlItem") or []:
        html = part.get("html") if isinstance(part, dict) else None
        if isinstance(html, str) and _text(html):
            out.assistant_texts.append(_text(html))
    for subtitle in item.get("subtitles") or []:
        name = subtitle.get("name") if isinstance(subtitle, dict) else None
        own = isinstance(name, str) and name.strip() and not name.startswith("-") and not subtitle.get("url")
        if own and isinstance(name, str) and not _COUNT.match(name.strip()):
            out.assistant_texts.append(name.strip())
    return out


class _Words(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in _INLINE:
            self.parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag not in _INLINE:
            self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def _text(html: str) -> str:
    parser = _Words()
    parser.feed(html)
    parser.close()
    return " ".join("".join(parser.parts).split())
