"""Agent Trace records (``.agent-trace/traces.jsonl`` at HEAD): the commit that holds a recorded edit
is the child of the record's revision that touches the file."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from commit_repos import SID, T0, commit, git
from helpers import build_site, parse_html
from timeline_archive import Transcript


def test_agent_trace_links_the_child_commit(tmp_path: Path) -> None:
    repo = tmp_path / "shop"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    base = commit(repo, {"README.md": ["# Shop"]}, "Start", T0)
    url = f"file:///home/dev/.claude/projects/-home-dev-shop/{SID['own']}.jsonl"
    records = [
        {
            "version": "1.0",
            "id": "a",
            "timestamp": "2026-03-02T09:05:00Z",
            "vcs": {"type": "git", "revision": base},
            "tool": {"name": "claude-code"},
            "files": [
                {
                    "path": "src/x.py",
                    "conversations": [
                        {"url": url, "contributor": {"type": "ai", "model_id": "anthropic/claude-opus-5"}}
                    ],
                },
                {
                    "path": "src/y.py",
                    "conversations": [{"url": "file:///elsewhere/other-session.jsonl", "contributor": {"type": "ai"}}],
                },
                {"path": "README.md", "conversations": [{"url": url, "contributor": {"type": "human"}}]},
            ],
        },
    ]
    traces = [json.dumps(r) for r in records]
    child = commit(
        repo,
        {
            "src/x.py": ["x = compute_the_value()"],
            "src/y.py": ["y = 2 * compute()"],
            ".agent-trace/traces.jsonl": traces,
        },
        "Add x and y",
        T0 + timedelta(minutes=10),
    )
    t = Transcript(SID["own"], T0 + timedelta(minutes=2))
    t.user("Add x")
    t.assistant("a", [{"type": "text", "text": "Done."}])
    t.write(tmp_path / "archive" / "p" / f"{t.sid}.jsonl")
    out = tmp_path / "site"
    build_site(tmp_path / "archive", out, repos=(repo,), cache_dir=tmp_path / "c")
    page = parse_html(out / "commits" / f"{child}.html")
    (li,) = page.select("li.commit-session")
    assert (li["data-kinds"], li["data-confidence"]) == ("agent-trace", "medium")
    assert "other-session" in page.select_one("ul.commit-stored").get_text()
    assert not (out / "commits" / f"{base}.html").exists()
