"""Text as it was written: a person's prompt and a hook's output keep their line breaks.

A pasted table and a compiler's error list are built into a real site from a Claude Code
log, and the page is parsed: each line is its own line (a <pre>, or a <br> between lines),
while an assistant's text is drawn as markdown always drew it.
"""

from __future__ import annotations

import json
from pathlib import Path

from bs4 import Tag
from helpers import build_site, parse_html

from sessite.render.markup import markdown, prose

SID = "3a3a3a3a-1111-4222-8333-444444444444"

TABLE = "Name        Size   Modified\nreport.pdf  12 KB  2024-01-02\nnotes.txt   1 KB   2024-01-03"
ERRORS = (
    "src/main.rs:10:5: error[E0308]: mismatched types\n"
    "src/main.rs:12:9: error[E0425]: cannot find value `x` in this scope\n"
    "src/lib.rs:3:1: warning: unused import: `std::fmt`"
)
PROMPT = f"Here is the listing:\n{TABLE}\n\nThe build says:\n{ERRORS}\n\nFix *both*, please.\nThen run the tests."


def _record(uuid: str, parent: str | None, kind: str, content: object, second: int) -> str:
    return json.dumps(
        {
            "parentUuid": parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": "/home/dev/shop",
            "sessionId": SID,
            "version": "2.1.0",
            "uuid": uuid,
            "timestamp": f"2026-08-17T13:36:{second:02d}.000Z",
            "type": kind,
            "message": {"role": kind, "content": content}
            | ({"model": "claude-x", "id": "m1", "type": "message"} if kind == "assistant" else {}),
        }
    )


def _page(tmp_path: Path, assistant_text: str = "Done.\nBoth fixed.") -> Path:
    archive = tmp_path / "archive"
    archive.mkdir()
    lines = [
        _record("u-1", None, "user", PROMPT, 1),
        _record("a-1", "u-1", "assistant", [{"type": "text", "text": assistant_text}], 2),
    ]
    (archive / f"{SID}.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    report = build_site(archive, tmp_path / "site")
    assert report.published
    pages = list((tmp_path / "site" / "sessions").glob("*.html"))
    assert len(pages) == 1
    return pages[0]


def _lines_of(tag: Tag) -> list[str]:
    """The lines a reader sees in an element: <br> and newlines in <pre> both break a line."""
    for br in tag.find_all("br"):
        br.replace_with("\n")
    return [line.strip() for line in tag.get_text().split("\n") if line.strip()]


def test_a_pasted_table_and_an_error_list_keep_their_lines(tmp_path: Path) -> None:
    doc = parse_html(_page(tmp_path))
    user = doc.select_one("li.k-user .body")
    assert user is not None
    seen = _lines_of(user)
    for line in [*TABLE.split("\n"), *ERRORS.split("\n")]:
        assert line in seen, f"{line!r} is not a line of its own: {seen}"
    # the table and the error list are preformatted: their columns keep their spaces
    pres = [pre.get_text() for pre in user.find_all("pre")]
    assert any(TABLE in pre for pre in pres)
    assert any(ERRORS in pre for pre in pres)
    # the prose around them is still markdown, its lines still apart
    assert user.find("em").get_text() == "both"
    assert "Then run the tests." in seen and "Fix both, please." in seen


def test_an_assistants_text_is_drawn_as_before(tmp_path: Path) -> None:
    doc = parse_html(_page(tmp_path))
    body = doc.select_one("li.k-assistant .body")
    assert body is not None
    assert body.find("br") is None and "".join(str(c) for c in body.contents) == str(markdown("Done.\nBoth fixed."))


def test_prose_is_markdown_where_no_line_break_is_inside_a_paragraph() -> None:
    for text in ("one line", "para one\n\npara two", "# Title\n\ntext", "", "```py\nx = 1\n```"):
        assert prose(text) == markdown(text)


def test_lists_and_markdown_tables_stay_markdown() -> None:
    html = str(prose("Steps:\n- one\n  more of one\n  and more\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |"))
    assert "<pre" not in html
    assert "<li>one<br />\nmore of one<br />\nand more</li>" in html
    assert "<table>" in html


def test_a_single_aligned_line_is_prose_and_a_fenced_block_is_kept() -> None:
    html = str(prose("a  b\nnext line"))
    assert "<pre" not in html and "<br />" in html
    fenced = str(prose("look:\n```\nx    y\nz    w\n```\nend"))
    assert fenced.count("<pre") == 1
