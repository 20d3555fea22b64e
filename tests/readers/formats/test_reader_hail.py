"""The HAIL 1.0 reader: hand-written fixtures, the real samples and the demo archive session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sessite.model import Block, Kind, Problems, ToolCategory, Usage
from sessite.readers.formats.hail import KNOWN_BLOCK_TYPES, KNOWN_EVENT_TYPES, READER
from sessite.readers.ledger import Fate, keeping_ledger

REPO = Path(__file__).resolve().parents[3]
HAIL = Path(__file__).resolve().parents[2] / "fixtures" / "hail"
EXAMPLE = REPO / "example-archive" / "hail"


def read_one(path: Path, problems: Problems):
    sessions = list(READER.read(path, problems))
    assert len(sessions) == 1
    return sessions[0]


def walk(events):
    for event in events:
        yield event
        yield from walk(event.children)


def by_id(session):
    return {e.id: e for e in walk(session.events)}


def event_line_numbers(path: Path) -> list[int]:
    numbers = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict) and obj.get("type") == "event":
            numbers.append(number)
    return numbers


def event_lines(path: Path) -> int:
    return len(event_line_numbers(path))


def read_accounted(path: Path, problems: Problems):
    """The session, and how many event lines it shows as events; every event line must have a fate
    (token counts are folded into the response they count, or counted as not shown)."""
    with keeping_ledger() as kept:
        session = read_one(path, problems)
    fates = {line: fate for (where, line), (fate, _) in kept.fates.items() if where == str(path)}
    lines = event_line_numbers(path)
    assert all(line in fates for line in lines), path.name
    return session, sum(1 for line in lines if fates[line] == Fate.SHOWN)


# -- reader contract ------------------------------------------------------------


def test_reader_contract():
    assert READER.name == "hail"
    assert READER.claims_directories is False


@pytest.mark.parametrize(
    "name",
    ["all-types.hail.jsonl", "subagent.hail.jsonl", "no-header.hail.jsonl", "damaged.hail.jsonl", "session.hail.json"],
)
def test_detects_fixtures(name):
    assert READER.detect_path(HAIL / name)


@pytest.mark.parametrize(
    "name, text",
    [
        ("claude.jsonl", '{"type":"user","sessionId":"s","uuid":"u","message":{"role":"user","content":"hi"}}\n'),
        (
            "rollout.jsonl",
            '{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x","cwd":"/"}}\n',
        ),
        ("s.aics.json", '{"version":"1.0","creator":{"name":"crush"},"log":{"sessions":[]}}'),
        ("conversations.json", '[{"uuid":"c","name":"chat","chat_messages":[]}]'),
        ("session-1.json", '{"sessionId":"g","projectHash":"h","messages":[{"type":"user","content":"hi"}]}'),
        ("header-other.jsonl", '{"type":"header","version":"aicf-2","session_id":"x"}\n'),
        ("events-later.json", '{"session_id":"x","events":[],"version":"1.0"}'),
        ("empty.jsonl", ""),
        ("notes.txt", "hello\n"),
    ],
)
def test_does_not_claim_other_formats(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert READER.detect_path(path) is False


def test_detects_pretty_hail_json_with_late_keys(tmp_path):
    doc = {
        "version": "hail-1.0.0",
        "session_id": "x",
        "agent": {"tool": "t", "model": "m", "provider": "p"},
        "context": {
            "title": "t" * 20000,
            "tags": [],
            "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z",
        },
        "events": [],
        "stats": {},
    }
    path = tmp_path / "big.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    assert READER.detect_path(path)
    nested = tmp_path / "nested.json"
    nested.write_text(json.dumps({"wrapper": doc}, indent=2), encoding="utf-8")
    assert READER.detect_path(nested) is False


# -- every event and block type ------------------------------------------------------


@pytest.fixture
def all_types():
    problems = Problems()
    session = read_one(HAIL / "all-types.hail.jsonl", problems)
    return session, problems


def test_all_types_session_fields(all_types):
    session, problems = all_types
    assert problems.items == []
    assert session.id == "hail-all-types-0001"
    assert session.agent == "claude-code"
    assert session.title == "Every HAIL event and block type"
    assert session.started.isoformat() == "2026-02-11T07:00:00+00:00"
    assert session.ended.isoformat() == "2026-02-11T07:10:00+00:00"
    assert session.cwd == "/home/dev/widgets" and session.project == "widgets"
    assert session.models == ("claude-opus-4-6", "claude-sonnet-4-5")
    assert session.git.branches == ("feat/parser",)
    assert session.git.commits == ("0123456789abcdef0123456789abcdef01234567",)
    assert session.git.repos == ("https://github.com/example/widgets.git",)
    assert session.meta["provider"] == "anthropic"
    assert session.meta["tool_version"] == "2.1.39"
    assert session.meta["tags"] == ["claude-code", "fixture"]
    assert session.meta["description"] == "hand-written fixture"
    assert session.meta["related_session_ids"] == ["parent-0000"]
    assert session.meta["originator"] == "fixture"
    assert session.meta["hail.stats"]["event_count"] == 23
    assert session.source.format == "hail"
    # e23 repeats e22's token count: counted as not shown, not an empty event
    assert len(session.events) + 1 == 23 == event_lines(HAIL / "all-types.hail.jsonl")
    assert session.skipped == {"repeated token count (already counted)": 1}
    assert [e.line for e in session.events] == list(range(2, 24))
    assert all(e.timestamp is not None and e.timestamp.tzinfo is not None for e in session.events)


def test_all_types_messages(all_types):
    ev = by_id(all_types[0])
    user = ev["e01"]
    assert user.kind == Kind.USER
    assert user.text == "Please look at this screenshot and the attached log."
    assert user.blocks == (
        Block("image", uri="https://example.com/shot.png", mime="image/png", title="error dialog"),
        Block("file", text="ERROR boom\n", uri="logs/run.log", title="logs/run.log"),
    )
    assert ev["e02"].kind == Kind.SYSTEM and ev["e02"].meta["system.subtype"] == "local_command"
    assert ev["e03"].kind == Kind.THINKING and "**boom**" in ev["e03"].text and ev["e03"].model == "claude-opus-4-6"
    agent = ev["e04"]
    assert agent.kind == Kind.ASSISTANT and agent.text == "Let me read the parser."
    assert agent.blocks == (
        Block("code", text="def parse(x):\n    return x\n", language="python", data={"start_line": 10}),
    )
    assert agent.model == "claude-sonnet-4-5"
    assert agent.usage == Usage(input_tokens=120, output_tokens=45)
    assert "input_tokens" not in agent.meta and "model" not in agent.meta


def test_all_types_file_and_search_calls(all_types):
    ev = by_id(all_types[0])
    read = ev["toolu_read"]
    assert (read.kind, read.category, read.path, read.tool_name, read.call_id) == (
        Kind.TOOL_CALL,
        ToolCategory.READ,
        "src/parser.py",
        "Read",
        "toolu_read",
    )
    assert read.text == ""  # the Text block only repeated the path
    result = ev["e06"]
    assert result.kind == Kind.TOOL_RESULT and result.call_id == "toolu_read" and result.tool_name == "Read"
    assert result.blocks[0].type == "code" and result.blocks[0].data == {"start_line": 1}
    assert (ev["e07"].category, ev["e07"].tool_input) == (ToolCategory.SEARCH, {"query": "def parse"})
    assert (ev["e08"].category, ev["e08"].tool_input) == (ToolCategory.SEARCH, {"pattern": "**/*.py"})
    edit = ev["e09"]
    assert (edit.category, edit.path) == (ToolCategory.EDIT, "src/parser.py")
    assert edit.diff.startswith("--- a/src/parser.py\n+++ b/src/parser.py\n@@")
    assert edit.meta["duration_ms"] == 12
    create = ev["e10"]
    assert (create.category, create.path, create.meta["op"]) == (ToolCategory.EDIT, "tests/test_parser.py", "create")
    assert create.blocks[0].type == "file" and "def test_parse" in create.blocks[0].text
    delete = ev["e11"]
    assert (delete.category, delete.path, delete.meta["op"]) == (ToolCategory.EDIT, "src/old_parser.py", "delete")


def test_all_types_shell_tool_web_media(all_types):
    ev = by_id(all_types[0])
    shell = ev["e12"]
    assert (shell.kind, shell.category, shell.command, shell.exit_code) == (
        Kind.TOOL_CALL,
        ToolCategory.SHELL,
        "pytest -q",
        1,
    )
    assert shell.text == "Run the tests" and shell.blocks == ()  # the Code block repeated the command
    failed = ev["e13"]
    assert failed.kind == Kind.TOOL_RESULT and failed.is_error is True and failed.exit_code == 1
    assert failed.call_id == "e12"  # linked through semantic.call_id (no call_id in the data)
    generic = ev["e14"]
    assert (generic.tool_name, generic.category, generic.tool_input, generic.blocks) == (
        "mcp__db__query",
        ToolCategory.OTHER,
        {"sql": "select 1"},
        (),
    )
    assert (ev["e15"].category, ev["e15"].tool_input) == (ToolCategory.WEB, {"query": "python str.strip unicode"})
    fetch = ev["e16"]
    assert fetch.category == ToolCategory.WEB and fetch.tool_input == {
        "url": "https://docs.python.org/3/library/stdtypes.html"
    }
    assert fetch.blocks == (
        Block("reference", uri="https://docs.python.org/3/library/stdtypes.html", mime="text/html"),
    )
    for eid, btype, prompt in (
        ("e17", "image", "a parser logo"),
        ("e18", "video", "a demo clip"),
        ("e19", "audio", "a chime"),
    ):
        media = ev[eid]
        assert media.kind == Kind.TOOL_CALL and media.category == ToolCategory.MEDIA
        assert media.tool_input == {"prompt": prompt}
        assert media.blocks[0].type == btype and media.blocks[0].uri.startswith("https://example.com/")


def test_all_types_tasks_and_custom(all_types):
    session, _ = all_types
    ev = by_id(session)
    assert (ev["e20"].kind, ev["e20"].title) == (Kind.TASK_START, "fix-parser")
    assert (ev["e21"].kind, ev["e21"].text) == (Kind.TASK_END, "parser fixed, 1 test added")
    custom = ev["e22"]
    assert custom.kind == Kind.SYSTEM and custom.title == "custom: token_count"
    assert custom.blocks == (Block("json", data={"rate_limits": None}),)
    assert custom.usage == Usage(input_tokens=300, output_tokens=50)
    assert custom.meta["input_tokens_total"] == 420
    # The same cumulative totals reported again: not counted twice, and counted as not shown.
    assert "e23" not in ev and session.skipped["repeated token count (already counted)"] == 1
    total = sum((e.usage for e in walk(session.events) if e.usage), Usage())
    assert (
        (total.input_tokens, total.output_tokens)
        == (420, 95)
        == (session.meta["hail.stats"]["total_input_tokens"], session.meta["hail.stats"]["total_output_tokens"])
    )
    assert session.usage is None  # events carry usage; the stats total would double it


def test_every_event_type_and_block_type_is_covered():
    # The spec text says "22 variants" but lists 21, and opensession's EventType enum has 21.
    kinds, blocks = set(), set()
    for line in (HAIL / "all-types.hail.jsonl").read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        if obj["type"] == "event":
            kinds.add(obj["event_type"]["type"])
            blocks.update(b["type"] for b in obj["content"]["blocks"])
    assert kinds == set(KNOWN_EVENT_TYPES) and len(kinds) == 21
    assert blocks == set(KNOWN_BLOCK_TYPES) and len(blocks) == 8


# -- sub-agents -------------------------------------------------------------------


def test_subagent_bracket_is_nested():
    problems = Problems()
    session = read_one(HAIL / "subagent.hail.jsonl", problems)
    assert problems.items == []
    top = [e.id for e in session.events]
    assert top == [
        "turn-start",
        "u1-text",
        "toolu_task",
        "subagent-a1b2c3",
        "p-sys",
        "u2-result-toolu_task",
        "a2-text",
        "turn-end",
    ]
    sub = session.events[3]
    assert sub.kind == Kind.SUBAGENT
    assert sub.title == "explore-config"
    assert sub.model == "claude-haiku-4-5"
    assert sub.call_id == "toolu_task"  # the Task call that spawned it
    assert sub.meta["task_id"] == "a1b2c3" and sub.meta["events"] == 4
    assert [c.id for c in sub.children] == [
        "a1b2c3-start",
        "a1b2c3:s1-text",
        "a1b2c3:toolu_grep",
        "a1b2c3:s2-result-toolu_grep",
        "a1b2c3:s3-text",
        "a1b2c3-end",
    ]
    assert [c.kind for c in sub.children] == [
        Kind.TASK_START,
        Kind.USER,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.ASSISTANT,
        Kind.TASK_END,
    ]
    assert sub.children[-1].text == "4 events, claude-haiku-4-5"
    assert sub.children[3].call_id == "a1b2c3:toolu_grep"  # linked through semantic.call_id
    assert sub.children[2].tool_name == "Grep" and sub.children[2].tool_input == {"query": "load_config"}
    # Turn markers (task_id only on TaskStart/TaskEnd, as Codex writes them) stay flat.
    assert session.events[0].kind == Kind.TASK_START and session.events[-1].kind == Kind.TASK_END
    # Every event line appears exactly once, nested or not.
    ids = [e.id for e in walk(session.events) if e.kind != Kind.SUBAGENT]
    assert len(ids) == len(set(ids)) == event_lines(HAIL / "subagent.hail.jsonl") == 13
    assert session.models == ("claude-opus-4-6", "claude-haiku-4-5")
    assert session.git.branches == ()  # "HEAD" is not a branch
    assert session.meta["git_branch"] == "HEAD"


# -- damaged input -------------------------------------------------------------------


def test_missing_header():
    problems = Problems()
    session = read_one(HAIL / "no-header.hail.jsonl", problems)
    assert session.id == "hail-no-header"
    assert session.agent == "hail"
    assert [e.text for e in session.events] == ["hello", "hi there"]
    assert session.started.isoformat() == "2026-02-13T10:00:00+00:00"
    assert session.ended.isoformat() == "2026-02-13T10:00:05+00:00"
    assert any("no header" in p.message for p in problems.items)


def test_damaged_lines_are_reported_and_the_rest_kept():
    problems = Problems()
    session = read_one(HAIL / "damaged.hail.jsonl", problems)
    messages = {(p.line, p.message) for p in problems.items}
    by_line: dict[int | None, list[str]] = {}
    for line, message in messages:
        by_line.setdefault(line, []).append(message)
    assert any("malformed JSON" in m for m in by_line[3])
    assert any("truncated JSON" in m for m in by_line[11])
    ev = by_id(session)
    assert ev["d1"].text == "first"
    assert ev["d8"].text == "last complete line"  # after the bad lines
    assert session.cwd == "C:\\Users\\dev\\proj\\" and session.project == "proj"
    # unknown event type: kept, raw, reported
    unknown = ev["d3"]
    assert unknown.kind == Kind.UNKNOWN and unknown.raw["event_type"]["type"] == "HologramProject"
    assert any("HologramProject" in m for m in by_line[4])
    # duplicate event id: renamed, reported
    assert ev["d1-2"].text == "same id again"
    assert any("duplicate event_id 'd1'" in m for m in by_line[5])
    # unknown block type: a JSON block, reported
    assert ev["d1-2"].blocks == (
        Block("json", data={"type": "Sparkle", "glitter": 3}, title="unknown block 'Sparkle'"),
    )
    assert any("Sparkle" in m for m in by_line[5])
    # unknown line type: an UNKNOWN event with the raw record
    checkpoint = next(e for e in session.events if e.line == 6)
    assert checkpoint.kind == Kind.UNKNOWN and checkpoint.raw == {"type": "checkpoint", "at": "2026-02-14T08:00:05Z"}
    # wrong-typed fields: reported, event kept, values not lost
    d5 = ev["d5"]
    assert d5.kind == Kind.TOOL_RESULT and d5.timestamp is None and d5.is_error is True and d5.call_id == "7"
    assert d5.meta["attributes"] == ["not", "a", "dict"] and d5.meta["timestamp"] == 12
    assert len(by_line[7]) == 5
    assert ev["d6"].kind == Kind.THINKING and ev["d6"].text == "42"
    assert ev["d7"].exit_code is None and ev["d7"].meta["exit_code"] == "0"
    assert any("updated_at" in m for m in by_line[None])
    assert session.ended == ev["d8"].timestamp  # the bad updated_at falls back to the events


@pytest.mark.parametrize(
    "text",
    [
        "\x00\x01\x02 binary",
        "[1, 2, 3]\n",
        '{"type":"header","version":"hail-1.0.0"}\n',
        '{"type":"header","version":"hail-9","session_id":5,"agent":"codex","context":["x"]}\n{"type":"event","event_id":"a","timestamp":"2026-01-01T00:00:00Z","event_type":{"type":"ToolCall","data":{"name":7}},"content":{"blocks":[1,{"type":"Json"}]},"task_id":3}\n{"type":"stats","event_count":"many"}\n',
        '{"type":"header","version":"hail-1.0.0","session_id":"s","context":{"attributes":{"git":"main","cwd":4,"git_branch":["x"]}}}\n{"type":"header","version":"hail-1.0.0"}\n',
        '{"type":"event","event_id":"a","timestamp":"2026-01-01T00:00:00Z","event_type":{"type":"FileEdit","data":[]},"content":"plain"}\n',
    ],
)
def test_never_raises_on_bad_input(tmp_path, text):
    path = tmp_path / "bad.hail.jsonl"
    path.write_text(text, encoding="utf-8")
    problems = Problems()
    sessions = list(READER.read(path, problems))
    assert len(problems) > 0
    for session in sessions:
        assert all(e.id for e in walk(session.events))


# -- HAIL JSON and stats -----------------------------------------------------------


def test_hail_json_object_form():
    problems = Problems()
    path = HAIL / "session.hail.json"
    session = read_one(path, problems)
    assert session.id == "hail-json-form-0001"
    assert session.agent == "gemini-cli"
    assert session.title == "HAIL JSON object form"
    assert [e.kind for e in session.events] == [Kind.USER, Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.ASSISTANT]
    assert [e.line for e in session.events] == [1, 2, 3, 4]  # record index in events[]
    call, result = session.events[1], session.events[2]
    assert (call.command, call.exit_code, call.blocks) == ("ls", 0, ())
    assert result.call_id == "j2" and result.text == "README.md\nsrc\n"
    assert session.events[3].model == "gemini-2.5-pro"
    assert [p.message for p in problems.items] == ["HAIL JSON: events[4] is str, not an object; skipped"]


def test_stats_totals_become_session_usage_when_events_have_none():
    problems = Problems()
    session = read_one(HAIL / "session.hail.json", problems)
    assert not any(e.usage for e in session.events)
    assert session.usage == Usage(input_tokens=5000, output_tokens=250)
    assert session.meta["hail.stats"]["duration_seconds"] == 60


def test_stats_line_is_kept_but_not_an_event(tmp_path):
    path = tmp_path / "s.hail.jsonl"
    path.write_text(
        '{"type":"header","version":"hail-1.0.0","session_id":"s","agent":{"provider":"p","model":"unknown","tool":"cursor"},"context":{"tags":[],"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:01:00Z"}}\n'
        '{"type":"event","event_id":"a","timestamp":"2026-01-01T00:00:00Z","event_type":{"type":"UserMessage"},"content":{"blocks":[{"type":"Text","text":"hi"}]}}\n'
        '{"type":"stats","event_count":1,"message_count":1,"total_input_tokens":0,"total_output_tokens":0}\n',
        encoding="utf-8",
    )
    problems = Problems()
    session = read_one(path, problems)
    assert problems.items == []
    assert len(session.events) == 1
    assert session.meta["hail.stats"] == {
        "event_count": 1,
        "message_count": 1,
        "total_input_tokens": 0,
        "total_output_tokens": 0,
    }
    assert session.usage is None  # zero totals are no usage
    assert session.models == ()  # "unknown" is not a model
    assert session.agent == "cursor"


# -- the real samples ------------------------------------------------------------------


def test_samples_are_detected_and_read(samples):
    files = sorted(p for p in (samples / "hail").iterdir() if p.is_file())
    assert files
    for path in files:
        assert READER.detect_path(path), path.name
        problems = Problems()
        session, shown = read_accounted(path, problems)
        assert problems.items == [], path.name
        flat = [e for e in walk(session.events) if e.kind != Kind.SUBAGENT]
        assert len(flat) == shown > 0, path.name
        assert len({e.id for e in walk(session.events)}) == len(list(walk(session.events)))
        assert session.agent in ("codex", "claude-code")
        assert session.started and session.ended and session.started <= session.ended
        assert session.cwd and session.project == Path(session.cwd).name
        assert "hail.stats" in session.meta
        assert session.meta["hail.stats"]["event_count"] == event_lines(path)
        assert not any(e.kind == Kind.SYSTEM and not (e.text or e.blocks) for e in flat), path.name
        calls = {e.id for e in flat if e.kind == Kind.TOOL_CALL}
        assert all(e.call_id in calls for e in flat if e.kind == Kind.TOOL_RESULT), path.name
        assert not any(e.kind == Kind.UNKNOWN for e in flat)


def test_codex_desktop_sample_details(samples):
    path = samples / "hail" / "019cb6f9-codex-desktop.hail.jsonl"
    if not path.exists():
        pytest.skip("sample missing")
    session = read_one(path, Problems())
    assert session.title == "레포 최신화하고 기능들 잘되는지 테스트해줘"
    assert session.models == ("gpt-5.3-codex",)
    assert session.git.branches == ("main",) and session.git.repos == ("https://github.com/hwisu/opensession.git",)
    stats = session.meta["hail.stats"]
    total = sum((e.usage for e in walk(session.events) if e.usage), Usage())
    # token_count is reported twice per turn; counted once the sum matches the session total
    assert (total.input_tokens, total.output_tokens) == (stats["total_input_tokens"], stats["total_output_tokens"])
    edit = next(e for e in session.events if e.tool_name == "FileEdit")
    assert edit.category == ToolCategory.EDIT and edit.diff.startswith("*** Begin Patch")
    assert edit.path.endswith("handoff_cli.rs")
    results = [e for e in session.events if e.kind == Kind.TOOL_RESULT and e.exit_code is not None]
    assert {0, 1} <= {e.exit_code for e in results}


# -- the demo archive session ------------------------------------------------------------


def test_example_archive_session_reads_cleanly():
    files = sorted(EXAMPLE.glob("*.hail.jsonl"))
    assert len(files) == 1
    path = files[0]
    assert READER.detect_path(path)
    problems = Problems()
    session, shown = read_accounted(path, problems)
    assert problems.items == []
    assert session.agent == "codex"
    assert session.project == "tidepool"
    assert session.git.branches == ("fix/duration-parsing",) and session.git.commits and session.git.repos
    flat = [e for e in walk(session.events) if e.kind != Kind.SUBAGENT]
    assert len(flat) == shown
    assert event_lines(path) == session.meta["hail.stats"]["event_count"]
    kinds = {e.kind for e in flat}
    assert {
        Kind.USER,
        Kind.ASSISTANT,
        Kind.THINKING,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.TASK_START,
        Kind.TASK_END,
    } <= kinds
    # Codex's token counts are the usage of the responses they follow, never empty system events
    assert Kind.SYSTEM not in kinds
    user = next(e for e in flat if e.kind == Kind.USER)
    assert any("\uac00" <= ch <= "\ud7a3" for ch in user.text)  # Hangul
    assert any("```python" in e.text for e in flat if e.kind == Kind.ASSISTANT)
    assert any(e.is_error and e.exit_code == 1 for e in flat if e.kind == Kind.TOOL_RESULT)
    edit = next(e for e in flat if e.category == ToolCategory.EDIT)
    assert edit.diff.startswith("--- a/") and "\n@@ " in edit.diff
    assert any(e.category == ToolCategory.WEB for e in flat)
    sub = next(e for e in session.events if e.kind == Kind.SUBAGENT)
    assert sub.title == "duration-callers" and len(sub.children) == 6
    stats = session.meta["hail.stats"]
    total = sum((e.usage for e in flat if e.usage), Usage())
    assert (total.input_tokens, total.output_tokens) == (stats["total_input_tokens"], stats["total_output_tokens"])
