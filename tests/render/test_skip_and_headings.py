"""A session page is read by keyboard and by screen reader: a "Skip to the conversation" link
is the first thing Tab reaches and leads to the first event, and a message's own headings sit
below the page's h1 (the session's title). Checked by parsing the built HTML."""

from __future__ import annotations

from pathlib import Path

from bs4 import BeautifulSoup
from helpers import EXAMPLE, build_site, render_session_page

from sessite.model import Event, Kind, Session, SourceRef
from sessite.render.markup import markdown
from sessite.site.view import anchor_ids

FOCUSABLE = "a[href], button, input, select, textarea, summary, [tabindex]"


def _session(*texts: str) -> Session:
    events = tuple(Event(id=f"m{i}", kind=Kind.USER if i == 0 else Kind.ASSISTANT, text=t) for i, t in enumerate(texts))
    return Session(id="a11y", source=SourceRef("x.jsonl", "test"), agent="test", events=events, title="The session")


def test_the_skip_link_is_first_and_targets_the_first_event() -> None:
    session = _session("Please fix the parser.", "# Plan\n\nDone.")
    doc = BeautifulSoup(render_session_page(session), "html.parser")
    first = doc.select(FOCUSABLE)[0]
    assert first.get_text() == "Skip to the conversation"
    target = first["href"]
    assert target == "#" + anchor_ids(session.events)["m0"]
    assert doc.find(id=target[1:]).name == "li"


def test_message_headings_are_below_the_pages_h1() -> None:
    doc = BeautifulSoup(render_session_page(_session("go", "# Title\n\n## Part\n\n###### Deep\n\ntext")), "html.parser")
    assert [h.get_text() for h in doc.find_all("h1")] == ["The session"]
    body = doc.select("li.k-assistant .body")[0]
    assert [(h.name, h.get_text()) for h in body.find_all(["h1", "h2", "h3", "h4", "h5", "h6"])] == [
        ("h2", "Title"),
        ("h3", "Part"),
        ("h6", "Deep"),
    ]


def test_the_markdown_fast_path_demotes_alike() -> None:
    assert str(markdown("# Title")) == "<h2>Title</h2>\n"
    assert "<h2>" in str(markdown("# Title\n\n- a [link](https://e.com)"))  # mistune's path


def test_every_built_session_page_has_one_h1_and_the_skip_link(tmp_path: Path) -> None:
    build_site(EXAMPLE, tmp_path / "site")
    pages = sorted((tmp_path / "site" / "sessions").glob("*.html"))
    assert pages
    for page in pages:
        doc = BeautifulSoup(page.read_text("utf-8"), "html.parser")
        assert len(doc.find_all("h1")) == 1, page.name
        first = doc.select(FOCUSABLE)[0]
        assert first.get("class") == ["skip-link"], page.name
        assert doc.find(id=first["href"][1:]) is not None, page.name
