"""``sessite mcp`` driven by the MCP SDK's own client over stdio: every tool, redacted and paged."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import re
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from secret_fakes import alnum

mcp = pytest.importorskip("mcp")
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

TOKEN = "ghp_" + alnum(36)  # a GitHub token shape the redaction knows
EMAIL = "jane.roe@corp-mail.net"  # personal data: kept unless --redact-pii
SID = ["aaaaaaaa-1111-4111-8111-00000000000" + str(n) for n in range(3)]


def _line(sid: str, n: int, kind: str, content, parent: str | None) -> str:
    role = "user" if kind == "user" else "assistant"
    message = {"role": role, "content": content}
    if role == "assistant":
        message |= {"model": "claude-opus-4-6", "id": f"msg_{n}", "type": "message"}
    return json.dumps(
        {
            "parentUuid": parent,
            "isSidechain": False,
            "cwd": "/home/dev/shop",
            "gitBranch": "fix/rounding",
            "sessionId": sid,
            "type": kind,
            "message": message,
            "uuid": f"{sid[:4]}-{n:04d}",
            "timestamp": f"2026-10-0{SID.index(sid) + 1 if sid in SID else 9}T10:{n // 60:02d}:{n % 60:02d}.000Z",
        }
    )


def _session(sid: str, words: str, turns: int) -> str:
    lines, parent = [], None
    lines.append(_line(sid, 0, "user", f"Please fix the {words}", parent))
    parent = f"{sid[:4]}-0000"
    for n in range(1, turns):
        call = f"toolu_{sid[:4]}_{n}"
        lines.append(
            _line(
                sid,
                2 * n - 1,
                "assistant",
                [{"type": "tool_use", "id": call, "name": "Bash", "input": {"command": f"pytest -k step{n}"}}],
                parent,
            )
        )
        lines.append(
            _line(
                sid,
                2 * n,
                "user",
                [{"type": "tool_result", "tool_use_id": call, "content": f"step {n} of the {words}: " + "x " * 400}],
                f"{sid[:4]}-{2 * n - 1:04d}",
            )
        )
        parent = f"{sid[:4]}-{2 * n:04d}"
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("mcp") / "archive"
    project = root / "projects" / "-home-dev-shop"
    project.mkdir(parents=True)
    (project / f"{SID[0]}.jsonl").write_text(
        _session(SID[0], f"rounding bug in the cart, my token is {TOKEN}, mail {EMAIL}", 3) + "{not json\n"
    )
    (project / f"{SID[1]}.jsonl").write_text(_session(SID[1], "secret project rounding", 2))
    (project / f"{SID[2]}.jsonl").write_text(_session(SID[2], "checkout pagination", 120))
    (root / "sessite.toml").write_text(f'exclude_sessions = ["*{SID[1]}"]\nhide_events = [{{pattern = "step 7 of"}}]\n')
    return root


def run_client(archive: Path, site: Path, calls: list[tuple[str, dict]], extra: tuple[str, ...] = ()):
    async def go():
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "sessite", "mcp", str(archive), "-o", str(site), *extra]
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            answers = []
            for name, arguments in calls:
                result = await session.call_tool(name, arguments)
                text = result.content[0].text
                answers.append((result.is_error, text if result.is_error else json.loads(text)))
            return tools.tools, answers

    return _run(go())


def test_every_tool_over_stdio(archive, tmp_path):
    tools, answers = run_client(
        archive,
        tmp_path / "site",
        [
            ("list_sessions", {}),
            ("search", {"query": "cart"}),
            ("search", {"query": "pagination", "tool": "Bash", "since": "2026-10-02T00:00:00Z"}),
            ("read_session", {"id": f"claude_code-{SID[2]}", "limit": 200}),
            ("problems", {}),
            ("list_refs", {}),
            ("read_session", {"id": "nope"}),
            ("search", {"query": "cart", "cursor": "bogus"}),
            # the search box's syntax: some of the words, exclusions, phrases, filters
            ("search", {"query": "cart pagination"}),
            ("search", {"query": "cart -rounding"}),
            ("search", {"query": '"fix the cart"'}),
            ("search", {"query": "fix agent:Claude after:2026-10-03 tool:bash"}),
            ("search", {"query": "fix before:2026-10-01"}),
            ("search", {"query": "agent:claude-code"}),
            ("search", {"query": "roundin"}),
        ],
    )
    names = [t.name for t in tools]
    assert names == [
        "search",
        "list_sessions",
        "read_session",
        "problems",
        "list_refs",
        "get_ref",
        "session_commits",
        "commit_sessions",
    ]
    assert all(t.annotations.read_only_hint for t in tools)
    assert tools[0].input_schema["required"] == ["query"]
    listed, rounding, pagination, first_page, problems, refs, missing, bad_cursor = answers[:8]
    some, excluded, phrase, filtered, before, no_word, typo = (a for _, a in answers[8:])

    # exclude_sessions: the excluded session is in no answer
    ids = [s["id"] for s in listed[1]["sessions"]]
    assert sorted(ids) == sorted(f"claude_code-{SID[n]}" for n in (0, 2))
    assert rounding[1]["total"] == 1 and rounding[1]["results"][0]["session"] == f"claude_code-{SID[0]}"
    assert pagination[1]["results"][0]["session"] == f"claude_code-{SID[2]}"
    assert pagination[1]["results"][0]["url"].startswith("sessions/")
    assert rounding[1]["every_word"] == 1 and rounding[1]["results"][0]["every_word"] is True

    # as on the site: sessions with some of the words, after those with all of them (none here)
    assert some["total"] == 2 and some["every_word"] == 0
    assert {r["session"] for r in some["results"]} == {f"claude_code-{SID[n]}" for n in (0, 2)}
    assert [r["every_word"] for r in some["results"]] == [False, False]
    assert excluded["total"] == 0 and excluded["results"] == []
    assert [r["session"] for r in phrase["results"]] == [f"claude_code-{SID[0]}"]
    assert [r["session"] for r in filtered["results"]] == [f"claude_code-{SID[2]}"]  # started 2026-10-03
    assert [r["session"] for r in before["results"]] == [f"claude_code-{SID[0]}"]  # started 2026-10-01
    assert no_word["total"] == 0 and "no word" in no_word["note"]
    assert typo["total"] == 0 and typo["nearest"][0]["word"] == "roundin" and "round" in typo["nearest"][0]["terms"]

    # paged: 239 events do not fit one reply; the first page carries the summary, a cursor goes on
    page = first_page[1]
    assert page["session"]["id"] == f"claude_code-{SID[2]}" and page["total_events"] > len(page["events"])
    assert len(json.dumps(page)) < 80_000 and page["next_cursor"]
    assert all(e["anchor"] and e["url"].startswith("sessions/") for e in page["events"])
    assert not any("step 7 of" in (e.get("text") or "") for e in page["events"])  # hide_events

    assert [line.split(".jsonl")[1] for line in problems[1]["problems"]] == [
        ":6: malformed JSON (Expecting property name enclosed in double quotes); line skipped"
    ]
    assert refs[0] is False and "refs" in refs[1]
    assert missing[0] is True and "not found" in missing[1]
    assert bad_cursor[0] is True and "cursor" in bad_cursor[1]
    everything = json.dumps([a for _, a in answers])
    assert TOKEN not in everything and TOKEN[4:20] not in everything


def test_reading_on_with_the_cursor_and_from_an_anchor(archive, tmp_path):
    site = tmp_path / "site"
    sid = f"claude_code-{SID[2]}"
    _, [(_, first), (_, refs)] = run_client(
        archive, site, [("read_session", {"id": sid, "limit": 200}), ("list_refs", {"kind": "branch"})]
    )
    branch = next(r for r in refs["refs"] if r["name"] == "fix/rounding")
    _, answers = run_client(
        archive,
        site,
        [
            ("read_session", {"id": sid, "cursor": first["next_cursor"], "limit": 5}),
            ("read_session", {"id": sid, "event": first["events"][3]["anchor"], "limit": 2}),
            ("read_session", {"id": f"claude_code-{SID[0]}"}),
            ("get_ref", {"id": branch["id"], "limit": 1}),
        ],
    )
    (_, more), (_, anchored), (_, secret), (_, ref) = answers
    # the branch's sessions: the two published ones (the excluded one is in none), a page of one
    assert ref["name"] == "fix/rounding" and ref["total_sessions"] == 2 and len(ref["sessions"]) == 1
    assert ref["next_cursor"] and ref["sessions"][0]["session"] in {f"claude_code-{SID[n]}" for n in (0, 2)}
    assert first["session"]["git"]["branches"] == ["fix/rounding"]  # a session's refs, on its first page
    assert more["first"] == len(first["events"]) and "session" not in more and len(more["events"]) == 5
    assert [e["anchor"] for e in anchored["events"]] == [e["anchor"] for e in first["events"][3:5]]
    text = json.dumps(secret)
    assert TOKEN not in text and "REDACTED" in text.upper()
    assert EMAIL in text  # personal data stays without --redact-pii


def test_pii_mode_reaches_the_answers(archive, tmp_path):
    _, [(_, page)] = run_client(
        archive, tmp_path / "site", [("read_session", {"id": f"claude_code-{SID[0]}"})], ("--redact-pii",)
    )
    text = json.dumps(page)
    assert "rounding bug" in text and EMAIL not in text


def _settings_lines() -> list[tuple[str, list[str]]]:
    """(command, args) of each agent's settings in docs/serve.md: Claude Code's, Codex's, Gemini CLI's."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "serve.md").read_text()
    mcp_part = text[text.index("## MCP server") :]
    found = []
    add = re.search(r"`claude mcp add sessite -- (sessite mcp \S+)`", mcp_part)
    assert add
    words = add.group(1).split()
    found.append((words[0], words[1:]))
    for lang, body in re.findall(r"```(json|toml)\n(.*?)```", mcp_part, re.S):
        data = json.loads(body) if lang == "json" else tomllib.loads(body)
        server = data["mcpServers"]["sessite"] if lang == "json" else data["mcp_servers"]["sessite"]
        found.append((server["command"], server["args"]))
    return found


