"""Git-ref extraction: what counts as a branch, commit, issue or tag, and what never does."""

from __future__ import annotations

import itertools

import pytest

from sessite.analyze.refs import (
    DEFAULT_FORGE,
    Forge,
    RefKey,
    Repo,
    extract_refs,
    parse_invocations,
    parse_repo,
    valid_branch,
)
from sessite.model import Event, GitRefs, Kind, Session, SourceRef, ToolCategory
from sessite.site.urls import ref_url

_ids = itertools.count()
NO_GIT = GitRefs()


def session(*events, git: GitRefs = NO_GIT, cwd: str | None = "/home/dev/app") -> Session:
    flat: list[Event] = []
    for e in events:
        flat.extend(e if isinstance(e, tuple) else (e,))
    return Session(
        id=f"test-{next(_ids)}", source=SourceRef("x.jsonl", "test"), agent="test", events=tuple(flat), cwd=cwd, git=git
    )


def msg(text: str, kind: Kind = Kind.ASSISTANT) -> Event:
    return Event(id=f"m{next(_ids)}", kind=kind, text=text)


def shell(command: str, output: str) -> tuple[Event, Event]:
    n = next(_ids)
    return (
        Event(
            id=f"c{n}",
            kind=Kind.TOOL_CALL,
            tool_name="Bash",
            command=command,
            call_id=f"k{n}",
            category=ToolCategory.SHELL,
            tool_input={"command": command},
        ),
        Event(id=f"r{n}", kind=Kind.TOOL_RESULT, text=output, call_id=f"k{n}"),
    )


def tool(output: str, name: str = "Read") -> tuple[Event, Event]:
    n = next(_ids)
    return (
        Event(id=f"c{n}", kind=Kind.TOOL_CALL, tool_name=name, call_id=f"k{n}", tool_input={"file_path": "/x"}),
        Event(id=f"r{n}", kind=Kind.TOOL_RESULT, text=output, call_id=f"k{n}"),
    )


def names(refs, kind: str) -> set[str]:
    return {r.full_name for r in refs.refs.values() if r.key.kind == kind}


GH = "github.com"
WEBAPP = Repo(GH, "acme/webapp")


# ---------------------------------------------------------------- structured refs and git output


def test_git_commit_output_gives_commit_branch_and_issue():
    refs = extract_refs(
        session(
            shell(
                'git commit -m "Add login form (#42)"', "[feature/login 3f2a9c1] Add login form (#42)\n 3 files changed"
            ),
            shell(
                "git push -u origin feature/login",
                "To github.com:acme/webapp.git\n * [new branch]      feature/login -> feature/login\n",
            ),
        )
    )
    assert refs.scope == WEBAPP
    commit = refs.refs[RefKey(WEBAPP, "commit", "3f2a9c1")]
    branch = refs.refs[RefKey(WEBAPP, "branch", "feature/login")]
    issue = refs.refs[RefKey(WEBAPP, "issue", "42")]
    assert commit.worked and branch.worked and issue.worked
    assert (commit.key, branch.key) in refs.relations or (branch.key, commit.key) in refs.relations
    assert any({a.kind, b.kind} == {"commit", "issue"} for a, b in refs.relations)


def test_short_sha_joins_the_full_sha_it_prefixes():
    full = "3f2a9c1e7b4d8f6a0c5e2d9b1a7f3c8e6d4b2a90"
    refs = extract_refs(
        session(
            shell("git commit -m x", "[main 3f2a9c1] x"),
            msg(f"Done: commit `{full}` is on main."),
        )
    )
    commits = [r for r in refs.refs.values() if r.key.kind == "commit"]
    assert len(commits) == 1 and commits[0].full_name == full and commits[0].key.name == "3f2a9c1"


def test_a_short_sha_established_by_git_output_counts_in_prose_anywhere_later():
    refs = extract_refs(
        session(
            shell("git commit -m 'fix(test): restore'", "[main 5285071] fix(test): restore\n 3 files changed"),
            msg("커밋 완료했습니다.\n\n- 커밋: `5285071`\n- 상태: ahead 1"),
        )
    )
    commit = refs.refs[RefKey(Repo(None, "/home/dev/app"), "commit", "5285071")]
    assert len(commit.mentions) == 2
    # the prose mention is linked in the text of its event
    prose = [e for e, tokens in refs.links.items() if e.startswith("m")]
    assert prose and "5285071" in refs.links[prose[0]]


