"""A Read result is shown as the file it read: the ``   N→`` prefixes become a line-number gutter,
the lines are highlighted by the file's extension; any other result is drawn as before."""

from __future__ import annotations

from bs4 import BeautifulSoup
from helpers import render_session_page

from sessite.model import Event, Kind, Session, SourceRef, ToolCategory
from sessite.render.file_view import file_view, numbered

READ = (
    "    40→def total(items):\n    41→    return sum(items)\n    42→\n"
    "\n<system-reminder>\nBe careful.\n</system-reminder>\n"
)


def _page(tool: str, category: ToolCategory, text: str) -> BeautifulSoup:
    events = (
        Event("u", Kind.USER, text="read it"),
        Event("c", Kind.TOOL_CALL, tool_name=tool, category=category, call_id="k", path="src/cart.py"),
        Event("r", Kind.TOOL_RESULT, text=text, call_id="k"),
    )
    session = Session(id="fv", source=SourceRef("x.jsonl", "test"), agent="test", events=events, title="t")
    return BeautifulSoup(render_session_page(session), "html.parser")


def test_numbered_lines_are_told_from_what_follows_them() -> None:
    assert numbered(READ) == (
        40,
        ["def total(items):", "    return sum(items)", ""],
        "\n<system-reminder>\nBe careful.\n</system-reminder>\n",
    )
    assert numbered("     1→a\n     3→b") == (1, ["a"], "     3→b")  # a gap in the numbers ends the file
    assert numbered("total: 3→4") is None
    assert file_view("no numbers here", "a.py") is None


def test_a_read_result_has_a_gutter_and_highlighting() -> None:
    doc = _page("Read", ToolCategory.READ, READ)
    output = doc.select_one(".result .output.file")
    assert output is not None
    assert output.select_one("pre.gutter").get_text().split("\n") == ["40", "41", "42"]
    assert output.select_one("pre.gutter")["aria-hidden"] == "true"  # numbers, not content
    code = output.select_one(".hl pre")
    assert code.select_one("span.k").get_text() == "def"  # Python, from the path's extension
    assert "→" not in code.get_text()
    assert code.get_text() == "def total(items):\n    return sum(items)\n"
    assert output.select_one("pre.file-tail").get_text().startswith("<system-reminder>")


def test_other_results_are_drawn_as_before() -> None:
    doc = _page("Bash", ToolCategory.SHELL, READ)
    output = doc.select_one(".result .output")
    assert "file" not in output["class"] and output.select_one(".gutter") is None
    assert output.pre.get_text() == READ
