"""``sessite serve ARCHIVE --repo PATH``: the preview builds the commit pages, and a new commit or
note in the repository (its refs, not its objects or index) rebuilds them."""

from __future__ import annotations

import json
import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner
from commit_repos import SID, T0, build, commit, git
from test_serve import get, wait_for

from sessite.cli.app import main
from sessite.config import SiteConfig
from sessite.serve.server import PreviewState, make_server, ref_change, repo_git_dirs, watch_loop


def _soup(body: bytes) -> BeautifulSoup:
    return BeautifulSoup(body.decode("utf-8"), "html.parser")


def _note(sid: str) -> str:
    meta = {
        "schema_version": "authorship/3.0.0",
        "sessions": {"s_0123456789abcd": {"agent_id": {"tool": "claude", "id": sid}}},
    }
    return "src/late.py\n  s_0123456789abcd::t_0123456789abcd 1-2\n---\n" + json.dumps(meta)


@pytest.fixture
def preview(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """``sessite serve ARCHIVE --repo REPO -o SITE`` as the command line configures it, running."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    made = build(tmp_path)
    seen: list[SiteConfig] = []
    monkeypatch.setattr("sessite.cli.serve.serve", lambda config, **kw: seen.append(config))
    args = ["serve", str(made["archive"]), "--repo", str(made["repo"]), "-o", str(tmp_path / "site")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    (config,) = seen
    assert config.repos == (made["repo"],)
    state = PreviewState(config)
    state.rebuild(log=lambda line: None)
    server = make_server(state, port=0)
    stop = threading.Event()
    threads = [
        threading.Thread(target=server.serve_forever, daemon=True),
        threading.Thread(target=watch_loop, args=(state, stop, lambda line: None), daemon=True),
    ]
    for t in threads:
        t.start()
    time.sleep(0.3)  # let the watcher start
    yield made, state, server.server_address[1]
    stop.set()
    server.shutdown()
    server.server_close()


def test_preview_has_the_commit_pages_and_rebuilds_on_a_new_commit(preview: Any) -> None:
    made, state, port = preview
    status, body = get(port, f"/commits/{made['gitai']}.html")
    assert status == 200
    (li,) = _soup(body).select("li.commit-session")
    assert li["data-session"] == f"claude_code-{SID['gitai']}" and li["data-kinds"] == "git-ai-note"
    status, body = get(port, "/commits/shop/index.html")
    assert status == 200 and len(_soup(body).select("table.commits-table tbody tr")) == 8

    repo = made["repo"]
    sha = commit(
        repo, {"src/late.py": ["LATE = 'a late line'", "LATER = 'another line'"]}, "Late", T0 + timedelta(hours=20)
    )
    git(repo, "notes", "--ref=refs/notes/ai", "add", "-m", _note(SID["gitai"]), sha)
    assert wait_for(lambda: get(port, f"/commits/{sha}.html")[0] == 200, timeout=30)  # the refs moved: rebuilt
    (li,) = _soup(get(port, f"/commits/{sha}.html")[1]).select("li.commit-session")
    assert li["data-session"] == f"claude_code-{SID['gitai']}"


def test_only_ref_changes_in_the_git_folder_rebuild(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (gd,) = repo_git_dirs(SiteConfig(archive=tmp_path, output=tmp_path / "site", repos=(repo, tmp_path / "not-a-repo")))
    assert gd == (repo / ".git").resolve()
    assert ref_change([gd], gd / "refs" / "heads" / "main") is True
    assert ref_change([gd], gd / "refs" / "notes" / "ai") is True
    assert ref_change([gd], gd / "packed-refs") is True
    assert ref_change([gd], gd / "refs" / "heads" / "main.lock") is False
    assert ref_change([gd], gd / "index") is False  # `git status` refreshes it
    assert ref_change([gd], gd / "objects" / "ab" / "cdef") is False
    assert ref_change([gd], repo / "src" / "app.py") is None  # the work tree: not the repository's business here


def test_a_temporary_preview_removes_the_sessions_it_copied_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sessite.gitlinks.stored_sessions import stored_dir
    from sessite.serve import server

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    repo = tmp_path / "shop"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    sha = commit(repo, {"a.py": ["print('a line of code')"]}, "Start", T0)
    record = {"agent_id": {"tool": "cursor", "id": "conv-1"}, "messages": [{"type": "user", "text": "Say hello"}]}
    note = "a.py\n  abcd1234abcd1234 1\n---\n" + json.dumps({"prompts": {"abcd1234abcd1234": record}})
    git(repo, "notes", "--ref=refs/notes/ai", "add", "-m", note, sha)
    archive = tmp_path / "archive"
    archive.mkdir()
    outputs: list[Path] = []

    def stop_at_once(state: PreviewState, *args: object) -> object:
        outputs.append(state.site)
        assert (state.site / "sessions" / "hail-conv-1.html").is_file()  # the preview built it
        assert list(stored_dir(state.site, repo).rglob("*.hail.jsonl"))
        raise KeyboardInterrupt

    monkeypatch.setattr(server, "make_server", stop_at_once)
    server.serve(SiteConfig(archive=archive, output=None, progress=False, repos=(repo,)), log=lambda line: None)
    (site,) = outputs
    assert not site.exists() and not stored_dir(site, repo).exists()
    assert not list((tmp_path / "xdg").rglob("*.hail.jsonl"))
