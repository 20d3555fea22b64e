"""The Gemini Apps Takeout reader: detection, and the activity as one Session per day.

The export keeps no conversations: each item is one prompt and its answer (or one thing
done in the app), newest first. Grouping them by day (UTC, the export's own zone) gives
pages a reader can browse without inventing conversations the export does not have;
each item keeps its own time, in order.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from sessite.model import Problems, Session
from sessite.readers.base import Reader, Sniff, parse_time
from sessite.readers.builder import SessionBuilder
from sessite.readers.files import iter_json_array
from sessite.readers.formats.gemini_takeout.items import item_events
from sessite.readers.safejson import raw_decode

NAME = "gemini_takeout"
AGENT = "gemini-apps"
_PRODUCT = re.compile(r'"(?:header|products)"\s*:\s*\[?\s*"(?:Gemini Apps|Bard)"')
_GROUPING = "one page per day (UTC) of Gemini Apps activity: the export keeps no conversations"


class GeminiTakeoutReader(Reader):
    """``Takeout/My Activity/Gemini Apps/MyActivity.json``: Gemini Apps activity, a Session per day."""

    name = NAME
    agent = ""  # an export the user downloads: no folder of the app's own to look in

    def detect(self, sniffed: Sniff) -> bool:
        if sniffed.path.suffix.lower() != ".json":
            return False
        head = sniffed.text().lstrip()
        if not head.startswith("["):
            return False
        body = head[1:].lstrip()
        try:
            first, _ = raw_decode(body)
        except ValueError:
            return _PRODUCT.search(body[:4096]) is not None and '"title"' in body[:4096]
        return isinstance(first, dict) and _is_gemini(first)

    def session_key(self, sniffed: Sniff) -> str | None:
        """One key for every Takeout: a day in two exports taken at different times is one
        page, its items merged (each item's event is named by its time)."""
        return "gemini-takeout"

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        days: dict[str, list[tuple[datetime | None, int, Any]]] = {}
        for number, (line, item) in enumerate(iter_json_array(path, problems), 1):
            if not isinstance(item, dict):
                days.setdefault("undated", []).append((None, number, item))
                continue
            when = parse_time(item.get("time"))
            if when is None:
                problems.add(path, line, f"Gemini Takeout: item #{number} has no valid time; put with the undated ones")
            days.setdefault(when.date().isoformat() if when else "undated", []).append((when, number, item))
        for day, items in sorted(days.items()):
            yield _day(path, problems, day, items)


def _is_gemini(item: dict[str, Any]) -> bool:
    products = item.get("products")
    named = [item.get("header"), *(products if isinstance(products, list) else [])]
    return any(isinstance(n, str) and n in ("Gemini Apps", "Bard") for n in named) and "title" in item


def _day(path: Path, problems: Problems, day: str, items: list[tuple[datetime | None, int, Any]]) -> Session:
    b = SessionBuilder(NAME, path, problems, agent=AGENT, label="Gemini Takeout")
    ordered = sorted(items, key=lambda entry: (entry[0] is None, entry[0] or datetime.min, entry[1]))
    for when, number, item in ordered:
        if not isinstance(item, dict):
            b.unreadable(number, "activity item", item, TypeError(f"a {type(item).__name__}, not an object"))
            continue
        try:
            item_events(b, item, number, when)
        except Exception as exc:  # noqa: BLE001 - one odd item costs that item, never the file
            b.unreadable(number, "activity item", item, exc)
    return b.finish(day, meta={"grouping": _GROUPING})


READER = GeminiTakeoutReader()
