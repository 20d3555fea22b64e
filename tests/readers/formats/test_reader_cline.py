"""The Cline reader: task folders in the native tool-call style, the older XML style, and panel-only tasks."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from helpers import EXAMPLE

from sessite.model import Kind, Problems, ToolCategory
from sessite.readers import discover, registry
from sessite.readers.formats.cline import READER
from sessite.site.view import build_view

NATIVE = "1767780000000"
XML = "1735725600000"
PANEL_ONLY = "1704103200000"


def task(fixtures: Path, name: str) -> Path:
    return fixtures / "cline" / "tasks" / name


def read_one(path: Path, problems: Problems | None = None):
    [session] = READER.read(path, problems if problems is not None else Problems())
    return session


def at(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


def test_reader_flags_detection_and_discovery(fixtures: Path) -> None:
    assert READER.name == "cline" and READER.claims_directories and READER in registry()
    for name in (NATIVE, XML, PANEL_ONLY):
        assert READER.detect_path(task(fixtures, name))
    assert not READER.detect_path(fixtures / "cline" / "tasks")
    assert not READER.detect_path(task(fixtures, NATIVE) / "ui_messages.json")
    problems = Problems(fixtures)
    result = discover(fixtures / "cline", problems)
    assert sorted(c.path.name for c in result.claims) == [PANEL_ONLY, XML, NATIVE, "1769000000000"]
    assert not result.ignored and not problems.items
    native = next(c for c in result.claims if c.path.name == NATIVE)
    assert [p.name for p in native.companions] == [
        "api_conversation_history.json",
        "task_metadata.json",
        "ui_messages.json",
    ]


def test_native_tool_calls(fixtures: Path) -> None:
    problems = Problems(fixtures)
    s = read_one(task(fixtures, NATIVE), problems)
    t0 = int(NATIVE)
    assert s.id == f"cline-{NATIVE}" and s.agent == "cline" and s.source.path.endswith("api_conversation_history.json")
    assert s.cwd == "/home/dev/tool" and s.project == "tool"  # from <environment_details>
    assert s.models == ("claude-sonnet-4-5",)
    assert s.started == at(t0) and s.ended == at(t0 + 23000)
    assert s.meta["cline version"] == "3.51.0" and s.meta["files in context"] == 1
    assert s.meta["cost"] == pytest.approx(0.004 + 0.006 + 0.002 + 0.0015 + 0.001)

    by_id = {e.id: e for e in s.events}
    user = s.events[0]
    assert user.kind == Kind.USER and user.text == "Add a --verbose flag to cli.py" and user.timestamp == at(t0)
    env = s.events[1]
    assert env.kind == Kind.SYSTEM and env.title == "Environment details" and not env.text
    assert "# Current Working Directory (/home/dev/tool) Files" in env.blocks[0].text
    assert sum(1 for e in s.events if e.title == "Environment details") == 5
    assert all(e.kind != Kind.USER or "environment_details" not in e.text for e in s.events)

    thinking, text, read_call = s.events[2:5]
    assert thinking.kind == Kind.THINKING and thinking.timestamp == at(t0 + 3000)
    assert text.kind == Kind.ASSISTANT and text.model == "claude-sonnet-4-5"
    assert read_call.tool_name == "read_file" and read_call.category == ToolCategory.READ and read_call.path == "cli.py"
    assert read_call.tool_input == {"path": "cli.py"} and read_call.meta["task_progress"].startswith("- [ ] Read")
    # usage from the message's own metrics, once, on its last event
    assert (read_call.usage.input_tokens, read_call.usage.output_tokens) == (1200, 80) and read_call.meta[
        "cost"
    ] == 0.004
    assert text.usage is None and thinking.usage is None

    view = build_view(s)
    [read_result] = view.results_for(read_call)
    assert read_result.text.startswith("import argparse") and read_result.timestamp == at(t0 + 6000)

    edit = next(e for e in s.events if e.tool_name == "replace_in_file")
    assert edit.category == ToolCategory.EDIT and edit.path == "/home/dev/tool/cli.py"
    assert edit.diff.splitlines()[:2] == ["--- /home/dev/tool/cli.py", "+++ /home/dev/tool/cli.py"]
    assert '+parser.add_argument("--verbose", action="store_true")' in edit.diff
    [edit_result] = view.results_for(edit)
    assert edit_result.text == "The content was successfully saved to cli.py."  # header and output in separate blocks

    shell = next(e for e in s.events if e.tool_name == "execute_command")
    assert shell.category == ToolCategory.SHELL and shell.command == "python cli.py --verbose --help"
    # no metrics on this message: the panel's api_req_started before it
    assert (shell.usage.input_tokens, shell.usage.cache_read_tokens) == (1700, 1000)
    [shell_result] = view.results_for(shell)
    assert "usage: cli.py [-h] [--verbose]" in shell_result.text and not shell_result.is_error

    done = next(e for e in s.events if e.tool_name == "attempt_completion")
    assert done.text == "Added `--verbose` to cli.py." and done.tool_input is None  # prose shown as text
    assert done.usage.input_tokens == 1800
    [result] = view.results_for(done)
    assert result.text.startswith("The user has provided feedback")
    # the feedback the result quotes is the user's own turn
    feedback = s.events[s.events.index(result) + 1]
    assert feedback.kind == Kind.USER and feedback.text == "Also document it in the README"
    assert feedback.meta == {"tag": "feedback"}

    last = s.events[-2]
    assert last.kind == Kind.ASSISTANT and last.usage.input_tokens == 1900 and last.timestamp == at(t0 + 23000)
    unknown = s.events[-1]
    assert unknown.kind == Kind.UNKNOWN and unknown.raw == {"type": "hologram", "payload": 1}
    assert [p.message for p in problems.items] == ["cline: message 9: unknown block type 'hologram'; shown as raw JSON"]
    assert len(by_id) == len(s.events)


def test_xml_style_tool_calls(fixtures: Path) -> None:
    problems = Problems()
    s = read_one(task(fixtures, XML), problems)
    assert not problems.items
    assert s.cwd == "/home/dev/lib"
    kinds = [e.kind for e in s.events]
    assert kinds == [
        Kind.USER,
        Kind.SYSTEM,
        Kind.THINKING,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.SYSTEM,
        Kind.ASSISTANT,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.SYSTEM,
        Kind.TOOL_CALL,
    ]
    thinking, read_call, read_result = s.events[2:5]
    assert thinking.text == "I should read utils.py first."
    assert (
        read_call.tool_name == "read_file"
        and read_call.tool_input == {"path": "utils.py"}
        and read_call.meta["style"] == "xml"
    )
    assert read_result.call_id == read_call.call_id and read_result.text.startswith("def slugify")
    write = s.events[7]
    assert write.tool_name == "write_to_file" and write.path == "EXPORTS.md"
    assert "+- `slugify` <small>(text)</small>" in write.diff  # tags inside <content> are content
    denied = s.events[8]
    assert denied.call_id == write.call_id and denied.is_error and denied.text == "The user denied this operation."
    assert s.events[10].tool_name == "attempt_completion" and s.events[10].text == "utils.py exports `slugify`."
    # panel messages without history indexes: requests pair with responses in order
    assert [e.usage.input_tokens for e in s.events if e.usage] == [900, 1000, 1100]
    assert s.started == at(int(XML)) and s.events[0].timestamp == at(int(XML) + 1000)


def test_panel_only_task(fixtures: Path) -> None:
    problems = Problems()
    s = read_one(task(fixtures, PANEL_ONLY), problems)
    assert not problems.items
    assert s.meta["rebuilt from"] == "ui_messages.json" and s.skipped == {}
    kinds = [e.kind for e in s.events]
    assert kinds == [
        Kind.USER,
        Kind.THINKING,
        Kind.ASSISTANT,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.ASSISTANT,
        Kind.UNKNOWN,
    ]
    # a message the panel never finished is the only copy of its text: shown as it stands
    assert s.events[2].text == "Checking." and s.events[2].meta["partial"]
    shell, output = s.events[3:5]
    assert shell.command == "python3 --version" and output.call_id == shell.call_id and output.text == "Python 3.12.1"
    assert s.events[1].usage.input_tokens == 400
    assert s.events[-1].raw["say"] == "quantum_state"


def test_damaged_task_folder(tmp_path: Path) -> None:
    folder = tmp_path / "1760000000000"
    folder.mkdir()
    history = [
        {"role": "user", "content": "plain string content"},
        {"role": "assistant", "content": [{"type": "text", "text": "partial <read_file><path>a.py"}, "not a block"]},
        {"role": "narrator", "content": []},
        {"role": "user", "content": 42},
    ]
    text = json.dumps(history)
    (folder / "api_conversation_history.json").write_text(text[: text.rindex("42")] + "4")  # cut mid-array
    (folder / "ui_messages.json").write_text('[{"ts": "soon", "type": "say", "say": "text", "text": 5}, 7]')
    (folder / "task_metadata.json").write_text("[]")
    assert READER.detect_path(folder)
    problems = Problems(tmp_path)
    s = read_one(folder, problems)
    assert s.events[0].kind == Kind.USER and s.events[0].text == "plain string content"
    assert s.events[1].text.startswith("partial <read_file>")  # an unclosed call stays text
    assert [e.kind for e in s.events[2:]] == [Kind.UNKNOWN, Kind.UNKNOWN]
    messages = " | ".join(str(p) for p in problems.items)
    for expected in (
        "truncated",
        "ts is not a timestamp",
        "not an object",
        "role 'narrator'",
        "task_metadata.json is a list",
    ):
        assert expected in messages


def test_a_folder_with_only_one_file_needs_an_epoch_name(tmp_path: Path) -> None:
    named = tmp_path / "notes"
    named.mkdir()
    (named / "ui_messages.json").write_text("[]")
    assert not READER.detect_path(named)
    task_dir = tmp_path / "1760000000001"
    task_dir.mkdir()
    (task_dir / "ui_messages.json").write_text("[]")
    assert READER.detect_path(task_dir)
    problems = Problems()
    s = read_one(task_dir, problems)
    assert s.events == () and s.started == at(1760000000001)
    assert "no readable messages" in problems.items[0].message


def test_example_session_reads_cleanly() -> None:
    [folder] = [p for p in (EXAMPLE / "cline").iterdir() if p.is_dir()]
    problems = Problems()
    s = read_one(folder, problems)
    assert not problems.items and s.cwd == "/home/dev/dates"
    view = build_view(s)
    calls = [e for e in s.events if e.kind == Kind.TOOL_CALL]
    assert [c.tool_name for c in calls] == ["read_file", "replace_in_file", "execute_command", "attempt_completion"]
    assert all(view.results_for(c) for c in calls[:-1])  # the task ended on its completion
    assert s.ended - s.started == timedelta(seconds=23)
