"""How each kind of event looks: the HTML ``templates/_events.html`` draws for it, as a snapshot.

Each case is a tiny session built in the model, rendered by the site's own renderer; the
event's ``<li>`` is compared with ``tests/__snapshots__/test_event_snapshots/<case>.html``.
A template change shows up as a diff of those files in review. After an intended change:
``.venv/bin/python -m pytest tests/test_event_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from bs4 import BeautifulSoup
from helpers import render_session_page
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from sessite.model import Block, Event, Kind, Session, SourceRef, ToolCategory, Usage
from sessite.site.view import anchor_ids

PNG = (
    "data:image/png;base64,"
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="
)


class HTMLSnapshot(SingleFileSnapshotExtension):
    """One readable .html file per snapshot."""

    _write_mode = WriteMode.TEXT
    file_extension = "html"


@pytest.fixture
def snapshot_html(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(HTMLSnapshot)


def at(minute: int, second: int = 0) -> datetime:
    return datetime(2026, 3, 14, 9, minute, second, tzinfo=UTC)


def call(event_id: str, call_id: str, **fields) -> Event:
    return Event(event_id, Kind.TOOL_CALL, at(1), call_id=call_id, **fields)


def result(event_id: str, call_id: str, text: str, **fields) -> Event:
    return Event(event_id, Kind.TOOL_RESULT, at(1, 5), text=text, call_id=call_id, **fields)


MARKDOWN_ANSWER = """\
## The fix

The parser dropped the **last** field. Two changes:

1. keep the trailing separator
2. test it with `pytest -q`

```python
def parse(line: str) -> list[str]:
    return line.split(",")
```
"""

PATCH = """\
--- a/app/parse.py
+++ b/app/parse.py
@@ -1,3 +1,3 @@
 def parse(line):
-    return line.split(",")[:-1]
+    return line.split(",")
 # end
