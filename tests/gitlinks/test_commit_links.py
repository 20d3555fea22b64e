"""Commits linked to sessions (``--repo``), on repositories built here with git: every link kind,
every negative, read from the built pages."""

from __future__ import annotations

from pathlib import Path

import pytest
from commit_repos import SID, build
from helpers import build_site, parse_html


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, object]]:
    tmp = tmp_path_factory.mktemp("commits")
    made = build(tmp)
    out = tmp / "site"
    report = build_site(made["archive"], out, repos=(made["repo"],), cache_dir=tmp / "cache", jobs=1)
    assert report.published, report.problems
    return out, made


def _links(out: Path, sha: object) -> dict[str, tuple[str, str]]:
    """session id -> (kinds, confidence) on a commit's page."""
    page = parse_html(out / "commits" / f"{sha}.html")
    return {li["data-session"]: (li["data-kinds"], li["data-confidence"]) for li in page.select("li.commit-session")}


def _session(key: str) -> str:
    return f"claude_code-{SID[key]}"


def test_printed_commit_links_with_its_turn(site: tuple[Path, dict[str, object]]) -> None:
    out, made = site
    links = _links(out, made["own"])
    assert links == {_session("own"): ("git-commit-output content", "high")}
    page = parse_html(out / "commits" / f"{made['own']}.html")
    turn = page.select_one("a.commit-turn")["href"]
    target, anchor = turn.split("#")
    assert (out / "commits" / target).resolve().is_file()
    assert parse_html((out / "commits" / target).resolve()).find(id=anchor) is not None
    assert "100 %" in page.select_one(".link-share").get_text()


def test_amended_commit_found_by_subject_and_date(site: tuple[Path, dict[str, object]]) -> None:
    out, made = site
    assert made["amended"] != made["amended_printed"]
    kinds, confidence = _links(out, made["amended"])[_session("amended")]
    assert kinds == "git-commit-output (rewritten) content" and confidence == "high"  # the content confirms it
    assert not (out / "commits" / f"{made['amended_printed']}.html").exists()


def test_human_commit_of_agent_edits_links_by_content(site: tuple[Path, dict[str, object]]) -> None:
    out, made = site
    kinds, confidence = _links(out, made["human"])[_session("human")]
    assert kinds == "content" and confidence == "high"
    page = parse_html(out / "commits" / f"{made['human']}.html")
    assert "80 %" in page.select_one(".link-share").get_text()  # 4 of the 5 added lines


def test_sibling_repository_lookalike_is_not_linked(site: tuple[Path, dict[str, object]]) -> None:
    out, made = site
    page = out / "commits" / f"{made['lookalike']}.html"
    assert not page.exists() or not _links(out, made["lookalike"])


def test_bot_commit_is_never_linked(site: tuple[Path, dict[str, object]]) -> None:
    out, made = site
    page = out / "commits" / f"{made['bot']}.html"
    assert not page.exists() or not _links(out, made["bot"])


def test_entire_checkpoints_both_forms(site: tuple[Path, dict[str, object]]) -> None:
    out, made = site
    assert _links(out, made["entire"]) == {_session("entire"): ("entire-checkpoint", "high")}
    page = parse_html(out / "commits" / f"{made['entire']}.html")
    stored = page.select_one("ul.commit-stored").get_text(" ")
    assert "not-in-archive-session" in stored and "Codex" in stored
    marks = page.select_one("ul.commit-marks").get_text(" ")
    assert "Claude Opus 5" in marks and "an agent, not a session" in marks
    assert "a71156299398" in marks and "01M0CMD2M3YA1TN5W4K5W3TG8E" in marks


def test_gitai_note_links_with_its_lines(site: tuple[Path, dict[str, object]]) -> None:
    out, made = site
    assert _links(out, made["gitai"]) == {_session("gitai"): ("git-ai-note", "high")}
    page = parse_html(out / "commits" / f"{made['gitai']}.html")
    assert "75 %" in page.select_one(".link-share").get_text()  # 3 of 4 lines


def test_repository_page_lists_every_commit(site: tuple[Path, dict[str, object]]) -> None:
    out, made = site
    page = parse_html(out / "commits" / "shop" / "index.html")
    rows = page.select("table.commits-table tbody tr")
    assert len(rows) == 8
    assert len(page.select("table.commits-table tbody tr.linked")) == 5  # own, amended, human, entire, gitai
    assert page.select("table.commits-months tbody tr")


def test_session_script_lists_its_commits(site: tuple[Path, dict[str, object]]) -> None:
    out, made = site
    script = (out / "commits" / "sessions" / f"{_session('human')}.js").read_text()
    assert f"commits/{made['human']}.html" in script
    empty = (out / "commits" / "sessions" / f"{_session('sibling')}.js").read_text()
    assert '"commits":[]' in empty
    page = parse_html(out / "sessions" / f"{_session('human')}.html")
    assert page.select_one("[data-session-commits]") is not None


def test_ref_page_links_to_the_commit_page(site: tuple[Path, dict[str, object]]) -> None:
    out, made = site
    short = str(made["own"])[:7]
    pages = [p for p in (out / "refs").rglob(f"{short}*.html")]
    assert pages, "the printed commit has a ref page"
    link = parse_html(pages[0]).select_one("a.commit-page")
    assert link is not None and link["href"].endswith(f"commits/{made['own']}.html")
    assert (pages[0].parent / link["href"]).resolve().is_file()


def test_month_figures_add_up(site: tuple[Path, dict[str, object]]) -> None:
    out, _ = site
    page = parse_html(out / "commits" / "shop" / "index.html")
    for row in page.select("table.commits-months tbody tr"):
        cells = [td.get_text(strip=True) for td in row.select("td")]
        added, agent = int(cells[3]), int(cells[4])
        assert 0 < agent <= added and cells[5] == f"{round(agent / added * 100)} %"
        by_agent = sum(int(part.rsplit(":", 1)[1]) for part in cells[6].split(";") if part)
        assert abs(by_agent - agent) <= 1, cells


def test_every_page_leads_to_the_repositories(site: tuple[Path, dict[str, object]]) -> None:
    out, _ = site
    session = out / "sessions" / f"{_session('own')}.html"
    nav = parse_html(session).select_one("a.nav-commits")
    assert nav is not None and (session.parent / nav["href"]).resolve() == (out / "commits" / "index.html")
    (item,) = parse_html(out / "commits" / "index.html").select("ul.commits-repos li")
    assert (
        item.a["href"] == "../commits/shop/index.html"
        and "8 commits" in item.get_text()
        and "5 linked" in item.get_text()
    )