def test_git_log_fetch_and_pull_output():
    log = (
        "255c441 (origin/main) Merge pull request #16 from hwisu/x\ne95c618 refactor: y\n2669ea6 (HEAD -> main) ci: z\n"
    )
    fetch = (
        "From https://github.com/hwisu/opensession\n"
        "   2669ea6..255c441  main       -> origin/main\n"
        " * [new tag]         v0.2.33    -> v0.2.33\n"
    )
    refs = extract_refs(session(shell("git log --oneline --decorate -n 3", log), shell("git fetch origin", fetch)))
    repo = Repo(GH, "hwisu/opensession")
    assert refs.scope == repo
    assert names(refs, "commit") == {"255c441", "e95c618", "2669ea6"}
    assert refs.refs[RefKey(repo, "issue", "16")].pr
    assert names(refs, "branch") == {"main"}  # HEAD -> main; fetched tags are not worked on
    assert names(refs, "tag") == set()


def test_branch_and_tag_commands():
    refs = extract_refs(
        session(
            shell("git checkout -b fix/csv-amounts origin/main", "Switched to a new branch 'fix/csv-amounts'"),
            shell("git switch -c feature/x && git tag -a v1.4.0 -m 'release 1.4'", ""),
            shell("git push origin v1.4.0", " * [new tag]         v1.4.0 -> v1.4.0"),
            shell('git push --no-verify "$remote" "$ref:$ref"', ""),
        )
    )
    assert names(refs, "branch") == {"fix/csv-amounts", "feature/x"}
    assert names(refs, "tag") == {"v1.4.0"}


def test_gh_pr_create_links_the_pull_request_to_its_branch():
    refs = extract_refs(
        session(
            shell("git checkout -b feature/login", "Switched to a new branch 'feature/login'"),
            shell(
                'gh pr create --base main --title "Add login form" --body "Closes #42"',
                "https://github.com/acme/webapp/pull/57\n",
            ),
        )
    )
    pr = refs.refs[RefKey(WEBAPP, "issue", "57")]
    assert pr.pr and pr.worked
    assert any({a.kind, b.kind} == {"issue", "branch"} and "57" in (a.name, b.name) for a, b in refs.relations)


def test_structured_refs_and_repositories():
    refs = extract_refs(
        session(
            git=GitRefs(
                branches=("feature/rate-limit",),
                commits=("9c1e4b2",),
                issues=("#118", "acme/api#120"),
                tags=("v2.3.0",),
                repos=("acme/api",),
            )
        )
    )
    api = Repo(GH, "acme/api")
    assert refs.scope == api
    assert {k for k in refs.refs} == {
        RefKey(api, "branch", "feature/rate-limit"),
        RefKey(api, "commit", "9c1e4b2"),
        RefKey(api, "issue", "118"),
        RefKey(api, "issue", "120"),
        RefKey(api, "tag", "v2.3.0"),
    }
    assert all(r.worked for r in refs.refs.values())


def test_invalid_structured_values_are_kept_aside_not_made_refs():
    payload = "<script>alert(1)</script>"
    refs = extract_refs(session(git=GitRefs(branches=(payload,), commits=(payload, "not-a-sha"), repos=(payload,))))
    assert not refs.refs
    assert ("branch", payload) in refs.invalid and ("commit", "not-a-sha") in refs.invalid


# ---------------------------------------------------------------- repository scoping


def test_the_working_directory_is_never_a_repository():
    refs = extract_refs(session(msg("Fixes #12"), git=GitRefs(branches=("main",)), cwd="/home/dev/webapp"))
    assert not refs.scope.known and refs.scope.path == "/home/dev/webapp"
    assert not refs.repos
    assert {k.repo for k in refs.refs} == {Repo(None, "/home/dev/webapp")}


def test_same_branch_name_in_two_repositories_is_two_refs():
    a = extract_refs(session(git=GitRefs(branches=("main",), repos=("https://github.com/acme/api.git",))))
    b = extract_refs(session(git=GitRefs(branches=("main",), repos=("git@github.com:acme/webapp.git",))))
    c = extract_refs(session(git=GitRefs(branches=("main",)), cwd="/srv/other"))
    keys = {next(iter(r.refs)) for r in (a, b, c)}
    assert len(keys) == 3 and {k.name for k in keys} == {"main"}
    assert len({ref_url(k) for k in keys}) == 3


def test_remote_v_wins_over_mentions_of_other_repositories():
    refs = extract_refs(
        session(
            msg("See https://github.com/pydantic/pydantic/pull/2461 for the upstream fix."),
            shell(
                "git remote -v",
                "origin\thttps://github.com/hwisu/opensession.git (fetch)\n"
                "origin\thttps://github.com/hwisu/opensession.git (push)\n",
            ),
            msg("Fixes #3"),
        )
    )
    assert refs.scope == Repo(GH, "hwisu/opensession")
    assert RefKey(Repo(GH, "pydantic/pydantic"), "issue", "2461") in refs.refs
    assert RefKey(Repo(GH, "hwisu/opensession"), "issue", "3") in refs.refs


