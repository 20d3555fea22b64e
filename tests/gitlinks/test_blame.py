"""``--blame``: files at HEAD line by line, each line's commit as git blame says, the session turn
that wrote it, human and bot lines marked, the code redacted."""

from __future__ import annotations

import subprocess
from datetime import timedelta
from pathlib import Path

import pytest
from commit_repos import SID, T0, build, commit
from helpers import build_site, parse_html

TOKEN = "ghp_" + "Zq8Rk2Lm5Np7Tx9Vb3Hd6Jf1Wc4Ys0Ge8Ua2"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, object]]:
    tmp = tmp_path_factory.mktemp("blame")
    made = build(tmp)
    repo = made["repo"]
    assert isinstance(repo, Path)
    commit(repo, {"src/secret.py": [f'TOKEN = "{TOKEN}"', "print(TOKEN)"]}, "Oops", T0 + timedelta(hours=10))
    out = tmp / "site"
    report = build_site(
        made["archive"], out, repos=(repo,), blame=("src/*", "requirements.txt"), cache_dir=tmp / "c", jobs=1
    )
    assert report.published, report.leaks
    return out, made


def _rows(out: Path, path: str) -> list:
    return parse_html(out / "blame" / f"{path}.html").select("table.blame tbody tr")


def test_every_line_has_its_anchor_and_the_commit_git_blame_names(site: tuple[Path, dict[str, object]]) -> None:
    out, made = site
    raw = subprocess.run(
        ["git", "-C", str(made["repo"]), "blame", "-l", "-s", "HEAD", "--", "src/util.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    rows = _rows(out, "src/util.py")
    assert [r["id"] for r in rows] == [f"L{n}" for n in range(1, len(raw) + 1)]
    for row, line in zip(rows, raw):
        assert row.select_one(".blame-commit").get_text().strip() == line.split()[0][:8]


def test_lines_a_session_wrote_link_to_its_turn_and_the_rest_are_human(site: tuple[Path, dict[str, object]]) -> None:
    out, _ = site
    rows = _rows(out, "src/util.py")
    assert [r["class"][0] for r in rows] == ["blame-agent"] * 4 + ["blame-human"]
    href = rows[0].select_one("a.blame-turn")["href"]
    page, anchor = href.split("#")
    target = (out / "blame" / "src" / page).resolve()
    assert target.name == f"claude_code-{SID['human']}.html" and parse_html(target).find(id=anchor) is not None
    assert rows[0].select_one(".blame-code .hl, .blame-code pre, pre") is not None


def test_bot_lines_are_marked_and_code_is_highlighted(site: tuple[Path, dict[str, object]]) -> None:
    out, _ = site
    assert {r["class"][0] for r in _rows(out, "requirements.txt")} == {"blame-bot"}
    app = _rows(out, "src/app.py")
    assert app[0].select_one("pre span") is not None  # pygments classes on Python code


def test_blamed_code_is_redacted(site: tuple[Path, dict[str, object]]) -> None:
    out, _ = site
    text = (out / "blame" / "src" / "secret.py.html").read_text()
    assert TOKEN not in text and "print" in text


def test_gitai_ranges_attribute_lines(site: tuple[Path, dict[str, object]]) -> None:
    out, _ = site
    rows = _rows(out, "src/config.py")
    assert [r["class"][0] for r in rows] == ["blame-agent"] * 3 + ["blame-human"]
    assert rows[0].select_one("a.blame-turn")["href"].endswith(f"claude_code-{SID['gitai']}.html")
