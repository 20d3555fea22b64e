"""Git-ref pages of a built site: parse the HTML, follow the links, check both ends."""

from __future__ import annotations

import collections
import json
from pathlib import Path
from urllib.parse import urlsplit

from helpers import EXAMPLE, build_site
from helpers import follow_link as follow
from helpers import parse_html as parse

CC_SESSION = "sessions/claude_code-7b3e9a52-4c1d-4f8e-9a2b-1d6c5e8f0a34.html"
FULL = "3f2a9c1e7b4d8f6a0c5e2d9b1a7f3c8e6d4b2a90"


def ref_pages(site: Path) -> list[Path]:
    return sorted(p for p in (site / "refs").rglob("*.html") if p.name != "index.html")


def find_ref_page(site: Path, kind: str, label: str, repo: str = "acme/webapp") -> Path:
    doc = parse(site / "refs" / "index.html")
    for section in doc.select("section.refs-repo"):
        if section.h2.a.get_text(strip=True) != repo:
            continue
        for a in section.select(f"a.ref-{kind}"):
            if a.get_text(strip=True) == label:
                return follow(site / "refs" / "index.html", a["href"])[0]
    raise AssertionError(f"no {kind} {label} in {repo} on the refs index")


def test_index_groups_by_repository_then_kind_and_every_link_resolves(example_site):
    _, site = example_site
    index = site / "refs" / "index.html"
    doc = parse(index)
    sections = doc.select("section.refs-repo")
    repos = [s.h2.a.get_text(strip=True) for s in sections]
    assert {"acme/webapp", "acme/api", "tidepool-dev/tidepool"} <= set(repos)
    webapp = sections[repos.index("acme/webapp")]
    kinds = [h.get_text(" ", strip=True).rsplit(" ", 1)[0] for h in webapp.find_all("h3")]
    assert kinds == ["Branches", "Issues & pull requests", "Commits"]
    linked = {follow(index, a["href"])[0] for a in doc.select("main a[href]") if not urlsplit(a["href"]).scheme}
    assert set(ref_pages(site)) <= linked, "the index links every ref page"
    # a repository page lists every ref of that repository
    repo_page = follow(index, webapp.h2.a["href"])[0]
    rows = {a.get_text(strip=True) for a in parse(repo_page).select("table.refs-table a.ref")}
    assert {"feature/login", "#42", "#57", "3f2a9c1"} <= rows


def test_every_ref_page_lists_sessions_and_deep_links_that_exist(example_site):
    _, site = example_site
    pages = ref_pages(site)
    assert len(pages) >= 10
    for page in pages:
        doc = parse(page)
        entries = doc.select("li.ref-session")
        assert entries, f"{page}: no session"
        for entry in entries:
            session_page, _ = follow(page, entry.select_one("a.session-link")["href"])
            assert session_page.parent.name == "sessions"
            assert entry.select_one(".agent") and entry.select_one(".role")
        for a in doc.select("a.mention"):
            target, fragment = follow(page, a["href"])
            assert fragment, f"{page}: mention without an event anchor"
            assert parse(target).find(id=fragment) is not None, f"{page}: {a['href']} points at no event"
            assert a.mark is not None and a.mark.get_text(strip=True)
        for a in doc.select("ul.ref-related a"):
            follow(page, a["href"])


def test_commit_page(example_site):
    _, site = example_site
    page = find_ref_page(site, "commit", "3f2a9c1")
    doc = parse(page)
    assert FULL in doc.select_one("dl.facts").get_text()
    assert doc.select_one("a.forge-link")["href"] == f"https://github.com/acme/webapp/commit/{FULL}"
    related = {a.get_text(strip=True) for a in doc.select("ul.ref-related a")}
    assert {"feature/login", "#42"} <= related
    marks = {m.get_text() for m in doc.select("a.mention mark")}
    assert {"3f2a9c1", FULL} <= marks  # the git output and the assistant's message
    hrefs = [a["href"] for a in doc.select("li.ref-session a.session-link")]
    assert hrefs == [f"../../../{CC_SESSION}"]
    assert "worked on it" in doc.select_one(".role").get_text()


def test_pull_request_page_links_its_branch(example_site):
    _, site = example_site
    page = find_ref_page(site, "issue", "#57")
    doc = parse(page)
    assert doc.h1.get_text(" ", strip=True).startswith("Pull request")
    assert doc.select_one("a.forge-link")["href"] == "https://github.com/acme/webapp/pull/57"
    branch = next(a for a in doc.select("ul.ref-related a") if a.get_text(strip=True) == "feature/login")
    branch_doc = parse(follow(page, branch["href"])[0])
    assert "#57" in {a.get_text(strip=True) for a in branch_doc.select("ul.ref-related a")}