"""

SUBAGENT = Event(
    "sub",
    Kind.SUBAGENT,
    at(2),
    title="Find the parser's callers",
    call_id="task-1",
    text="Look for every caller of `parse`.",
    children=(
        Event("sub-user", Kind.USER, at(2), text="Find every caller of parse()."),
        Event("sub-answer", Kind.ASSISTANT, at(3), text="Two callers: `cli.py` and `batch.py`.", model="small-model"),
    ),
)

# case -> (the session's events, the id of the event whose <li> is the snapshot)
CASES: dict[str, tuple[tuple[Event, ...], str]] = {
    "user": ((Event("u", Kind.USER, at(0), text="Why does `parse()` drop the *last* field?"),), "u"),
    "user_with_blocks": (
        (
            Event(
                "u",
                Kind.USER,
                at(0),
                text="Here is the input and a screenshot.",
                blocks=(
                    Block("image", uri=PNG, mime="image/png", title="screenshot"),
                    Block("image", uri="https://example.com/shot.png", title="remote shot"),
                    Block("file", text="a,b,c\n1,2,3\n", title="data.csv"),
                    Block("reference", uri="https://example.com/spec", title="The CSV spec"),
                    Block("json", data={"rows": 2, "ok": True}, title="stats"),
                    Block("code", text="print('hi')\n", language="python", title="hello.py"),
                ),
            ),
        ),
        "u",
    ),
    "assistant_markdown_and_code": (
        (
            Event(
                "a",
                Kind.ASSISTANT,
                at(1),
                text=MARKDOWN_ANSWER,
                model="big-model",
                usage=Usage(input_tokens=1200, output_tokens=345, cache_read_tokens=56000, cache_write_tokens=789),
            ),
        ),
        "a",
    ),
    "assistant_model_without_usage": (
        (Event("a", Kind.ASSISTANT, at(1), text="Done.", model="big-model"),),
        "a",
    ),
    "thinking": (
        (
            Event(
                "t",
                Kind.THINKING,
                at(1),
                text="The split keeps an empty last field, so slicing it off loses real data when the line "
                "does not end with a comma. Check the callers first.",
                usage=Usage(input_tokens=10, output_tokens=20),
            ),
        ),
        "t",
    ),
    "tool_call_with_result": (
        (
            call(
                "c",
                "read-1",
                tool_name="Read",
                category=ToolCategory.READ,
                path="app/parse.py",
                tool_input={"file_path": "app/parse.py", "limit": 40},
            ),
            result("r", "read-1", 'def parse(line):\n    return line.split(",")[:-1]\n'),
        ),
        "c",
    ),
    "shell_with_exit_code": (
        (
            call(
                "c",
                "sh-1",
                tool_name="Bash",
                category=ToolCategory.SHELL,
                command="pytest -q tests/test_parse.py",
                tool_input={"command": "pytest -q tests/test_parse.py", "timeout": 120},
            ),
            result("r", "sh-1", "F.\n1 failed, 1 passed in 0.02s", exit_code=1),
        ),
        "c",
    ),
    "file_edit_with_diff": (
        (
            call(
                "c",
                "edit-1",
                tool_name="Edit",
                category=ToolCategory.EDIT,
                path="app/parse.py",
                diff=PATCH,
                tool_input={"file_path": "app/parse.py", "old_string": "[:-1]", "new_string": ""},
            ),
            result("r", "edit-1", "The file app/parse.py has been updated."),
        ),
        "c",
    ),
    "error_result": (
        (
            call(
                "c",
                "w-1",
                tool_name="Write",
                category=ToolCategory.EDIT,
                path="/etc/hosts",
                tool_input={"file_path": "/etc/hosts", "content": "127.0.0.1 parse"},
            ),
            result("r", "w-1", "EACCES: permission denied, open '/etc/hosts'", is_error=True),
        ),
        "c",
    ),
    "result_without_its_call": (
        (result("r", "gone-1", "output of a call that is not in the log", tool_name="Bash", exit_code=0),),
        "r",
    ),
    "long_output_is_collapsed": (
        (
            call(
                "c",
                "sh-2",
                tool_name="Bash",
                category=ToolCategory.SHELL,
                command="seq 40",
                tool_input={"command": "seq 40"},
            ),
            result("r", "sh-2", "\n".join(str(n) for n in range(1, 41)), exit_code=0),
        ),
        "c",
    ),
    "task_call_with_sub_agent": (
        (
            call(
                "c",
                "task-1",
                tool_name="Task",
                category=ToolCategory.TASK,
                tool_input={"description": "Find the parser's callers", "subagent_type": "explore"},
            ),
            result("r", "task-1", "Two callers: cli.py and batch.py."),
            SUBAGENT,
        ),
        "c",
    ),
    "sub_agent_on_its_own": ((SUBAGENT,), "sub"),
    "compaction": (
        (
            Event(
                "k",
                Kind.COMPACTION,
                at(5),
                title="Conversation compacted",
                text="This session is being continued from a previous conversation. **Summary:** the parser...",
                meta={"trigger": "auto", "preTokens": 167731},
            ),
        ),
        "k",
    ),
    "system": (
        (
            Event(
                "s", Kind.SYSTEM, at(0), title="Session started", text="cwd: `/home/dev/app`", meta={"version": "1.2"}
            ),
        ),
        "s",
    ),
    "unknown_record": (
        (
            Event(
                "x",
                Kind.UNKNOWN,
                None,
                title="queue-operation",
                raw={"type": "queue-operation", "operation": "enqueue", "content": "<b>not markup</b>"},
            ),
        ),
        "x",
    ),
    "task_start": ((Event("ts", Kind.TASK_START, at(0), title="Turn 1", text="Model: big-model"),), "ts"),
    "task_end": ((Event("te", Kind.TASK_END, at(9), title="Turn 1 finished"),), "te"),
}


def event_html(events: tuple[Event, ...], event_id: str) -> str:
    """The pretty HTML of one event's ``<li>`` on the page of a session holding ``events``."""
    session = Session(
        id="snapshot-session",
        source=SourceRef("snapshot.jsonl", "test"),
        agent="test-agent",
        events=events,
        title="Snapshot",
        started=at(0),
        ended=at(9),
    )
    page = BeautifulSoup(render_session_page(session), "html.parser")
    item = page.find("li", id=anchor_ids(events)[event_id])
    assert item is not None, f"{event_id} is not on the page"
    return item.prettify()


@pytest.mark.parametrize("case", sorted(CASES))
def test_event_html(case: str, snapshot_html: SnapshotAssertion) -> None:
    events, shown = CASES[case]
    assert event_html(events, shown) == snapshot_html


def test_every_kind_has_a_snapshot() -> None:
    kinds = {event.kind for events, _ in CASES.values() for event in events}
    assert kinds == set(Kind)