def test_the_documented_settings_start_the_server(archive, tmp_path):
    lines = _settings_lines()
    assert len(lines) == 4  # claude mcp add, .mcp.json, ~/.codex/config.toml, Gemini's settings.json
    sessite = Path(sys.executable).with_name("sessite")

    async def start(command: str, args: list[str]) -> list[str]:
        assert command == "sessite" and args == ["mcp", "/path/to/archive"]
        params = StdioServerParameters(
            command=str(sessite),
            args=[*(str(archive) if a == "/path/to/archive" else a for a in args), "-o", str(tmp_path / "site")],
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.call_tool("list_sessions", {"limit": 1})
            assert not listed.is_error and json.loads(listed.content[0].text)["total"] == 2
            return [t.name for t in (await session.list_tools()).tools]

    for command, args in lines:
        assert "search" in _run(start(command, args))


def test_without_the_sdk_one_line_says_how_to_install(archive):
    blocked = "import sys; sys.modules['mcp'] = None; from sessite.cli import main; main(['mcp', sys.argv[1]])"
    result = subprocess.run([sys.executable, "-c", blocked, str(archive)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        "Error: sessite mcp needs the MCP SDK: pip install 'sessite[mcp]' (or: pipx inject sessite mcp)"
    ]


def test_a_call_after_a_while_builds_the_archive_again(archive, tmp_path, monkeypatch):
    """New sessions show up without a restart: a call long after the last build starts another."""
    from sessite.config import SiteConfig, load_config_file
    from sessite.serve import mcp_server
    from sessite.serve.mcp_tools import Archive, make_tools

    copy = tmp_path / "archive"
    shutil.copytree(archive, copy)
    config = SiteConfig(
        archive=copy, output=tmp_path / "site", progress=False, **load_config_file(copy / "sessite.toml")
    )
    state = Archive(config)
    builder = mcp_server.Builder(config, state, log=lambda line: None)
    tools = make_tools(state)
    builder.start()
    builder.wait()
    assert tools.invoke("list_sessions", {})["total"] == 2
    (copy / "projects" / "-home-dev-shop" / "bbbbbbbb-2222-4222-8222-000000000009.jsonl").write_text(
        _session("bbbbbbbb-2222-4222-8222-000000000009", "late arrival", 2)
    )
    monkeypatch.setattr(mcp_server, "REFRESH_SECONDS", 0.0)
    builder.wait()  # answers from the last build at once, and builds again behind
    for _ in range(600):
        if tools.invoke("list_sessions", {})["total"] == 3:
            break
        time.sleep(0.1)
    assert tools.invoke("list_sessions", {})["total"] == 3
    assert tools.invoke("search", {"query": "late arrival"})["total"] == 1


def _run(coroutine):
    """``asyncio.run`` in a thread of its own: a browser test earlier in the same run (Playwright's
    sync API) can leave an event loop running in this one, where ``asyncio.run`` refuses to start."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def test_commits_and_their_sessions_with_a_repository(tmp_path):
    """With --repo, an agent asks which commits a session made and which sessions made a commit;
    without one, the two tools say what to give."""
    from commit_repos import SID as REPO_SID
    from commit_repos import build as build_repos

    made = build_repos(tmp_path)
    repo, archive = made["repo"], made["archive"]
    own, human, bot = str(made["own"]), str(made["human"]), str(made["bot"])
    _, answers = run_client(
        archive,
        tmp_path / "site",
        [
            ("session_commits", {"id": f"claude_code-{REPO_SID['own']}"}),
            ("commit_sessions", {"sha": own[:10]}),
            ("commit_sessions", {"sha": human}),
            ("commit_sessions", {"sha": bot}),
            ("commit_sessions", {"sha": "xyz"}),
        ],
        extra=("--repo", str(repo)),
    )
    (err1, mine), (err2, by_sha), (err3, by_human), (err4, by_bot), (err5, bad) = answers
    assert not err1 and [c["sha"] for c in mine["commits"]] == [own]
    assert mine["commits"][0]["subject"] == "Add the server" and mine["commits"][0]["url"] == f"commits/{own}.html"
    assert mine["commits"][0]["link"]["kinds"] and mine["commits"][0]["link"]["confidence"]  # the evidence
    assert not err2 and by_sha["sha"] == own
    assert [s["id"] for s in by_sha["sessions"]] == [f"claude_code-{REPO_SID['own']}"]
    assert by_sha["sessions"][0]["title"]  # the session's title, from the archive
    assert not err3 and [s["id"] for s in by_human["sessions"]] == [f"claude_code-{REPO_SID['human']}"]  # by content
    assert err4 and "no session" in by_bot  # a bot's commit is never linked
    assert err5
    _, answers = run_client(archive, tmp_path / "site2", [("session_commits", {"id": "x"})])
    assert answers[0][0] and "--repo" in answers[0][1]