def test_session_header_shows_refs_as_links(example_site):
    _, site = example_site
    page = site / CC_SESSION
    block = parse(page).select_one(".git-refs dd")
    labels = {}
    for span in block.select("span.ref"):
        a = span.find("a")
        labels[a.get_text(strip=True)] = span
    assert {"acme/webapp", "feature/login", "#57", "#42", "3f2a9c1"} <= set(labels)
    for label, span in labels.items():
        target, _ = follow(page, span.find("a")["href"])
        assert target.is_relative_to(site / "refs")
        forge = span.select_one("a.forge")
        assert forge is not None and forge["href"].startswith("https://github.com/acme/webapp"), label
    target = follow(page, labels["3f2a9c1"].find("a")["href"])[0]
    assert FULL in target.read_text("utf-8")


def test_refs_are_linked_where_they_appear_in_the_text(example_site):
    _, site = example_site
    page = site / CC_SESSION
    doc = parse(page)
    links = collections.defaultdict(set)
    for a in doc.select("a.gitref"):
        links[a.get_text()].add(follow(page, a["href"])[0].relative_to(site).as_posix())
        assert a.find_parent("a") is None, "never a link inside a link"
        event = a.find_parent(id=True)
        assert event is not None
    assert len(links["#42"]) == 1 and "/issue/42.html" in next(iter(links["#42"]))
    assert links[FULL] == links["3f2a9c1"]
    assert "acme/webapp#57" in links
    # the user's message: "(issue #42)"
    user = doc.select_one(".k-user .body")
    assert user.select_one("a.gitref").get_text() == "#42"
    # URLs that already were links stay one link each
    for a in doc.select("a[href^='https://github.com/acme/webapp/pull/57']"):
        assert not a.select("a")


def test_sessions_without_refs_have_no_git_block(example_site):
    _, site = example_site
    sage = next((site / "sessions").glob("sage-*.html"))
    assert parse(sage).select_one(".git-refs") is None


def test_nav_links_to_the_refs_index(example_site):
    _, site = example_site
    for page in [site / "index.html", site / CC_SESSION, find_ref_page(site, "commit", "3f2a9c1")]:
        nav = parse(page).select_one("a.nav-refs")
        assert follow(page, nav["href"])[0] == (site / "refs" / "index.html").resolve()


# ---------------------------------------------------------------- archives written for the test


def _cc(root: Path, folder: str, sid: str, cwd: str, branch: str, records: list[dict]) -> None:
    env = {
        "sessionId": sid,
        "cwd": cwd,
        "gitBranch": branch,
        "version": "2.1.39",
        "isSidechain": False,
        "userType": "external",
    }
    lines = []
    parent = None
    for i, rec in enumerate(records):
        uuid = f"{sid[:8]}-0000-4000-8000-{i:012d}"
        lines.append(
            {
                **env,
                "uuid": uuid,
                "parentUuid": parent,
                "timestamp": f"2026-01-0{1 + i // 50}T00:{i % 50:02d}:00Z",
                **rec,
            }
        )
        parent = uuid
    folder_path = root / folder
    folder_path.mkdir(parents=True, exist_ok=True)
    (folder_path / f"{sid}.jsonl").write_text("\n".join(json.dumps(line) for line in lines) + "\n")


def _user(text: str) -> dict:
    return {"type": "user", "message": {"role": "user", "content": text}}


def _assistant(text: str) -> dict:
    return {
        "type": "assistant",
        "message": {
            "id": f"msg_{abs(hash(text))}",
            "model": "m",
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "usage": {"input_tokens": 1, "output_tokens": 1},
        },
    }


def _bash(tool_id: str, command: str, output: str) -> list[dict]:
    return [
        {
            "type": "assistant",
            "message": {
                "id": f"msg_{tool_id}",
                "model": "m",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": command}}],
            },
        },
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": output}],
            },
        },
    ]


