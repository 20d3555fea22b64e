"""The fidelity check (benchmarks/fidelity_check.py) over the real logs in ../shared/formats/real.

Every record of every real file is shown, merged or left out with a reason; every user
prompt and assistant text is on a built page; every call the source answers is shown
with its result; no record type the readers know is shown as raw JSON.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers import REPO

sys.path.insert(0, str(REPO / "benchmarks"))

from fidelity.check import Figures, Page, Report, _on_page, _words, check  # noqa: E402
from fidelity.formats import enumerator  # noqa: E402

REAL = REPO.parent / "shared" / "formats" / "real"
REAL_AGENTS = REPO.parent / "shared" / "formats" / "real-agents"  # the agents of the "every agent" issue


@pytest.fixture(scope="module", params=[REAL, REAL_AGENTS], ids=["real", "real-agents"])
def report(request: pytest.FixtureRequest) -> Report:
    corpus: Path = request.param
    if not corpus.is_dir():
        pytest.skip(f"../shared/formats/{corpus.name} is not here")
    return check(corpus)


def _covered(report: Report) -> dict[str, Figures]:
    return {name: f for name, f in report.formats.items() if enumerator(name) is not None}


def test_every_format_in_the_real_logs_has_an_enumerator(report: Report) -> None:
    assert set(report.formats) == set(_covered(report))


def test_every_record_of_every_real_file_is_accounted_for(report: Report) -> None:
    for name, figures in _covered(report).items():
        assert figures.records > 0, name
        assert figures.unaccounted == [], name


def test_every_user_prompt_and_assistant_text_is_on_a_page(report: Report) -> None:
    for name, figures in _covered(report).items():
        assert figures.missing_texts == [], name
        assert figures.user_on_page == figures.user_texts, name
        assert figures.assistant_on_page == figures.assistant_texts, name


def test_every_call_the_source_answers_is_shown_with_its_result(report: Report) -> None:
    for name, figures in _covered(report).items():
        assert figures.unpaired == [], name


def test_no_record_type_the_issue_names_is_shown_as_raw_json(report: Report) -> None:
    for name, figures in _covered(report).items():
        assert not figures.raw_json_of_named_types(), name


def _page(text: str) -> Page:
    words = _words(text)
    return Page(" " + " ".join(words) + " ", {" ".join(words[i : i + 8]) for i in range(len(words) - 7)})


def test_a_text_is_on_a_page_only_when_its_words_are() -> None:
    page = _page("Intro. Run the tests with uv run pytest and read every failure before you change the code. Bye")
    assert _on_page("Run the tests with `uv run pytest` and read every failure before you change the code.", page)
    assert not _on_page("Run the benchmarks with uv run bench and read every figure before you change the code.", page)
    assert not _on_page("something else entirely", page)


def test_markdown_that_renders_differently_still_counts_as_shown() -> None:
    page = _page("See the docs here. Steps: open the file; save it. python code print 1 . __init__ is bold: init 中文")
    assert _on_page("See the [docs here](https://example.com/a_(b)). Steps:\n1. open the file;\n2. save it.", page)
    assert _on_page("```python\nprint(1)\n```", page)
    assert _on_page("中文", _page("中 文"))  # a link that ends inside a run of CJK characters
