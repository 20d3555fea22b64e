"""The Gemini Apps Takeout reader: prompts and HTML answers, app activity as notes, days as sessions.

The hand-made fixture (tests/fixtures/gemini_takeout/MyActivity.json) holds, newest first: feedback,
an image prompt with an attached sketch and a generated image, a chosen draft, a prompt whose
answer uses every HTML element Takeout writes (in two parts), a canvas, a prompt with a Gem,
an Assistant feature, a survey answer, an item with a broken time and one that is not an object.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from helpers import REPO, build_site, detected_by, parse_html

from sessite.model import Event, Kind, Problems, Session, walk
from sessite.readers import discover, registry
from sessite.readers.formats.gemini_takeout import READER
from sessite.readers.formats.gemini_takeout.html import html_markdown
from sessite.readers.ledger import Fate, keeping_ledger
from sessite.readers.locations import find
from sessite.readers.platform import Platform

sys.path.insert(0, str(REPO / "benchmarks"))
from fidelity.formats import enumerator  # noqa: E402

REAL = REPO.parent / "shared" / "formats" / "real-agents" / "gemini-takeout"


@pytest.fixture
def export(fixtures: Path) -> Path:
    return fixtures / "gemini_takeout" / "MyActivity.json"


def read_all(path: Path, problems: Problems | None = None) -> list[Session]:
    return list(READER.read(path, problems if problems is not None else Problems()))


def by_kind(session: Session, kind: Kind) -> list[Event]:
    return [e for e in walk(session.events) if e.kind == kind]


def test_registered_and_the_only_reader_of_its_files(export: Path, tmp_path: Path) -> None:
    assert READER in registry() and detected_by(export) == ["gemini_takeout"]
    search = tmp_path / "MyActivity.json"  # the Takeout of another product: not Gemini's
    search.write_text(json.dumps([{"header": "Search", "title": "Searched for bread", "time": "2025-01-01T00:00:00Z"}]))
    assert detected_by(search) == []
    cli = tmp_path / "session-2025.json"  # a Gemini CLI chat stays the gemini reader's
    cli.write_text(json.dumps({"sessionId": "s", "projectHash": "p", "messages": []}))
    assert not READER.detect_path(cli)


def test_one_session_per_day_in_time_order(export: Path) -> None:
    problems = Problems()
    first, second, undated = read_all(export, problems)
    assert [s.id for s in (first, second, undated)] == [
        "gemini_takeout-2025-09-01",
        "gemini_takeout-2025-09-02",
        "gemini_takeout-undated",
    ]
    assert first.agent == "gemini-apps" and first.meta["grouping"].startswith("one page per day")
    assert [e.line for e in first.events] == [8, 7, 6, 6, 5]  # oldest first
    assert [e.text for e in by_kind(second, Kind.USER)] == [
        "Explain <b>bold</b> tags & how to use them",
        "Turn this sketch into a logo",
    ]
    assert [e.text for e in by_kind(undated, Kind.USER)] == ["what time is it in Lagos"]
    messages = [str(p).split(": ", 1)[1] for p in problems.items]
    assert messages == [
        "Gemini Takeout: item #9 has no valid time; put with the undated ones",
        "Gemini Takeout: could not interpret activity item (TypeError: a str, not an object); shown as raw JSON",
    ]


def test_answers_are_markdown_made_from_the_html(export: Path) -> None:
    _, second, _ = read_all(export)
    answer, part = by_kind(second, Kind.ASSISTANT)[:2]
    assert answer.text.startswith("## Bold text in HTML\n\nUse `<strong>` for **important** text and *em* for stress.")
    assert "1. Write the tag." in answer.text and "2. Close it." in answer.text
    assert "```html\n<p>Hello <strong>world</strong></p>\n```" in answer.text
    assert "| Tag | Meaning |\n|---|---|\n| `b` | bold look |" in answer.text
    assert "> Prefer semantic tags." in answer.text
    assert "[the MDN page](https://developer.mozilla.org/en-US/docs/Web/HTML/Element/strong)" in answer.text
    assert part.text == "A second part of the answer."
    text, images = html_markdown('<p>a*b [c] <a href="javascript:alert(1)">x</a></p>')
    assert text == "a\\*b \\[c\\] x" and images == []


def test_files_and_app_activity(export: Path) -> None:
    first, second, _ = read_all(export)
    logo = by_kind(second, Kind.USER)[1]
    assert [(b.type, b.uri, b.title) for b in logo.blocks] == [("image", "sketch-1a2b3c.jpg", "sketch.jpg")]
    assert logo.meta == {"with": "1 generated image. Attached 1 file."}
    drawn = by_kind(second, Kind.ASSISTANT)[2]
    assert [(b.type, b.uri) for b in drawn.blocks] == [("image", "998877-1a2b3c.png")]
    notes = {e.title: e.text for e in walk(first.events + second.events) if e.kind == Kind.SYSTEM}
    assert set(notes) == {
        "Answered survey question",
        "Used an Assistant feature",
        "Selected preferred draft",
        "Gave feedback: Good response",
    }
    assert notes["Answered survey question"].endswith("Answer: ●●●●○")
    canvas = next(e for e in first.events if e.title == "Created Gemini Canvas titled Launch checklist")
    assert canvas.kind == Kind.ASSISTANT and canvas.text.startswith("# Launch checklist")
    gem = by_kind(first, Kind.USER)[0].blocks[0]
    assert (gem.type, gem.uri) == ("reference", "https://gemini.google.com/gems/view")


def test_every_item_is_shown(export: Path) -> None:
    with keeping_ledger() as ledger:
        read_all(export)
    fates = {line: fate for (path, line), (fate, _) in ledger.fates.items() if path == str(export)}
    assert sorted(fates) == list(range(1, 11)) and set(fates.values()) == {Fate.SHOWN}
    records_of = enumerator("gemini_takeout")
    assert records_of is not None
    records = list(records_of(export))
    assert [r.line for r in records] == list(range(1, 11))
    assert [t for r in records for t in r.user_texts][0] == "Turn this sketch into a logo"


def test_a_truncated_export_keeps_the_items_before_the_damage(export: Path, tmp_path: Path) -> None:
    cut = tmp_path / "MyActivity.json"
    text = export.read_text()
    cut.write_text(text[: text.index('"Selected preferred draft"')])
    problems = Problems()
    sessions = read_all(cut, problems)
    assert [e.title for s in sessions for e in s.events] == [None, None, "Gave feedback: Good response"]
    assert "truncated or malformed JSON" in str(problems.items[0])


def test_an_export_has_no_default_folder(tmp_path: Path) -> None:
    assert READER.agent == "" and READER.default_folders(Platform(tmp_path)) == []
    assert not [loc for loc in find(home=tmp_path) if loc.agent in ("gemini-apps", "gemini_takeout")]


def test_the_export_builds_a_page_per_day(export: Path, tmp_path: Path) -> None:
    archive = tmp_path / "Takeout"
    archive.mkdir()
    (archive / "MyActivity.json").write_bytes(export.read_bytes())
    report = build_site(archive, tmp_path / "site")
    assert report.published and report.sessions == 3
    page = parse_html(tmp_path / "site" / "sessions" / "gemini_takeout-2025-09-02.html")
    assert page.select("table") and page.select("pre")
    text = page.get_text(" ")
    assert "Bold text in HTML" in text and "Turn this sketch into a logo" in text
    assert not page.select("script[src*=alert]") and "javascript:" not in str(page.select(".body"))


def test_the_real_export_is_read_faithfully() -> None:
    real = sorted(REAL.glob("*.json")) if REAL.is_dir() else []
    if not real:
        pytest.skip("../shared/formats/real-agents/gemini-takeout is not here")
    for path in real:
        problems = Problems()
        sessions = read_all(path, problems)
        assert sessions and not problems.items
        assert not [e for s in sessions for e in by_kind(s, Kind.UNKNOWN)]
        assert all(e.timestamp for s in sessions for e in s.events)


def test_two_takeouts_make_one_page_per_day(export: Path, tmp_path: Path) -> None:
    items = json.loads(export.read_text())
    newer = [{**items[1], "title": "Prompted and a favicon too", "time": "2025-09-02T19:00:00.000Z"}, *items]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "MyActivity.json").write_text(json.dumps(items))
    (tmp_path / "b" / "MyActivity.json").write_text(json.dumps(newer))
    [claim] = discover(tmp_path, Problems(tmp_path)).claims
    sessions = {s.id: s for s in claim.read(Problems())}
    day = sessions["gemini_takeout-2025-09-02"]
    assert [e.text for e in by_kind(day, Kind.USER)][-1] == "and a favicon too"
    assert len(by_kind(day, Kind.USER)) == 3