def test_unknown_repositories_are_said_so_and_never_merged(tmp_path):
    archive = tmp_path / "archive"
    _cc(
        archive,
        "-home-dev-alpha",
        "11111111-0000-4000-8000-000000000001",
        "/home/dev/alpha",
        "main",
        [_user("Please fix #12 on main")],
    )
    _cc(
        archive,
        "-home-dev-beta",
        "22222222-0000-4000-8000-000000000002",
        "/home/dev/beta",
        "main",
        [_user("Please fix #12 here too")],
    )
    _cc(
        archive,
        "-home-dev-gamma",
        "33333333-0000-4000-8000-000000000003",
        "/home/dev/gamma",
        "main",
        [
            _user("ship it"),
            *_bash(
                "toolu_1", "git push origin main", "To github.com:acme/gamma.git\n   1a2b3c4..5d6e7f8  main -> main\n"
            ),
        ],
    )
    report = build_site(archive, tmp_path / "site")
    assert report.published and not report.problems
    site = tmp_path / "site"
    mains = [p for p in ref_pages(site) if p.parent.name == "branch"]
    assert len(mains) == 3, "main in three checkouts is three refs"
    unknown = [p for p in mains if "Unknown repository" in p.read_text("utf-8")]
    assert len(unknown) == 2
    texts = {p: parse(p).select_one(".unknown-note").get_text(" ", strip=True) for p in unknown}
    assert {("/home/dev/alpha" in t, "/home/dev/beta" in t) for t in texts.values()} == {(True, False), (False, True)}
    for p in unknown:
        assert len(parse(p).select("li.ref-session")) == 1
        assert parse(p).select_one("a.forge-link") is None
    known = next(p for p in mains if p not in unknown)
    assert parse(known).select_one("a.forge-link")["href"] == "https://github.com/acme/gamma/tree/main"
    # the session page says the repository is unknown and still links its refs
    alpha = site / "sessions" / "claude_code-11111111-0000-4000-8000-000000000001.html"
    block = parse(alpha).select_one(".git-refs")
    assert "unknown repository" in block.get_text()
    assert {a.get_text(strip=True) for a in block.select("span.ref a")} >= {"main", "#12"}


def test_archive_wide_short_sha_rule_on_ref_pages(tmp_path):
    archive = tmp_path / "archive"
    full = "9d8c7b6a5f4e3d2c1b0a9d8c7b6a5f4e3d2c1b0a"
    _cc(
        archive,
        "-home-dev-app",
        "44444444-0000-4000-8000-000000000004",
        "/home/dev/app",
        "main",
        [_user("go"), *_bash("toolu_1", "git rev-parse HEAD", full + "\n")],
    )
    _cc(
        archive,
        "-home-dev-app",
        "55555555-0000-4000-8000-000000000005",
        "/home/dev/app",
        "main",
        [_user("Why did 9d8c7b6 break the build?")],
    )
    build_site(archive, tmp_path / "site")
    site = tmp_path / "site"
    page = next(p for p in ref_pages(site) if p.parent.name == "commit")
    doc = parse(page)
    roles = [e.select_one(".role").get_text() for e in doc.select("li.ref-session")]
    assert len(roles) == 2 and "mentions a prefix of it" in roles
    for a in doc.select("a.mention"):
        target, fragment = follow(page, a["href"])
        assert parse(target).find(id=fragment) is not None
    # the second session's own page does not depend on the first: no link there
    second = parse(site / "sessions" / "claude_code-55555555-0000-4000-8000-000000000005.html")
    assert not second.select("a.gitref") and second.select_one(".git-refs a[href*='/commit/']") is None


def test_forge_setting_changes_the_links(tmp_path):
    archive = tmp_path / "archive"
    _cc(
        archive,
        "-home-dev-x",
        "66666666-0000-4000-8000-000000000006",
        "/home/dev/x",
        "main",
        [
            _user("go"),
            *_bash("toolu_1", "git remote -v", "origin\tgit@git.example.com:team/tool.git (fetch)\n"),
            _assistant("Fixed in commit 1a2b3c4d, see issue #5."),
        ],
    )
    build_site(
        archive,
        tmp_path / "site",
        forge_url=("https://git.example.com/{repo}/-/commit/{sha}", "https://git.example.com/{repo}/-/issues/{issue}"),
    )
    site = tmp_path / "site"
    hrefs = {a["href"] for a in parse(site / "refs" / "index.html").select("a.forge")} | {
        a["href"] for p in ref_pages(site) for a in parse(p).select("a.forge-link")
    }
    assert "https://git.example.com/team/tool" in hrefs
    assert "https://git.example.com/team/tool/-/commit/1a2b3c4d" in hrefs
    assert "https://git.example.com/team/tool/-/issues/5" in hrefs
    assert not any("github.com" in h for h in hrefs)
    build_site(archive, tmp_path / "site2", forge_url=("none",))
    assert not parse(next(p for p in ref_pages(tmp_path / "site2") if p.parent.name == "commit")).select("a.forge-link")


PAYLOAD = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2">'


