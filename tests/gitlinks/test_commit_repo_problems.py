"""``--repo`` on what is not a clean repository (one problem line each), redaction of what commits
publish, and the incremental build that notices a new commit."""

from __future__ import annotations

import subprocess
from datetime import timedelta
from pathlib import Path

from commit_repos import APP, SID, T0, commit, git
from helpers import build_site, parse_html
from timeline_archive import Transcript

TOKEN = "ghp_" + "Zq8Rk2Lm5Np7Tx9Vb3Hd6Jf1Wc4Ys0Ge8Ua2"  # shaped like a GitHub token


def _archive(tmp: Path, repo: Path, sha: str) -> Path:
    t = Transcript(SID["own"], T0 + timedelta(minutes=10))
    t.user("Add a server")
    t.call("w1", "toolu_w1", "Write", {"file_path": f"{t.cwd}/src/app.py", "content": "\n".join(APP) + "\n"})
    t.result("toolu_w1", "File created")
    t.call("c1", "toolu_c1", "Bash", {"command": "git commit"})
    t.result("toolu_c1", f"[main {sha[:7]}] Add the server\n")
    t.write(tmp / "archive" / "p" / f"{t.sid}.jsonl")
    return tmp / "archive"


def _repo(
    tmp: Path, message: str = "Add the server", author: str = "Dana Example <dana@example.com>"
) -> tuple[Path, str]:
    repo = tmp / "shop"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, {"README.md": ["# Shop"]}, "Start", T0)
    return repo, commit(repo, {"src/app.py": APP}, message, T0 + timedelta(minutes=12), author=author)


def _problems(report) -> list[str]:
    return [str(p) for p in report.problems]


def test_a_folder_that_is_no_repository_is_one_problem(tmp_path: Path) -> None:
    repo, sha = _repo(tmp_path)
    plain = tmp_path / "plain"
    plain.mkdir()
    report = build_site(_archive(tmp_path, repo, sha), tmp_path / "site", repos=(plain,), cache_dir=tmp_path / "c")
    assert report.published
    lines = [p for p in _problems(report) if "plain" in p]
    assert len(lines) == 1 and "not a readable git repository" in lines[0] and "\n" not in lines[0]


def test_a_damaged_repository_is_one_problem(tmp_path: Path) -> None:
    repo, sha = _repo(tmp_path)
    parent = git(repo, "rev-parse", "HEAD~1")
    (repo / ".git" / "objects" / parent[:2] / parent[2:]).unlink()
    report = build_site(_archive(tmp_path, repo, sha), tmp_path / "site", repos=(repo,), cache_dir=tmp_path / "c")
    assert report.published
    lines = [p for p in _problems(report) if "shop" in p]
    assert len(lines) == 1 and "could not read the history" in lines[0]


def test_a_shallow_clone_is_read_with_one_problem(tmp_path: Path) -> None:
    repo, sha = _repo(tmp_path)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo}", str(clone)], check=True)
    report = build_site(_archive(tmp_path, repo, sha), tmp_path / "site", repos=(clone,), cache_dir=tmp_path / "c")
    lines = [p for p in _problems(report) if "clone" in p]
    assert len(lines) == 1 and "shallow" in lines[0]
    assert (tmp_path / "site" / "commits" / f"{sha}.html").is_file()


def test_commit_messages_paths_and_authors_are_redacted(tmp_path: Path) -> None:
    repo, sha = _repo(tmp_path, f"Add the server\n\nUse the token {TOKEN} for now")
    out = tmp_path / "site"
    report = build_site(_archive(tmp_path, repo, sha), out, repos=(repo,), cache_dir=tmp_path / "c", redact_pii=True)
    assert report.published, report.leaks
    for page in (out / "commits").rglob("*.html"):
        text = page.read_text()
        assert TOKEN not in text
        assert "dana@example.com" not in text and "Dana Example" not in text
    author = parse_html(out / "commits" / f"{sha}.html").select_one(".commit-author").get_text()
    assert author.startswith("author-")


def test_a_new_commit_is_picked_up_and_an_unchanged_repository_is_not_read_again(tmp_path: Path) -> None:
    repo, sha = _repo(tmp_path)
    archive, out, cache = _archive(tmp_path, repo, sha), tmp_path / "site", tmp_path / "c"
    build_site(archive, out, repos=(repo,), cache_dir=cache)
    cached = list((cache / "gitlinks").glob("*.pickle"))
    assert len(cached) == 1
    stamp = cached[0].stat().st_mtime_ns
    again = build_site(archive, out, repos=(repo,), cache_dir=cache)
    assert not again.changed_urls and cached[0].stat().st_mtime_ns == stamp
    newer = commit(repo, {"src/app.py": [*APP, "    # done serving"]}, "Note", T0 + timedelta(hours=1))
    build_site(archive, out, repos=(repo,), cache_dir=cache)
    rows = parse_html(out / "commits" / "shop" / "index.html").select("table.commits-table tbody tr")
    assert newer[:10] in rows[0].get_text() and len(rows) == 3


def test_an_incremental_read_keeps_old_commits_and_drops_unreachable_ones(tmp_path: Path) -> None:
    from sessite.gitlinks.repository import load_repository

    repo, sha = _repo(tmp_path)
    cache = tmp_path / "c"
    first = load_repository(repo, cache)
    assert not isinstance(first, str) and len(first.history.commits) == 2
    git(repo, "checkout", "-q", "-b", "side")
    side = commit(repo, {"side.txt": ["a side line here"]}, "Side", T0 + timedelta(hours=1))
    git(repo, "checkout", "-q", "main")
    newer = commit(repo, {"src/app.py": [*APP, "    # done serving"]}, "Note", T0 + timedelta(hours=2))
    second = load_repository(repo, cache)
    assert not isinstance(second, str)
    assert [c.sha for c in second.history.commits][:2] == [newer, side] and len(second.history.commits) == 4
    assert second.history.get(side) is not None and second.history.commits[0].files
    git(repo, "branch", "-q", "-D", "side")
    third = load_repository(repo, cache)
    assert not isinstance(third, str) and third.history.get(side) is None and len(third.history.commits) == 3


