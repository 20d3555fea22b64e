"""Git refs across sessions: a working directory whose remote another session named is that
repository (one page per ref, not two); issue and pull request titles gh showed; the refs
index filtered by repository, kind and text. Built from small hand-made archives."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import build_site
from helpers import follow_link as follow
from helpers import parse_html as parse

from sessite.analyze.refs import Repo, extract_refs
from sessite.analyze.refs.titles import clean_title
from sessite.analyze.refs.workdirs import WorkdirRepos
from sessite.model import Problems
from sessite.readers.formats.claude_code.reader import ClaudeCodeReader

ALPHA = "11111111-0000-4000-8000-000000000001"  # /home/dev/alpha, pushes to acme/alpha
ALPHA_LOCAL = "22222222-0000-4000-8000-000000000002"  # /home/dev/alpha, names no remote
BETA = "33333333-0000-4000-8000-000000000003"  # /home/dev/beta, names no remote
ISSUE_VIEW = "title:\tLogin fails on Safari\nstate:\tOPEN\nauthor:\tdev\nlabels:\tbug\nnumber:\t12\n--\nSteps…\n"
ISSUE_LIST = "12\tOPEN\tLogin fails on Safari\tbug\t2026-01-01T00:00:00Z\n14\tOPEN\tDark mode toggle\t\t2026-01-02\n"


def _records(sid: str, cwd: str, records: list[dict[str, Any]]) -> str:
    env = {"sessionId": sid, "cwd": cwd, "gitBranch": "main", "version": "2.1.39", "isSidechain": False}
    lines, parent = [], None
    for i, rec in enumerate(records):
        uuid = f"{sid[:8]}-0000-4000-8000-{i:012d}"
        lines.append({**env, "userType": "external", "uuid": uuid, "parentUuid": parent, **rec})
        lines[-1]["timestamp"] = f"2026-01-0{1 + int(sid[0]) % 9}T00:{i:02d}:00Z"
        parent = uuid
    return "\n".join(json.dumps(line) for line in lines) + "\n"


def _write(root: Path, sid: str, cwd: str, records: list[dict[str, Any]]) -> None:
    folder = root / cwd.replace("/", "-")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{sid}.jsonl").write_text(_records(sid, cwd, records))


def _user(text: str) -> dict[str, Any]:
    return {"type": "user", "message": {"role": "user", "content": text}}


def _bash(tool_id: str, command: str, output: str) -> list[dict[str, Any]]:
    call = {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": command}}
    return [
        {
            "type": "assistant",
            "message": {"id": f"msg_{tool_id}", "model": "m", "role": "assistant", "content": [call]},
        },
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": output}],
            },
        },
    ]


def write_archive(root: Path) -> Path:
    """Three sessions: alpha names its remote; alpha-local (same folder) and beta (another) do not."""
    _write(
        root,
        ALPHA,
        "/home/dev/alpha",
        [
            _user("Please fix #12"),
            *_bash(
                "toolu_1", "git push origin main", "To github.com:acme/alpha.git\n   1a2b3c4..5d6e7f8  main -> main\n"
            ),
            *_bash("toolu_2", "gh issue view 12", ISSUE_VIEW),
            *_bash("toolu_3", 'gh pr create --title "Fix the Safari login" --body "Closes #12"', _pr_url(13)),
        ],
    )
    _write(root, ALPHA_LOCAL, "/home/dev/alpha/", [_user("Please fix #12 again"), _user("see issue #14")])
    _write(root, BETA, "/home/dev/beta", [_user("Please fix #12 here too")])
    return root


def _pr_url(number: int) -> str:
    return f"https://github.com/acme/alpha/pull/{number}\n"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("refs-join")
    report = build_site(write_archive(root / "archive"), root / "site")
    assert report.published and not report.problems
    return root / "site"


def _index_sections(site: Path) -> dict[str, Any]:
    doc = parse(site / "refs" / "index.html")
    return {
        s.h2.a.get_text(strip=True) + (" " + s.h2.code.get_text() if s.h2.code else ""): s
        for s in doc.select("section.refs-repo")
    }


def _page_of(site: Path, section: Any, kind: str, label: str) -> Path:
    a = next(a for a in section.select(f"a.ref-{kind}") if a.get_text(strip=True) == label)
    return follow(site / "refs" / "index.html", a["href"])[0]


def test_a_working_directory_whose_remote_is_known_is_that_repository(site):
    sections = _index_sections(site)
    assert set(sections) == {"acme/alpha", "unknown repository /home/dev/beta"}, "alpha's folder is not listed apart"
    alpha_12 = _page_of(site, sections["acme/alpha"], "issue", "#12")
    sessions = {a["href"].rsplit("/", 1)[-1] for a in parse(alpha_12).select("a.session-link")}
    assert sessions == {f"claude_code-{ALPHA}.html", f"claude_code-{ALPHA_LOCAL}.html"}
    # #14 was only ever named by the session without a remote: it is acme/alpha's too
    assert _page_of(site, sections["acme/alpha"], "issue", "#14")
    beta_12 = _page_of(site, sections["unknown repository /home/dev/beta"], "issue", "#12")
    assert {a["href"].rsplit("/", 1)[-1] for a in parse(beta_12).select("a.session-link")} == {
        f"claude_code-{BETA}.html"
    }
    issue_pages = sorted(p for p in (site / "refs").rglob("issue/12.html") if not parse(p).select("a[data-forward]"))
    assert len(issue_pages) == 2, "one #12 per repository: acme/alpha's and beta's"


def test_the_links_of_a_session_page_rendered_alone_forward_to_the_joined_page(site):
    page = site / "sessions" / f"claude_code-{ALPHA_LOCAL}.html"
    links = [a for a in parse(page).select(".git-refs a[href*='refs/']") if a.get_text(strip=True) == "#12"]
    assert links, "the session header links #12"
    stub, _ = follow(page, links[0]["href"])
    doc = parse(stub)
    forward = doc.select_one("a[data-forward]")
    assert forward is not None and doc.select_one("script[src$='static/forward.js']") is not None
    target, _ = follow(stub, forward["href"])
    assert "acme-alpha" in str(target) and target.name == "12.html"
    assert not doc.select("li.ref-session"), "a forwarding page lists nothing itself"


def test_a_tie_between_two_remotes_joins_nothing():
    table = WorkdirRepos()
    a, b = Repo("github.com", "acme/app"), Repo("github.com", "fork/app")
    table.add("/src/app", a)
    table.add("/src/app/", b)
    table.add("/src/other", Repo(None, "/src/other"))
    assert table.repo_of("/src/app") is None
    table.add("/src/app", a)
    assert table.repo_of("/src/app/") == a
    assert table.resolve({Repo(None, "/src/app"), Repo(None, "/src/other"), Repo(None, "/src/app/sub")}) == {
        Repo(None, "/src/app"): a
    }, "only the same folder, never one below or an unknown one"


def test_titles_gh_showed_are_on_the_index_the_repository_page_and_the_ref_page(site):
    section = _index_sections(site)["acme/alpha"]
    titles = {li.a.get_text(strip=True): li.select_one(".ref-title").get_text() for li in section.select("li.titled")}
    assert titles == {"#12": "Login fails on Safari", "#13": "Fix the Safari login"}
    page = _page_of(site, section, "issue", "#12")
    assert parse(page).h1.select_one(".ref-title").get_text() == "Login fails on Safari"
    repo_page = follow(site / "refs" / "index.html", section.h2.a["href"])[0]
    cells = {td.a.get_text(strip=True): td.select_one(".ref-title") for td in parse(repo_page).select("td.ref-cell")}
    assert cells["#13"].get_text() == "Fix the Safari login" and cells["main"] is None


def _session(records: list[dict[str, Any]], tmp_path: Path) -> Any:
    path = tmp_path / "s.jsonl"
    path.write_text(_records(ALPHA, "/home/dev/alpha", records))
    return next(iter(ClaudeCodeReader().read(path, Problems())))


@pytest.mark.parametrize(
    ("command", "output", "expected"),
    [
        ("gh issue view 12", ISSUE_VIEW, {"12": "Login fails on Safari"}),
        (
            "gh issue view 12",
            "Login fails on Safari #12\nOpen • dev opened 2 days ago • 0 comments\n",
            {"12": "Login fails on Safari"},
        ),
        (
            "gh pr view 7 --json title,number",
            '{"number": 7, "title": "Use the new client"}',
            {"7": "Use the new client"},
        ),
        ("gh issue list", ISSUE_LIST, {"12": "Login fails on Safari", "14": "Dark mode toggle"}),
        (
            "gh pr list",
            "#31  Bump deps  deps/bump  about 1 day ago\n#32  Faster search  search  now\n",
            {"31": "Bump deps", "32": "Faster search"},
        ),
        (
            'gh issue create -t "Crash on start" -b x',
            "https://github.com/acme/alpha/issues/40\n",
            {"40": "Crash on start"},
        ),
        ("gh issue view 12", "no such issue\n", {}),
        ("echo 'title:\tNot gh'", "title:\tNot gh\nnumber:\t3\n", {}),
    ],
)
def test_titles_come_only_from_what_gh_printed(tmp_path, command, output, expected):
    found = extract_refs(_session([_user("go"), *_bash("toolu_1", command, output)], tmp_path))
    assert {key.name: title for key, title in found.titles.items() if key.kind == "issue"} == expected


def test_a_title_is_one_short_line():
    assert clean_title("  Fix\n the   login ") == "Fix the login"
    assert clean_title("OPEN") is None and clean_title("1234") is None and clean_title(None) is None
    assert len(clean_title("x" * 500) or "") == 160


def test_the_refs_index_filters_by_repository_kind_and_text(site, page):
    index = (site / "refs" / "index.html").as_uri()
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(index)
    shown = page.locator("output[name=shown]")
    assert page.locator("[data-refs-filter]").is_visible()
    total = page.locator("section.refs-repo li").count()
    assert shown.text_content() == f"{total} of {total} refs shown"
    page.fill("[data-refs-filter] input[name=q]", "safari")
    assert page.locator("section.refs-repo li:visible").all_text_contents() == [
        li for li in page.locator("section.refs-repo li:visible").all_text_contents() if "Safari" in li
    ]
    assert {t.split()[0] for t in page.locator("section.refs-repo li:visible").all_text_contents()} == {"#12", "#13"}
    assert page.locator("section.refs-repo:visible").count() == 1, "beta's #12 has no such title"
    page.fill("[data-refs-filter] input[name=q]", "")
    page.select_option("[data-refs-filter] select[name=kind]", "branch")
    visible = page.locator("section.refs-repo li:visible").all_text_contents()
    assert visible and all(t.startswith("main") for t in visible)
    assert page.locator(".ref-group[data-kind=issue]:visible").count() == 0
    page.select_option("[data-refs-filter] select[name=kind]", "")
    repo = page.locator("section.refs-repo").nth(1).get_attribute("data-repo")
    page.select_option("[data-refs-filter] select[name=repo]", repo)
    assert page.locator("section.refs-repo:visible").count() == 1
    assert page.locator("section.refs-repo:visible").get_attribute("data-repo") == repo
    page.fill("[data-refs-filter] input[name=q]", "no such ref")
    assert page.locator("[data-refs-empty]").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    # from the address, so other pages can link a filtered view
    page.goto(index + "?kind=issue&q=%2313")
    assert {t.split()[0] for t in page.locator("section.refs-repo li:visible").all_text_contents()} == {"#13"}


def test_a_forwarding_page_lands_on_the_joined_page(site, page):
    stub = next(p for p in (site / "refs").rglob("issue/14.html") if parse(p).select("a[data-forward]"))
    page.goto(stub.as_uri() + "#x")
    page.wait_for_url(lambda url: "acme-alpha" in url and url.endswith("/issue/14.html#x"))
    assert page.locator("h1").text_content().strip().startswith("Issue")
