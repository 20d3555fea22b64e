"""The view model: a session ready to render, with permalink anchors and the pages
(parts) it is drawn on. Every link to an event is made here. No I/O and no HTML.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from sessite.analyze.session import PairedSession, summarize
from sessite.model import Event, Session, walk
from sessite.site.paging import PART_BYTES, Part, plan_parts
from sessite.site.urls import session_url

_ANCHOR_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


@dataclass
class SessionView(PairedSession):
    """A session ready to render: its pairing, plus anchors and the parts of a split session."""

    anchors: dict[str, str] = field(default_factory=dict)  # event id -> HTML id
    parts: tuple[Part, ...] = ()  # the pages of a split session (sessite/site/paging.py); () = one page
    event_part: dict[str, int] = field(default_factory=dict)  # split sessions: event id -> index into parts

    def part_events(self, part: Part | None) -> list[Event]:
        """The top-level events one part lists; all of them for an unsplit session."""
        return self.timeline if part is None else self.timeline[part.start : part.end]

    def page_of(self, event_id: str) -> str:
        """The site-relative URL of the page that draws an event: its part's (part 1's if unknown)."""
        return self.parts[self.event_part.get(event_id, 0)].url if self.parts else session_url(self.session.id)

    def event_url(self, event_id: str) -> str:
        """Where an event is, from the site root: its part's URL and its anchor (the session's URL if unknown).

        Every link to an event goes through here, so it lands on the part that draws it.
        """
        anchor = self.anchors.get(event_id)
        return f"{self.page_of(event_id)}#{anchor}" if anchor else session_url(self.session.id)

    def event_link(self, event_id: str) -> str | None:
        """A link to an event from the session's first page: ``#anchor`` when it is there,
        else its part's site-relative URL (prefix the page's root). None when unknown."""
        anchor = self.anchors.get(event_id)
        if anchor is None:
            return None
        return f"#{anchor}" if self.event_part.get(event_id, 0) == 0 else self.event_url(event_id)


def anchor_ids(events: tuple[Event, ...]) -> dict[str, str]:
    """A unique, HTML-safe anchor for every event (ids from a format may repeat or be odd)."""
    anchors: dict[str, str] = {}
    used: set[str] = set()
    next_count: dict[str, int] = {}  # a repeated base -> the count to try next (all below are taken)
    for event in walk(events):
        if event.id in anchors:
            continue
        base = "e-" + (_ANCHOR_UNSAFE.sub("-", event.id).strip("-")[:64] or "x")
        anchor, n = base, next_count.get(base, 1)
        while anchor in used:
            n += 1
            anchor = f"{base}-{n}"
        used.add(anchor)
        if n > 1:
            next_count[base] = n
        anchors[event.id] = anchor
    return anchors


def build_view(session: Session, part_bytes: int | None = None) -> SessionView:
    """Pair each tool call with its results and sub-agents, and plan the parts of a big session.

    A session whose estimated HTML passes ``part_bytes`` (default ``paging.PART_BYTES``)
    is split into pages (``sessite/site/paging.py``).
    """
    view = SessionView(session=session, summary=summarize(session), anchors=anchor_ids(session.events))
    view.pair()
    view.parts, view.event_part = plan_parts(view, PART_BYTES if part_bytes is None else part_bytes)
    return view


def parts_script(view: SessionView) -> bytes:
    """``sessions/<id>/parts.js``: part URLs and the anchors each part holds, as one inert call.

    Kept out of the pages so no page grows with the whole session's anchor list.
    """
    anchors: list[list[str]] = [[] for _ in view.parts]
    for event_id, index in view.event_part.items():
        anchor = view.anchors.get(event_id)
        if anchor:
            anchors[index].append(anchor)
    data = {"parts": [p.url for p in view.parts], "anchors": anchors}
    return b"sessiteParts(" + json.dumps(data, separators=(",", ":")).encode("ascii") + b");\n"