@pytest.mark.parametrize(
    "value, expected",
    [
        ("https://github.com/acme/webapp.git", (GH, "acme/webapp")),
        ("git@github.com:Acme/WebApp.git", (GH, "acme/webapp")),
        ("ssh://git@gitlab.example.com:2222/group/sub/proj.git", ("gitlab.example.com", "group/sub/proj")),
        ("https://user:ghp_secret@github.com/acme/webapp", (GH, "acme/webapp")),
        ("github.com:acme/webapp.git", (GH, "acme/webapp")),
        ("acme/webapp", (GH, "acme/webapp")),
        ("/home/dev/webapp", None),
        ("webapp", None),
        ("javascript:alert(1)", None),
        ("https://github.com/acme/webapp/tree/main", None),
    ],
)
def test_parse_repo(value, expected):
    repo = parse_repo(value, GH)
    assert (repo.host, repo.path) == expected if expected else repo is None
    if repo is not None:
        assert "secret" not in repo.key and "secret" not in repo.name


# ---------------------------------------------------------------- text mentions


def test_mentions_in_prose():
    refs = extract_refs(
        session(
            msg("Please fix issue #42 and look at acme/api#120, GH-7 and PR #57.", Kind.USER),
            msg(
                "Commit `3f2a9c1` reverts https://github.com/acme/webapp/commit/0123abcd0123abcd0123abcd0123abcd0123abcd."
            ),
            msg("See https://gitlab.com/grp/sub/proj/-/merge_requests/5 and https://codeberg.org/o/r/pulls/9."),
            git=GitRefs(repos=("acme/webapp",)),
        )
    )
    assert names(refs, "issue") == {"42", "120", "7", "57", "9"}
    assert refs.refs[RefKey(WEBAPP, "issue", "57")].pr
    assert RefKey(Repo("gitlab.com", "grp/sub/proj"), "mr", "5") in refs.refs
    assert names(refs, "commit") == {"3f2a9c1", "0123abcd0123abcd0123abcd0123abcd0123abcd"}


def test_full_sha_in_prose_counts_unless_called_a_digest():
    sha = "8f3c2e1a9b7d4c6e5f0a1b2c3d4e5f60718293a4"
    assert names(extract_refs(session(msg(f"Reproduced on {sha}."))), "commit") == {sha}
    for prefix in ("sha256 checksum:", "The blob", "api token", "file hash is"):
        assert not extract_refs(session(msg(f"{prefix} {sha}"))).refs, prefix


@pytest.mark.parametrize(
    "text",
    [
        # UUIDs, ids and hashes that are not commits
        "Session 7b3e9a52-4c1d-4f8e-9a2b-1d6c5e8f0a34 started; request id 0a1b2c3d4e5f6a7b.",
        "uuid: 01927a3e-5b1c-7def-8123-456789abcdef",
        "Chunk ID: 4be1c0 and 6b6512",
        'resolved "https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz#679591c564c3bffaae8454cf0b3df370c3d6911c"',
        '"integrity": '
        '"sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXPs17LhbZVGedAJv8XZ1tvj5FvSg=="',
        'checksum = "b9c5f5d7e8a1f0a2c3b4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7081920"',
        "FROM python@sha256:3f2a9c1e7b4d8f6a0c5e2d9b1a7f3c8e6d4b2a903f2a9c1e7b4d8f6a0c5e2d9b",
        "mask = 0xdeadbeef12 ^ 0x3f2a9c1",
        "objects/3f/2a9c1e7b4d8f6a0c5e2d9b1a7f3c8e6d4b2a90",
        "random blob a1b2c3d4e5 f00ba12 9876abc",
        "commit deadbeef and commit 1234567 are not SHAs",
        # colours and ordinals that are not issues
        "color: #333; background: #123456; border: 1px solid #999",
        "Use the colour #112233 for headings.",
        "Step #1: install. Item #2: run. This is the #1 priority.",
        "x = &#39;quoted&#39; and &#123;",
        "```css\n.a { color: #123 }\n.b { fill: #456 }\n```",
        "see docs/README.md#12 and path/to/file#3",
        "https://example.com/blog/issues/12 is a blog post",
        "https://github.com/acme/webapp/blob/main/docs/issues/12",
    ],
)
def test_false_positives(text):
    refs = extract_refs(session(msg(text)))
    assert not refs.refs, {k: r.mentions[:1] for k, r in refs.refs.items()}