def test_claude_code_git_operation_links_without_the_printed_line(tmp_path: Path) -> None:
    repo, sha = _repo(tmp_path)
    t = Transcript(SID["gitai"], T0 + timedelta(minutes=11))
    t.user("Commit it")
    t.call("c1", "toolu_c1", "Bash", {"command": "git commit -q -m 'Add the server'"})
    t.result("toolu_c1", "", {"stdout": "", "gitOperation": {"commit": {"sha": sha[:7], "kind": "committed"}}})
    t.write(tmp_path / "archive" / "p" / f"{t.sid}.jsonl")
    out = tmp_path / "site"
    build_site(tmp_path / "archive", out, repos=(repo,), cache_dir=tmp_path / "c")
    page = parse_html(out / "commits" / f"{sha}.html")
    (li,) = page.select("li.commit-session")
    assert li["data-kinds"] == "git-commit-output" and li["data-session"].endswith(SID["gitai"])


def test_legacy_gitai_records_count_agent_and_human_lines() -> None:
    from sessite.gitlinks.stores import parse_legacy

    data = (
        b'{"files":{"a.py":{"authors":[{"author":"Claude Code","lines":[[1,10],12]},'
        b'{"author":"Dana Example","lines":[11]}]}},"schema_version":"authorship/0.0.1"}'
    )
    note = parse_legacy(data)
    assert note is not None and (note.ai_lines, note.human_lines, note.agents) == (11, 1, ["Claude Code"])
    assert note.session_at("a.py", 11) == "" and note.session_at("a.py", 3) is None


def test_missing_file_contents_leave_out_line_counts_only(tmp_path: Path) -> None:
    repo, sha = _repo(tmp_path)
    blob = git(repo, "rev-parse", "HEAD:src/app.py")
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    report = build_site(_archive(tmp_path, repo, sha), tmp_path / "site", repos=(repo,), cache_dir=tmp_path / "c")
    lines = [p for p in _problems(report) if "shop" in p]
    assert any("line counts are left out" in line for line in lines), lines
    links = parse_html(tmp_path / "site" / "commits" / f"{sha}.html").select("li.commit-session")
    assert [li["data-kinds"] for li in links] == ["git-commit-output"]


def test_a_heredoc_the_session_ran_is_evidence_for_a_human_commit(tmp_path: Path) -> None:
    repo = tmp_path / "shop"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, {"README.md": ["# Shop"]}, "Start", T0)
    body = ["def greet(name):", "    message = f'Hello {name}'", "    return message.upper()"]
    t = Transcript(SID["human"], T0 + timedelta(minutes=5))
    t.user("Write the greeter")
    script = "cat > src/greet.py <<'EOF'\n" + "\n".join(body) + "\nEOF\npython -m pytest -q"
    t.call("h1", "toolu_h1", "Bash", {"command": script})
    t.result("toolu_h1", "1 passed")
    t.write(tmp_path / "archive" / "p" / f"{t.sid}.jsonl")
    sha = commit(repo, {"src/greet.py": body}, "Greeter", T0 + timedelta(hours=1))
    out = tmp_path / "site"
    build_site(tmp_path / "archive", out, repos=(repo,), cache_dir=tmp_path / "c")
    (li,) = parse_html(out / "commits" / f"{sha}.html").select("li.commit-session")
    assert (li["data-kinds"], li["data-confidence"]) == ("content", "high")


def test_a_rebase_that_rewrote_the_printed_hash_still_links(tmp_path: Path) -> None:
    repo = tmp_path / "shop"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, {"README.md": ["# Shop"]}, "Start", T0)
    git(repo, "checkout", "-q", "-b", "feature")
    t = Transcript(SID["amended"], T0 + timedelta(minutes=5))
    t.user("Add a server")
    t.call("w1", "toolu_w1", "Write", {"file_path": f"{t.cwd}/src/app.py", "content": "\n".join(APP) + "\n"})
    t.result("toolu_w1", "File created")
    printed = commit(repo, {"src/app.py": APP}, "Add the server", t.clock)
    t.call("c1", "toolu_c1", "Bash", {"command": "git commit -m 'Add the server'"})
    t.result("toolu_c1", f"[feature {printed[:7]}] Add the server\n 1 file changed")
    t.write(tmp_path / "archive" / "p" / f"{t.sid}.jsonl")
    git(repo, "checkout", "-q", "main")
    commit(repo, {"docs/guide.md": ["A guide for the shop owners"]}, "Guide", T0 + timedelta(hours=1))
    git(repo, "checkout", "-q", "feature")
    git(repo, "rebase", "-q", "main", when=T0 + timedelta(hours=2))
    rebased = git(repo, "rev-parse", "HEAD")
    assert rebased != printed and git(repo, "log", "-1", "--format=%s") == "Add the server"
    out = tmp_path / "site"
    build_site(tmp_path / "archive", out, repos=(repo,), cache_dir=tmp_path / "c")
    (li,) = parse_html(out / "commits" / f"{rebased}.html").select("li.commit-session")
    assert li["data-kinds"].startswith("git-commit-output (rewritten)")