def test_links_in_text_keep_escaping(tmp_path):
    archive = tmp_path / "archive"
    text = f"{PAYLOAD} commit 1a2b3c4d and #7 `<b>#7</b>` [x](javascript:alert(1)) &#39;#7&#39; <a href='#7'>#7</a>"
    _cc(
        archive,
        "-home-dev-x",
        "77777777-0000-4000-8000-000000000007",
        "/home/dev/x",
        f"main{PAYLOAD}",
        [
            _user(text),
            _assistant(text),
            *_bash("toolu_1", f"git log -1 --oneline # {PAYLOAD}", f"1a2b3c4 {PAYLOAD} (#7)\n"),
        ],
    )
    build_site(archive, tmp_path / "site")
    site = tmp_path / "site"
    for page in [*site.glob("sessions/*.html"), *site.rglob("refs/**/*.html")]:
        doc = parse(page)
        assert not [s for s in doc.find_all("script") if s.string or not s.get("src", "").endswith(".js")], page
        assert not doc.find_all("img"), page
        for el in doc.find_all(True):
            assert not any(attr.startswith("on") for attr in el.attrs), page
        for a in doc.select("a.gitref"):
            assert a.get_text() in ("1a2b3c4d", "1a2b3c4", "#7") and not a.find(True)
    session = parse(next(site.glob("sessions/*.html")))
    assert PAYLOAD in session.select_one(".k-user .body").get_text()
    assert session.select(".k-user a.gitref")


def test_a_mention_opens_its_event(example_site, page):
    _, site = example_site
    ref = find_ref_page(site, "commit", "3f2a9c1")
    page.goto(ref.as_uri())
    page.locator("a.mention").nth(1).click()
    page.wait_for_load_state()
    assert page.url.endswith("#e-f0a1b2c3-aaaa-4dbe-8f3a-000000000001")
    target = page.locator(":target")
    assert target.count() == 1 and FULL in target.inner_text()
    page.locator(".session-details > summary").click()  # the refs are in the header's "Details"
    page.locator(".git-refs a", has_text="#57").click()
    page.wait_for_load_state()
    assert page.url.endswith("/issue/57.html")
    assert "Pull request" in page.locator("h1").inner_text()


def test_cli_forge_option(tmp_path):
    from click.testing import CliRunner

    from sessite.cli import main

    archive = tmp_path / "archive"
    _cc(
        archive,
        "-home-dev-x",
        "88888888-0000-4000-8000-000000000008",
        "/home/dev/x",
        "main",
        [
            _user("go"),
            *_bash(
                "toolu_1",
                "git push origin main",
                "To https://gitlab.com/grp/proj.git\n   1a2b3c4..5d6e7f8  main -> main\n",
            ),
        ],
    )
    bad = CliRunner().invoke(main, ["build", str(archive), "-o", str(tmp_path / "bad"), "--forge", "javascript:{repo}"])
    assert bad.exit_code == 2 and "--forge" in bad.output
    ok = CliRunner().invoke(main, ["build", str(archive), "-o", str(tmp_path / "site"), "-q", "--forge", "gitlab"])
    assert ok.exit_code == 0, ok.output
    page = next(p for p in ref_pages(tmp_path / "site") if p.parent.name == "branch")
    assert parse(page).select_one("a.forge-link")["href"] == "https://gitlab.com/grp/proj/-/tree/main"


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_ref_pages_rendered_on_forked_processes_are_the_same_pages(tmp_path, monkeypatch):
    """The ref pages render on every core (sessite/fanout.py); a site built that way is the
    site built in one process, byte for byte."""
    from sessite.outputs import fanout

    build_site(EXAMPLE, tmp_path / "one", jobs=1, cache_dir=tmp_path / "c1")
    monkeypatch.setattr(fanout, "FANOUT_MIN", 1)
    build_site(EXAMPLE, tmp_path / "forked", jobs=2, cache_dir=tmp_path / "c2")
    one, forked = _tree(tmp_path / "one" / "refs"), _tree(tmp_path / "forked" / "refs")
    assert len(one) > 10 and one == forked
    assert not list(tmp_path.glob(".*spool*")), "the spool folder is removed"


def test_a_ref_page_that_fails_to_render_is_a_problem_not_a_failed_build(tmp_path, monkeypatch):
    from sessite.outputs import fanout
    from sessite.render.renderer import Renderer

    monkeypatch.setattr(fanout, "FANOUT_MIN", 1)
    stream = Renderer.stream

    def flaky(self, page):
        if page.template == "ref.html" and "/commit/" in page.url:
            raise RuntimeError("boom")
        return stream(self, page)

    monkeypatch.setattr(Renderer, "stream", flaky)
    report = build_site(EXAMPLE, tmp_path / "site", jobs=2, cache_dir=tmp_path / "c")
    failed = [p for p in report.problems if "could not render refs/" in p.message and "boom" in p.message]
    assert failed and all("/commit/" in p.message for p in failed)
    assert (tmp_path / "site" / "refs" / "index.html").is_file() and not list(
        (tmp_path / "site" / "refs").rglob("commit/*.html")
    )
