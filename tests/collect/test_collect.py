"""``sessite collect`` on real logs in a fake home: the archive survives the agent deleting,
rewriting and appending, a run with nothing new writes nothing, and the home is only read."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import REPO, build_site, parse_html

from sessite.cli import main

REAL = REPO.parent / "shared" / "formats" / "real"
REAL_AGENTS = REPO.parent / "shared" / "formats" / "real-agents"
pytestmark = pytest.mark.skipif(
    not (REAL.is_dir() and REAL_AGENTS.is_dir()), reason="the real logs (../shared/formats) are not here"
)

DELETED = "Wood-Q_MokioFactory__entire-dcf7ed05960d-full.jsonl"
REWRITTEN = "entireio_cli__entire-1755e38d324c-full.jsonl"
APPENDED = "entireio_cli__entire-036ec8b29cf4-full.jsonl"
NEW_TEXT = "Please also run the collect test once more before you stop"


def _fake_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    project = home / ".claude" / "projects" / "-home-u-proj"
    rollouts = home / ".codex" / "sessions" / "2025" / "06" / "01"
    crush = home / ".local" / "share" / "crush"
    for folder in (project, rollouts, crush):
        folder.mkdir(parents=True)
    for name in (DELETED, REWRITTEN, APPENDED):
        shutil.copyfile(REAL / "claude_code" / name, project / name)
    shutil.copyfile(REAL / "codex" / "Standard-Syntax_basic__entire-b2e4e11a0316-rollout.jsonl", rollouts / "r.jsonl")
    store = REAL_AGENTS / "crush" / "chad-russell__chex-mix-timer__.crush"
    for name in ("crush.db", "crush.db-wal"):  # a store with most of its rows in its log
        shutil.copyfile(store / name, crush / name)
    return home


def _state(root: Path) -> dict[str, tuple[int, str]]:
    """Every file under ``root``: its modification time and a hash of its bytes."""
    return {
        p.relative_to(root).as_posix(): (p.stat().st_mtime_ns, hashlib.sha256(p.read_bytes()).hexdigest())
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _collect(home: Path, archive: Path, *args: str) -> str:
    result = CliRunner().invoke(main, ["collect", str(archive), *args], env={"SESSITE_HOME": str(home)})
    assert result.exit_code == 0, result.output
    return result.output


def _words(text: str) -> str:
    """A run of plain words from ``text`` that markdown renders as it is."""
    found = re.search(r"[A-Za-z][A-Za-z ,]{40,}", text)
    assert found, text
    return " ".join(found.group(0).split()[:6])


def _drop_middle(path: Path) -> str:
    """Rewrite ``path`` smaller (records from the middle gone); the words of one dropped text."""
    lines = path.read_text("utf-8").splitlines(keepends=True)
    cut = range(len(lines) // 3, len(lines) // 2)
    dropped = ""
    for i in cut:
        record = json.loads(lines[i])
        content = record.get("message", {}).get("content") if record.get("type") == "assistant" else None
        texts = [b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text"]
        if any(re.search(r"[A-Za-z][A-Za-z ,]{40,}", t) for t in texts):
            dropped = _words(next(t for t in texts if re.search(r"[A-Za-z][A-Za-z ,]{40,}", t)))
            break
    assert dropped, "no assistant text in the part dropped"
    path.write_text("".join(lines[: cut.start] + lines[cut.stop :]), "utf-8")
    return dropped


def _append_message(path: Path) -> None:
    lines = path.read_text("utf-8").splitlines()
    last = json.loads(lines[-1])
    user = next(json.loads(x) for x in lines if json.loads(x).get("type") == "user")
    user.update(
        uuid="0e0e0e0e-0000-4000-8000-000000000031",
        parentUuid=last.get("uuid"),
        timestamp="2026-03-01T10:00:00.000Z",
        message={"role": "user", "content": NEW_TEXT},
    )
    ends = path.read_bytes().endswith(b"\n")
    with path.open("a", encoding="utf-8") as fh:
        fh.write(("" if ends else "\n") + json.dumps(user) + "\n")


def _first_words(path: Path) -> str:
    """Words of the first message text in ``path`` that has a run of plain words."""
    for line in path.read_text("utf-8").splitlines():
        record = json.loads(line)
        content = record.get("message", {}).get("content") if record.get("type") in ("user", "assistant") else None
        blocks = (
            [content] if isinstance(content, str) else [b.get("text", "") for b in content or [] if isinstance(b, dict)]
        )
        for text in blocks:
            if isinstance(text, str) and re.search(r"[A-Za-z][A-Za-z ,]{40,}", text):
                return _words(text)
    raise AssertionError(f"{path}: no message text")


def _page_texts(site: Path) -> dict[Path, str]:
    return {p: " ".join(parse_html(p).get_text(" ").split()) for p in site.rglob("*.html") if "sessions" in p.parts}


def test_collect_keeps_what_the_agent_deletes_rewrites_and_appends(tmp_path: Path) -> None:
    home = _fake_home(tmp_path)
    archive = tmp_path / "archive"
    project = home / ".claude" / "projects" / "-home-u-proj"
    deleted_words = _first_words(project / DELETED)

    first = _collect(home, archive)
    assert "5 new, 0 grown, 0 rewritten (earlier copy kept), 0 unchanged" in first
    assert (archive / ".claude" / "projects" / "-home-u-proj" / DELETED).is_file()
    assert (archive / ".local" / "share" / "crush" / "crush.db").is_file()
    assert not (archive / ".local" / "share" / "crush" / "crush.db-wal").exists()  # folded into the copy

    (project / DELETED).unlink()
    dropped = _drop_middle(project / REWRITTEN)
    _append_message(project / APPENDED)
    home_before = _state(home)

    second = _collect(home, archive, "--json")
    report = json.loads(second)
    assert report["counts"] == {"new": 0, "grown": 1, "rewritten": 1, "unchanged": 2, "gone": 1}
    kept = next(e["kept"] for e in report["files"] if e["action"] == "rewritten")
    assert kept.startswith(".sessite-kept/") and kept.endswith(REWRITTEN)
    assert (archive / kept).is_file()
    assert _state(home) == home_before  # the agents' folders are only read

    third_before = _state(archive)
    third = _collect(home, archive)
    assert "0 new, 0 grown, 0 rewritten (earlier copy kept), 4 unchanged" in third
    assert _state(archive) == third_before  # nothing written: same bytes, same times
    assert _state(home) == home_before

    site = tmp_path / "site"
    build_site(archive, site)
    texts = _page_texts(site)
    everything = "\n".join(texts.values())
    assert NEW_TEXT in everything  # the appended message
    assert "Dropped by the agent" in everything
    # The dropped text is on the page, inside the run the marker lines open and close.
    page = next(p for p, t in texts.items() if dropped in t)
    soup = parse_html(page)
    item = next(li for li in soup.select("li.event") if dropped in " ".join(li.get_text(" ").split()))
    opener = item.find_previous(lambda tag: tag.name == "li" and "k-compaction" in tag.get("class", []))
    assert opener is not None and "Dropped by the agent" in opener.get_text(" ")
    assert "dropped_by_agent" in item.get_text(" ")
    assert any(deleted_words in t for t in texts.values())  # the deleted session keeps its page
