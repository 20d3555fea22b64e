"""Transcripts embedded in git-ai notes (before git-ai 1.3.4) become session pages in a ``--repo``
build, and the commit pages their notes annotate link to them."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from commit_repos import T0, commit, git
from helpers import parse_html
from timeline_archive import Transcript

from sessite.cli.app import main
from sessite.interchange.extension import EXT

SID = "6ef2299e-1111-4222-8333-444455556666"  # Cursor's conversation id, as git-ai's agent_id.id
EMPTY = "7aa00000-0000-4000-8000-0000000000e7"  # a later note: messages: []
REMOTE = "7bb00000-0000-4000-8000-0000000000e8"  # a later note: messages_url
SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
CONFIG = ["def load_config(path):", "    with open(path) as handle:", "        return parse(handle.read())"]


def _stamp(minutes: int) -> str:
    return (T0 + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%S.000Z")


MESSAGES = [
    {"type": "user", "text": "Add a config loader <script>alert(1)</script>", "timestamp": _stamp(1)},
    {"type": "assistant", "text": f"I will write src/config.py now. Token {SECRET}", "timestamp": _stamp(2)},
    {
        "type": "tool_use",
        "name": "Write",
        "input": {"file_path": "src/config.py", "content": "\n".join(CONFIG) + "\n"},
        "timestamp": _stamp(3),
    },
    {"type": "assistant", "text": "The loader reads the file and parses it.", "timestamp": _stamp(4)},
]


def _note(ranges: dict[str, str], records: dict[str, dict[str, object]]) -> str:
    attest = "".join(f"{path}\n  {key} {span}\n" for path, (key, span) in ranges.items())
    meta = {"schema_version": "authorship/3.0.0", "git_ai_version": "1.2.9", "prompts": records}
    return f"{attest}---\n{json.dumps(meta)}"


def _record(sid: str, **extra: object) -> dict[str, object]:
    return {"agent_id": {"tool": "cursor", "id": sid, "model": "gpt-5"}, "human_author": "Dev", **extra}


@pytest.fixture
def noted_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, dict[str, str]]:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    repo = tmp_path / "shop"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, {"README.md": ["# Shop"]}, "Start", T0)
    shas: dict[str, str] = {}
    key = "abcd1234abcd1234"
    shas["first"] = commit(repo, {"src/config.py": CONFIG}, "Add the config loader", T0 + timedelta(minutes=5))
    note = _note({"src/config.py": (key, "1-3")}, {key: _record(SID, messages=MESSAGES[:2])})
    git(repo, "notes", "--ref=refs/notes/ai", "add", "-m", note, shas["first"])
    shas["second"] = commit(repo, {"src/more.py": ["print('more text')"]}, "Add more", T0 + timedelta(minutes=6))
    note = _note({"src/more.py": (key, "1")}, {key: _record(SID, messages=MESSAGES)})  # the longer transcript
    git(repo, "notes", "--ref=refs/notes/ai", "add", "-m", note, shas["second"])
    shas["empty"] = commit(repo, {"src/e.py": ["print('empty text')"]}, "Add e", T0 + timedelta(minutes=7))
    note = _note({"src/e.py": ("e" * 16, "1")}, {"e" * 16: _record(EMPTY, messages=[])})
    git(repo, "notes", "--ref=refs/notes/ai", "add", "-m", note, shas["empty"])
    shas["remote"] = commit(repo, {"src/r.py": ["print('remote text')"]}, "Add r", T0 + timedelta(minutes=8))
    url = "https://usegitai.com/cas/abc"
    note = _note({"src/r.py": ("f" * 16, "1")}, {"f" * 16: _record(REMOTE, messages=[], messages_url=url)})
    git(repo, "notes", "--ref=refs/notes/ai", "add", "-m", note, shas["remote"])
    return repo, shas


def test_embedded_transcript_becomes_a_linked_session_page(
    noted_repo: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    repo, shas = noted_repo
    before = (git(repo, "status", "--porcelain"), git(repo, "for-each-ref"))
    out = tmp_path / "site"
    result = CliRunner().invoke(main, ["build", "--repo", str(repo), "-o", str(out), "-q"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (out / "sessions").glob("*.html")) == [f"hail-{SID}.html"]  # one, the longest
    session = parse_html(out / "sessions" / f"hail-{SID}.html")
    text = session.get_text(" ")
    assert "Add a config loader" in text and "The loader reads the file and parses it." in text
    assert "I will write src/config.py now." in text and "Write" in text and "load_config" in text
    assert "gpt-5" in text and "cursor" in text.lower()
    assert not [s for s in session.find_all("script") if "alert(1)" in (s.string or "")]
    assert (
        SECRET not in text and SECRET not in (out / "sessions" / f"hail-{SID}.html").read_text()
    )  # redacted like any session

    for name in ("first", "second"):
        page = parse_html(out / "commits" / f"{shas[name]}.html")
        (li,) = page.select("li.commit-session")
        assert li["data-session"] == f"hail-{SID}" and "git-ai-note" in li["data-kinds"].split()
        href = li.select_one("a[href*='sessions/']")["href"]
        assert (out / "commits" / href.split("#")[0]).resolve() == (out / "sessions" / f"hail-{SID}.html").resolve()

    for name, sid in (("empty", EMPTY), ("remote", REMOTE)):  # nothing to read: named, not linked
        page = parse_html(out / "commits" / f"{shas[name]}.html")
        assert not page.select("li.commit-session")
        stored = page.select_one("ul.commit-stored").get_text(" ")
        assert sid in stored and "gpt-5" in stored and "cursor" in stored.lower()
    assert (git(repo, "status", "--porcelain"), git(repo, "for-each-ref")) == before  # nothing written to it


def test_transcripts_are_read_again_when_the_notes_move(
    noted_repo: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    from sessite.gitlinks.stored_sessions import export_repo

    repo, shas = noted_repo
    dest = tmp_path / "stored"
    assert export_repo(repo, dest) == (1, [])
    stored = dest / "git-ai" / f"{SID}.hail.jsonl"
    header = json.loads(stored.read_text().splitlines()[0])
    assert header["session_id"] == SID and header["agent"]["tool"] == "cursor" and header["agent"]["model"] == "gpt-5"
    git(repo, "notes", "--ref=refs/notes/ai", "remove", shas["first"], shas["second"])
    assert export_repo(repo, dest) == (0, [])
    assert not stored.exists()


def test_a_session_the_archive_holds_is_not_shown_twice(
    noted_repo: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    repo, shas = noted_repo
    archive = tmp_path / "archive"
    own = Transcript(SID, T0 + timedelta(minutes=1), cwd="/home/dev/shop")  # the agent's own log of it
    own.user("Add a config loader")
    own.write(archive / "-home-dev-shop" / f"{SID}.jsonl")
    out = tmp_path / "site"
    result = CliRunner().invoke(main, ["build", str(archive), "--repo", str(repo), "-o", str(out), "-q"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (out / "sessions").glob("*.html")) == [f"claude_code-{SID}.html"]
    page = parse_html(out / "commits" / f"{shas['first']}.html")
    assert [li["data-session"] for li in page.select("li.commit-session")] == [f"claude_code-{SID}"]


def test_odd_messages_cost_only_themselves(tmp_path: Path) -> None:
    from sessite.gitlinks.history import read_refs
    from sessite.gitlinks.stored_sessions import export_stored

    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    sha = commit(repo, {"a.py": ["print('a line of code')"]}, "Start", T0)
    odd = [1, None, {"type": "weird", "text": "x"}, {"type": "user", "text": 5}, {"type": "user"}]
    good = [*odd, {"type": "user", "text": "Hello there", "timestamp": "not a time"}]
    records = {
        "a" * 16: _record("only-odd-messages-0001", messages=odd),
        "b" * 16: _record("some-good-messages-002", messages=good),
        "c" * 16: {"agent_id": "not an object", "messages": good},
        "d" * 16: _record("", messages=good),
    }
    git(repo, "notes", "--ref=refs/notes/ai", "add", "-m", _note({}, records), sha)
    out = tmp_path / "out"
    assert export_stored(repo, read_refs(repo), out) == (1, [])
    (stored,) = out.rglob("*.hail.jsonl")
    assert stored.name == "some-good-messages-002.hail.jsonl"
    lines = [json.loads(line) for line in stored.read_text().splitlines()]
    assert [e["content"]["blocks"][0]["text"] for e in lines if e["type"] == "event"] == ["Hello there"]
    assert lines[0]["context"]["attributes"][EXT]["skipped"] == {"git-ai message of an unknown type": 5}
