"""The claude.ai export reader: both message shapes, damage, and the real samples."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sessite.model import Kind, Problems, ToolCategory
from sessite.readers import discover
from sessite.readers.base import SNIFF_BYTES
from sessite.readers.formats.claude_ai import READER

REPO = Path(__file__).resolve().parents[3]


def read(path: Path, problems: Problems):
    return list(READER.read(path, problems))


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def assert_unique_ids(session) -> None:
    ids = [e.id for e in session.events]
    assert len(ids) == len(set(ids)), session.id


# ---------------------------------------------------------------------------
# detection


def test_detects_every_fixture(fixtures: Path) -> None:
    files = sorted((fixtures / "claude_ai").glob("*.json"))
    assert len(files) >= 4
    for path in files:
        assert READER.detect_path(path), path
    assert READER.name == "claude_ai" and READER.claims_directories is False


def test_detect_rejects_other_json(tmp_path: Path) -> None:
    cases = {
        "object.json": {"uuid": "x", "chat_messages": []},  # not an array
        "numbers.json": [1, 2, 3],
        "other-array.json": [{"uuid": "x", "messages": []}],
        "aics.json": {"version": "1.0", "creator": {"name": "x"}, "log": {"sessions": []}},
        "empty.json": [],
    }
    for name, doc in cases.items():
        path = tmp_path / name
        path.write_text(json.dumps(doc))
        assert not READER.detect_path(path), name
    lines = tmp_path / "conversations.jsonl"
    lines.write_text(json.dumps([{"uuid": "x", "name": "n", "chat_messages": []}]))
    assert not READER.detect_path(lines)  # wrong suffix
    empty_export = tmp_path / "conversations.json"
    empty_export.write_text("[]")
    assert READER.detect_path(empty_export)
    assert read(empty_export, Problems()) == []


def test_detect_first_conversation_longer_than_sniff_window(tmp_path: Path) -> None:
    big = "x" * (SNIFF_BYTES * 2)
    conv = {
        "uuid": "big",
        "name": "Big",
        "created_at": "2025-01-01T00:00:00Z",
        "chat_messages": [{"uuid": "m", "sender": "human", "text": big}],
    }
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([conv]))
    assert READER.detect_path(path)
    problems = Problems()
    [session] = read(path, problems)
    assert session.events[0].text == big and not problems.items


def test_discovery_claims_each_fixture_once(fixtures: Path) -> None:
    problems = Problems(fixtures)
    result = discover(fixtures / "claude_ai", problems)
    assert not result.ignored and not problems.items
    assert sorted(c.path.name for c in result.claims) == sorted(p.name for p in (fixtures / "claude_ai").glob("*.json"))
    assert all(c.reader.name == "claude_ai" for c in result.claims)


# ---------------------------------------------------------------------------
# the 2024 shape


def test_2024_shape_thinking_artifacts_files(fixtures: Path) -> None:
    problems = Problems()
    [s] = read(fixtures / "claude_ai" / "shape2024.json", problems)
    assert not problems.items
    assert s.id == "claude_ai-c2024-0001"
    assert s.agent == "claude.ai" and s.source.format == "claude_ai" and s.source.line == 2
    assert s.title == "Tip calculator page"
    assert s.started == utc(2024, 10, 17, 3, 28, 33, 480257)
    assert s.ended == utc(2024, 10, 17, 3, 31, 2, 100000)
    assert s.meta["account uuid"] == "acct-1111" and s.meta["message count"] == 4
    assert s.cwd is None and s.project is None
    assert_unique_ids(s)

    kinds = [(e.id, e.kind) for e in s.events]
    assert kinds == [
        ("m-h1", Kind.USER),
        ("m-a1", Kind.ASSISTANT),
        ("m-a1-think1", Kind.THINKING),
        ("m-a1-t1", Kind.ASSISTANT),
        ("m-a1-t2", Kind.ASSISTANT),
        ("m-h2", Kind.USER),
        ("m-a2", Kind.ASSISTANT),
    ]
    user, prose, thinking, artifact, after, _, py = s.events
    # files and attachments become file blocks; extracted content is kept
    assert user.text == "Build me a tip calculator as a single HTML page"
    files = {b.title: b for b in user.blocks}
    assert set(files) == {"mockup.png", "notes.txt"}
    assert all(b.type == "file" for b in user.blocks)
    assert files["notes.txt"].text == "round up to the nearest dollar"
    assert files["notes.txt"].mime == "text/plain" and files["notes.txt"].data == {
        "file_type": "text/plain",
        "file_size": 42,
    }
    assert files["mockup.png"].text == ""
    # prose, thinking, artifact, prose: in order, no tags left in the text
    assert prose.text == "Sure! Here is a small page."
    assert thinking.text == "A self-contained page is a good artifact."
    assert artifact.text == "" and len(artifact.blocks) == 1
    code = artifact.blocks[0]
    assert (code.type, code.language, code.title, code.mime) == ("code", "html", "Tip Calculator", "text/html")
    assert code.text == '<!DOCTYPE html>\n<p>Tip: <span id="tip"></span></p>'
    assert code.data == {"identifier": "tip-calc"}
    assert after.text == "Open it in a browser to try it."
    assert all("<ant" not in e.text for e in s.events)
    # the language attribute wins over the vnd.ant.code type
    assert py.blocks[0].language == "python" and py.blocks[0].title == "tip.py"
    assert py.blocks[0].text == "def tip(amount):\n    return amount * 0.15"
    assert user.timestamp == utc(2024, 10, 17, 3, 28, 55, 541307)


def test_unclosed_artifact_runs_to_end_and_self_closing(tmp_path: Path) -> None:
    text = (
        'Before <antArtifact identifier="a" type="image/svg+xml" title="Logo"/> middle '
        '<antArtifact identifier="b" type="text/markdown" title="Doc">\n# cut off'
    )
    conv = [
        {
            "uuid": "u",
            "name": "n",
            "chat_messages": [{"uuid": "m", "sender": "assistant", "text": text, "created_at": "2024-01-01T00:00:00Z"}],
        }
    ]
    path = tmp_path / "c.json"
    path.write_text(json.dumps(conv))
    problems = Problems()
    [s] = read(path, problems)
    assert not problems.items
    texts = [(e.text, [(b.title, b.language, b.text) for b in e.blocks]) for e in s.events]
    assert texts == [("Before", [("Logo", "xml", "")]), ("middle", [("Doc", "markdown", "# cut off")])]


# ---------------------------------------------------------------------------
# the block shape


def test_block_shape(fixtures: Path) -> None:
    problems = Problems()
    [s] = read(fixtures / "claude_ai" / "blocks.json", problems)
    assert_unique_ids(s)
    # the name is empty: the first human message is the title
    assert s.title == "When is the next Python release?"
    assert s.meta["summary"] == "Looked up the Python release schedule."
    assert s.skipped == {"token_budget marker (no content)": 1}

    by_id = {e.id: e for e in s.events}
    assert [e.kind for e in s.events] == [
        Kind.USER,
        Kind.THINKING,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.ASSISTANT,
        Kind.UNKNOWN,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
    ]
    # content is preferred over the duplicate text field: the answer appears once
    answers = [e for e in s.events if e.kind == Kind.ASSISTANT]
    assert len(answers) == 1 and answers[0].text == "The next feature release is Python 3.15."
    assert answers[0].timestamp == utc(2026, 1, 5, 10, 0, 7)
    [citation] = answers[0].blocks
    assert citation.type == "reference" and citation.uri == "https://peps.python.org/pep-0790/"

    thinking = by_id["b-a1-0"]
    assert thinking.text == "I should search for the release schedule."
    assert thinking.meta["summaries"] == ["Planning a search"]
    assert thinking.meta["parent_message_uuid"] == "b-h1"
    assert thinking.timestamp == utc(2026, 1, 5, 10, 0, 2)
    assert "parent_message_uuid" not in by_id["b-h1"].meta  # the root parent is not worth showing

    call, result = by_id["b-a1-1"], by_id["b-a1-2"]
    assert (call.tool_name, call.call_id, call.category) == ("web_search", "toolu_01", ToolCategory.WEB)
    assert call.tool_input == {"query": "python release schedule"}
    assert call.meta == {"message": "Searching the web"}
    assert result.call_id == "toolu_01" and result.tool_name == "web_search" and not result.is_error
    assert "PEP 790 – Python 3.15 Release Schedule" in result.text
    assert "https://peps.python.org/pep-0790/" in result.text
    assert "3.15.0 final: 2026-10-01" in result.text
    assert "1 more result omitted" in result.text
    [ref] = result.blocks
    assert (
        ref.type == "reference" and ref.uri == "https://peps.python.org/pep-0790/" and ref.title.startswith("PEP 790")
    )
    assert ref.data["metadata"]["site_domain"] == "peps.python.org" and ref.data["is_citable"] is True

    unknown = by_id["b-a1-5"]
    assert unknown.raw["type"] == "voice_note" and unknown.raw["text"] == "spoken"
    assert [p.message for p in problems.items] == [
        "claude.ai: conversation cblk-0001: unknown content block type 'voice_note'; "
        "shown as raw JSON (further ones in this file not reported)"
    ]
    assert problems.items[0].line == 2

    repl_call, repl_result = by_id["b-a1-6"], by_id["b-a1-7"]
    assert repl_call.category == ToolCategory.OTHER and repl_call.command == "console.log(1+1)"
    assert repl_result.is_error and repl_result.text == "ReferenceError: console is not defined"
    assert repl_result.call_id == "toolu_02"


def test_text_kept_when_content_has_no_text_blocks(tmp_path: Path) -> None:
    msg = {
        "uuid": "m1",
        "sender": "assistant",
        "created_at": "2026-01-01T00:00:00Z",
        "text": "Only in the text field",
        "content": [
            {
                "type": "tool_use",
                "id": "t1",
                "name": "artifacts",
                "input": {"id": "a", "type": "text/html", "title": "Page", "command": "create", "content": "<p>hi</p>"},
            }
        ],
    }
    path = tmp_path / "c.json"
    path.write_text(json.dumps([{"uuid": "c", "name": "n", "chat_messages": [msg]}]))
    problems = Problems()
    [s] = read(path, problems)
    assert not problems.items
    assert [(e.kind, e.text) for e in s.events] == [(Kind.ASSISTANT, "Only in the text field"), (Kind.TOOL_CALL, "")]
    block = s.events[1].blocks[0]
    assert (block.type, block.language, block.title, block.text) == ("code", "html", "Page", "<p>hi</p>")


def test_messages_listed_out_of_order_are_sorted_by_time(tmp_path: Path) -> None:
    msgs = [
        {"uuid": "late-q", "sender": "human", "text": "second question", "created_at": "2024-01-01T00:10:00Z"},
        {"uuid": "q1", "sender": "human", "text": "first question", "created_at": "2024-01-01T00:00:00Z"},
        {"uuid": "a1", "sender": "assistant", "text": "first answer", "created_at": "2024-01-01T00:00:00Z"},
        {"uuid": "a2", "sender": "assistant", "text": "second answer", "created_at": "2024-01-01T00:10:00Z"},
    ]
    path = tmp_path / "c.json"
    path.write_text(json.dumps([{"uuid": "c", "name": "n", "chat_messages": msgs}]))
    [s] = read(path, Problems())
    assert [e.id for e in s.events] == ["q1", "a1", "late-q", "a2"]
    assert "message order" in s.meta


def test_tool_result_content_shapes() -> None:
    from sessite.readers.formats.claude_ai.calls import render_result as _render_result

    assert _render_result("plain") == ("plain", [])
    text, blocks = _render_result({"type": "text", "text": {"status": "success", "logs": ["2"]}})
    assert json.loads(text) == {"status": "success", "logs": ["2"]} and blocks == []
    text, _ = _render_result([{"type": "text", "text": "a", "extra": 1}])
    assert json.loads(text) == {"type": "text", "text": "a", "extra": 1}  # unknown fields are not dropped
    text, blocks = _render_result(
        [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}]
    )
    assert blocks[0].type == "image" and blocks[0].uri == "data:image/png;base64,AAAA"
    assert _render_result(None) == ("", [])


# ---------------------------------------------------------------------------
# damage


def test_truncated_export_keeps_earlier_conversations(fixtures: Path) -> None:
    problems = Problems()
    sessions = read(fixtures / "claude_ai" / "truncated.json", problems)
    assert [s.id for s in sessions] == ["claude_ai-trunc-1", "claude_ai-trunc-2"]
    assert [len(s.events) for s in sessions] == [2, 2]
    assert [s.source.line for s in sessions] == [2, 29]
    [problem] = problems.items
    assert problem.line == 56 and "truncated" in problem.message


def test_wrong_types_are_problems_not_exceptions(fixtures: Path) -> None:
    problems = Problems()
    sessions = read(fixtures / "claude_ai" / "wrong_types.json", problems)
    assert [s.id for s in sessions] == ["claude_ai-12345", "claude_ai-w-ok"]
    first, second = sessions
    messages = [p.message for p in problems.items]

    def has(fragment: str) -> bool:
        return any(fragment in m for m in messages)

    assert has("'name' is a list")
    assert has("created_at is not a valid timestamp: 'yesterday'")
    assert has("chat_messages[0] is a str")
    assert has("'text' is a dict")
    assert has("'files' is a str")
    assert has("'sender' is a int")
    assert has("'content' is a str")
    assert has("an entry of 'attachments' is a NoneType")
    assert has("'chat_messages' is a dict")
    assert has("conversation #3 is a int")
    assert not has("could not be read")  # no reader bug behind the scenes
    assert all(p.line for p in problems.items)

    assert first.started == utc(2025, 5, 1, 8, 0) and first.ended == utc(2025, 5, 1, 8, 2)
    assert first.meta["account"] == "acct-as-a-string"
    assert first.skipped == {"empty message (no text, content or files)": 1, "message that is not an object": 1}
    by_id = {e.id: e for e in first.events}
    assert json.loads(by_id["w-1"].text) == {"oops": True}
    assert by_id["w-2"].kind == Kind.SYSTEM and by_id["w-2"].text == "fine"
    assert [b.title for b in by_id["w-2"].blocks] == ["a.csv"]
    assert json.loads(by_id["w-3-2"].text) == {"message": "Echo: hi"}
    assert second.events == () and second.title == "Still read"


# ---------------------------------------------------------------------------
# real samples and the demo archive


def test_real_samples(samples: Path) -> None:
    folder = samples / "claude_ai_export"
    files = sorted(folder.glob("*.json"))
    assert files
    for path in files:
        assert READER.detect_path(path), path
        doc = json.loads(path.read_text(encoding="utf-8"))
        problems = Problems()
        sessions = read(path, problems)
        assert not problems.items, problems.items
        assert len(sessions) == len(doc)
        for conv, session in zip(doc, sessions):
            assert session.id == f"claude_ai-{conv['uuid']}"
            assert session.title == conv["name"]
            assert len(session.events) >= len(conv["chat_messages"])
            assert session.started is not None and session.ended is not None
            assert_unique_ids(session)
            assert all("<antArtifact" not in e.text and "<antThinking" not in e.text for e in session.events)


def test_real_sample_artifacts_and_order(samples: Path) -> None:
    [s] = read(samples / "claude_ai_export" / "simonw-artifacts.json", Problems())
    code = [b for e in s.events for b in e.blocks if b.type == "code"]
    assert len(code) == 10 and all(b.language == "html" for b in code)
    assert sum(e.kind == Kind.THINKING for e in s.events) == 10
    # the export lists one question first although it was asked later
    users = [e for e in s.events if e.kind == Kind.USER]
    assert users[0].text.startswith("Built me an artifact with no react")
    times = [e.timestamp for e in s.events]
    assert times == sorted(times)


def test_example_archive() -> None:
    path = REPO / "example-archive" / "claude-ai" / "conversations.json"
    assert READER.detect_path(path)
    problems = Problems()
    sessions = read(path, problems)
    assert not problems.items, problems.items
    assert len(sessions) == 2
    old, new = sessions
    assert any(e.kind == Kind.THINKING for e in old.events)
    assert any(b.type == "code" and b.language == "html" for e in old.events for b in e.blocks)
    assert any(b.type == "file" and b.text for e in old.events for b in e.blocks)
    kinds = [e.kind for e in new.events]
    assert Kind.THINKING in kinds and Kind.TOOL_CALL in kinds and Kind.TOOL_RESULT in kinds
    result = next(e for e in new.events if e.kind == Kind.TOOL_RESULT)
    assert len([b for b in result.blocks if b.type == "reference"]) == 2
    answer = next(e for e in new.events if e.kind == Kind.ASSISTANT)
    assert "```python" in answer.text and "🍀" in answer.text and "https://github.com/" in answer.text
    assert new.title == "Ошибка кодировки при чтении CSV"
    times = [e.timestamp for e in new.events]
    assert times == sorted(times)


@pytest.mark.parametrize("name", ["shape2024.json", "blocks.json", "truncated.json", "wrong_types.json"])
def test_event_ids_unique(fixtures: Path, name: str) -> None:
    for session in read(fixtures / "claude_ai" / name, Problems()):
        assert_unique_ids(session)


def test_repeated_conversation_uuid_gets_a_distinct_id(tmp_path: Path) -> None:
    conv = {"uuid": "same", "name": "n", "chat_messages": [{"uuid": "m", "sender": "human", "text": "hi"}]}
    path = tmp_path / "c.json"
    path.write_text(json.dumps([conv, conv]))
    problems = Problems()
    sessions = read(path, problems)
    assert len({s.id for s in sessions}) == 2 and sessions[0].id == "claude_ai-same"
    assert len(problems.items) == 1 and "repeats the uuid" in problems.items[0].message
