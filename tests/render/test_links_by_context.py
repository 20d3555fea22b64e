"""Links only where the text means one: ``#N`` is an issue after a word that says so (or in
a URL, or as ``owner/repo#N``), never a numbered finding; a path the model wrote is a path.

Checked both in what the refs extraction records and on the rendered page, parsed.
"""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from helpers import render_session_page

from sessite.analyze.refs import extract_refs, means_issue
from sessite.model import Event, GitRefs, Kind, Session, SourceRef
from sessite.render.markup import markdown

GIT = GitRefs(repos=("acme/webapp",))


def _session(*texts: str, kind: Kind = Kind.ASSISTANT) -> Session:
    events = tuple(Event(id=f"m{i}", kind=kind, text=text) for i, text in enumerate(texts))
    return Session(
        id="links", source=SourceRef("x.jsonl", "test"), agent="test", events=events, cwd="/home/dev/app", git=GIT
    )


def _issues(*texts: str) -> set[str]:
    refs = extract_refs(_session(*texts))
    return {r.full_name for r in refs.refs.values() if r.key.kind == "issue"}


def _linked(*texts: str) -> list[str]:
    doc = BeautifulSoup(render_session_page(_session(*texts)), "html.parser")
    return [a.get_text() for a in doc.select(".timeline .body a.gitref")]


@pytest.mark.parametrize(
    ("text", "issues"),
    [
        ("Fixes #12.", {"12"}),
        ("This closes #3", {"3"}),
        ("Resolves: #4", {"4"}),
        ("See issue #42 and PR #57.", {"42", "57"}),
        ("pull #8 is merged", {"8"}),
        ("refs #9", {"9"}),
        ("Fixed issues #1, #2 and #3.", {"1", "2", "3"}),
        ("see https://github.com/acme/webapp/issues/77", {"77"}),
        ("acme/webapp#120 is related", {"120"}),
    ],
)
def test_a_number_is_an_issue_where_the_text_says_so(text: str, issues: set[str]) -> None:
    assert _issues(text) == issues


@pytest.mark.parametrize(
    "text",
    [
        "Review findings: #1 and #2 are real bugs, #3 is style.",
        "#1 off-by-one in parse()\n#2 missing test",
        "See #4 above.",
        "Bug #5: the cache is never cleared.",
    ],
)
def test_a_bare_number_is_not_an_issue(text: str) -> None:
    assert _issues(text) == set()
    assert _linked(text) == []


def test_links_in_text_follow_the_same_rule() -> None:
    # "#1" is an issue in the first message; the same "#1" in a list of findings stays text
    linked = _linked("Fixes #1.", "Two findings: #1 and #2.")
    assert linked == ["#1"]
    assert not means_issue("Two findings: #1 and #2.", 14)
    assert means_issue("issues #1 and #2", 14)
    assert means_issue("[main 3f2a9c1] Add login (#42)", 26)


@pytest.mark.parametrize(
    "path", ["/Users/me/src/app.py", "/home/dev/app/README.md", "~/notes.txt", "C:\\work\\app.py", "c:/work/app.py"]
)
def test_an_absolute_path_is_shown_as_a_path(path: str) -> None:
    html = BeautifulSoup(str(markdown(f"Changed [app.py]({path}) and ![shot]({path})")), "html.parser")
    assert html.find("a") is None
    spans = html.select("span.path")
    assert [s.get_text() for s in spans] == ["app.py", "[image: shot]"]
    assert all(s["title"] == path for s in spans)


def test_web_and_page_links_stay_links() -> None:
    html = BeautifulSoup(str(markdown("[docs](https://example.com/a) and [above](#e-3)")), "html.parser")
    assert [a["href"] for a in html.find_all("a")] == ["https://example.com/a", "#e-3"]


def test_a_path_on_the_built_page_is_text() -> None:
    doc = BeautifulSoup(render_session_page(_session("Edited [x.py](/Users/me/x.py).")), "html.parser")
    body = doc.select_one(".timeline .body")
    assert body is not None and body.find("a") is None
    assert body.select_one("span.path")["title"] == "/Users/me/x.py"