def test_tool_output_only_counts_self_describing_refs():
    css = ".btn { color: #333; }\n/* fixes #12 */\ncommit 3f2a9c1e\n7b3e9a52-4c1d-4f8e-9a2b-1d6c5e8f0a34"
    web = '[{"title":"Scrollbar is unclickable · Issue #512 · xtermjs/xterm.js","url":"https://github.com/xtermjs/xterm.js/issues/512"}]'
    refs = extract_refs(session(tool(css), tool(web, "WebSearch")))
    assert set(refs.refs) == {RefKey(Repo(GH, "xtermjs/xterm.js"), "issue", "512")}


def test_diff_index_lines_are_blobs_not_commits():
    diff = "diff --git a/x b/x\nindex 0db96f2..e22cb6d 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"
    refs = extract_refs(session(shell("git diff", diff)))
    assert not refs.refs and all(sha not in ("0db96f2", "e22cb6d") for sha, _ in refs.candidates)


def test_mentions_are_bounded_and_snippets_short():
    text = " ".join(f"Fixes #{n}." for n in range(1, 5000))
    refs = extract_refs(session(msg(text)))
    assert 0 < len(refs.refs) <= 200
    for ref in refs.refs.values():
        for m in ref.mentions:
            assert len(m.before) + len(m.text) + len(m.after) < 200


def test_invocations_parser():
    subs = [
        (i.tool, i.sub)
        for i in parse_invocations(
            'cd x && GIT_DIR=y git -C repo commit -m "a; b" | tee log; gh pr view 12 -R acme/api'
        )
    ]
    assert subs == [("git", "commit"), ("gh", "pr view")]
    assert parse_invocations("echo digit gitlab") == []


@pytest.mark.parametrize(
    "name, ok",
    [
        ("main", True),
        ("feature/login", True),
        ("v2.3.0", True),
        ("HEAD", False),
        ("a..b", False),
        ("x y", False),
        ("$BRANCH", False),
        ("-rf", False),
        ("a.lock", False),
        ("<b>", False),
    ],
)
def test_valid_branch(name, ok):
    assert valid_branch(name) is ok


# ---------------------------------------------------------------- forge links and URLs


def test_forge_links():
    gh = DEFAULT_FORGE
    assert gh.url(WEBAPP, "commit", "3f2a9c1") == "https://github.com/acme/webapp/commit/3f2a9c1"
    assert gh.url(WEBAPP, "issue", "57", pr=True) == "https://github.com/acme/webapp/pull/57"
    assert gh.url(WEBAPP, "branch", "feature/login") == "https://github.com/acme/webapp/tree/feature/login"
    assert gh.url(Repo(None, "/x"), "commit", "3f2a9c1") is None
    lab = Repo("gitlab.com", "grp/proj")
    assert (
        gh.url(lab, "mr", "5") == "https://gitlab.com/grp/proj/-/merge_requests/5"
    )  # a known host keeps its own forge

    gitlab = Forge.from_config(["gitlab"])
    bare = parse_repo("acme/api", gitlab.default_host)
    assert gitlab.url(bare, "commit", "abc1234") == "https://gitlab.com/acme/api/-/commit/abc1234"

    custom = Forge.from_config(
        ["https://git.example.com/{repo}/-/commit/{sha}", "https://git.example.com/{repo}/-/issues/{issue}"]
    )
    mine = parse_repo("team/tool", custom.default_host)
    assert mine.host == "git.example.com"
    assert custom.url(mine, "commit", "abc1234") == "https://git.example.com/team/tool/-/commit/abc1234"
    assert custom.url(mine, "issue", "4") == "https://git.example.com/team/tool/-/issues/4"
    assert custom.url(mine) == "https://git.example.com/team/tool"
    assert custom.url(mine, "tag", "v1") is None  # no pattern given: no guess

    assert Forge.from_config(["none"]).url(WEBAPP) is None
    assert Forge.from_config(["javascript:{repo}"]).errors


def test_ref_urls_are_safe_and_collision_free():
    keys = [
        RefKey(WEBAPP, "branch", n)
        for n in ("feature/login", "feature-login", "Feature/Login", "feature/login/", "x" * 300, "ü/ß")
    ]
    urls = [ref_url(k) for k in keys]
    assert len(set(urls)) == len(urls)
    assert len({u.lower() for u in urls}) == len(urls)  # case-insensitive file systems too
    for url in urls:
        assert all(c.isalnum() or c in "/._-" for c in url), url
        assert len(url) < 200
    assert ref_url(RefKey(WEBAPP, "commit", "3f2a9c1")).endswith("/commit/3f2a9c1.html")
    assert Repo(None, "/a").slug != Repo(None, "/b").slug != Repo(None, "").slug
