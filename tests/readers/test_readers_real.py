"""Cursor, Cline, claude.ai and HAIL, faithful to real logs: hand-made fixtures that reproduce each
case, and the real public files of ``../shared/formats/real`` (those tests skip without them).

Each case: Cursor composers kept whole in the ``composer.composerData`` index become sessions and
a store with none says why; Cline's cache reads and writes stay apart and the cost it recorded is
kept; claude.ai tool calls (no ids) pair with the result that follows; HAIL ``token_count``
events are usage, never empty events. Every record of every file gets a fate, read back by the
fidelity enumerators (``benchmarks/fidelity/formats``).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import pytest
from helpers import FIXTURES, REPO

from sessite.model import Event, Kind, Problems, Session, Usage, session_title, walk
from sessite.readers import discover
from sessite.readers.formats.claude_ai import READER as CLAUDE_AI
from sessite.readers.formats.cline import READER as CLINE
from sessite.readers.formats.cursor import READER as CURSOR
from sessite.readers.formats.hail import READER as HAIL
from sessite.readers.ledger import Fate, keeping_ledger

sys.path.insert(0, str(REPO / "benchmarks"))
from fidelity.formats import enumerator  # noqa: E402  (benchmarks/ is not a package)

REAL = REPO.parent / "shared" / "formats" / "real"
FORMATS = ("cursor", "cline", "claude_ai", "hail")
CLINE_TASK = FIXTURES / "cline" / "tasks" / "1769000000000"
needs_real = pytest.mark.skipif(not REAL.is_dir(), reason="the real logs (../shared/formats/real) are not here")


@dataclass
class Audit:
    """What reading a folder with a ledger kept, checked against the enumerators."""

    sessions: list[Session] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    unaccounted: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # user or assistant texts no event holds
    unpaired: list[str] = field(default_factory=list)  # calls the source answers, not paired in the model
    raw: list[str] = field(default_factory=list)  # UNKNOWN events
    empty: list[str] = field(default_factory=list)  # system events with nothing to show
    fates: dict[tuple[str, int], tuple[Fate, str]] = field(default_factory=dict)

    def assert_faithful(self) -> None:
        assert not (self.unaccounted or self.missing or self.unpaired or self.raw or self.empty), (
            self.unaccounted,
            self.missing,
            self.unpaired,
            self.raw,
            self.empty,
        )
        assert all(session_title(s) and not session_title(s).startswith("<") for s in self.sessions)


def audit(root: Path, reader: str) -> Audit:
    """Read every claim of ``reader`` under ``root`` with a ledger, and compare with its enumerator."""
    problems = Problems()
    out = Audit()
    records = enumerator(reader)
    assert records is not None, reader
    for claim in discover(root, problems).claims:
        if claim.reader.name != reader:
            continue
        with keeping_ledger() as ledger:
            sessions = list(claim.read(problems))
        out.sessions += sessions
        out.fates.update(ledger.fates)
        events = [e for s in sessions for e in walk(s.events)]
        out.raw += [f"{claim.path.name}: {e.title}" for e in events if e.kind == Kind.UNKNOWN]
        out.empty += [f"{claim.path.name}: {e.id}" for e in events if _empty_system(e)]
        said = {kind: " ".join(" ".join(e.text.split()) for e in events if e.kind == kind) for kind in Kind}
        calls = {e.call_id for e in events if e.kind == Kind.TOOL_CALL}
        results = {e.call_id for e in events if e.kind == Kind.TOOL_RESULT}
        made: set[str] = set()
        answered: set[str] = set()
        for path in dict.fromkeys((*claim.sources, *claim.companions)):
            for record in records(path):
                if (str(record.path), record.line) not in ledger.fates:
                    out.unaccounted.append(f"{path.name}:{record.line} {record.type}")
                for kind, texts in ((Kind.USER, record.user_texts), (Kind.ASSISTANT, record.assistant_texts)):
                    out.missing += [
                        f"{path.name}:{record.line}" for t in texts if " ".join(t.split()) not in said[kind]
                    ]
                made.update(record.calls)
                answered.update(record.results)
        out.unpaired += sorted(c for c in made & answered if c not in calls or c not in results)
    out.problems = [str(p) for p in problems.items]
    return out


def _empty_system(event: Event) -> bool:
    return event.kind == Kind.SYSTEM and not event.text.strip() and not event.blocks


def cursor_fixture() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cursor_make_fixture", FIXTURES / "cursor" / "make_fixture.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_one(reader, path: Path, problems: Problems | None = None) -> Session:
    sessions = list(reader.read(path, problems if problems is not None else Problems()))
    assert len(sessions) == 1
    return sessions[0]


# -- the hand-made fixtures: every record accounted for ------------------------------------


@pytest.mark.parametrize("reader", FORMATS)
def test_every_fixture_record_is_accounted_for(reader: str) -> None:
    found = audit(FIXTURES / reader, reader)
    assert found.sessions and not found.unaccounted and not found.missing and not found.unpaired


# -- Cursor ---------------------------------------------------------------------------------


def _inline_index(tmp_path: Path) -> Path:
    """A workspace database of an older Cursor: composers kept whole in the index."""
    index = {
        "allComposers": [
            {
                "composerId": "inline-1",
                "createdAt": 1731815737024,
                "lastUpdatedAt": 1731816354754,
                "conversation": [
                    {"type": 1, "bubbleId": "u1", "text": "<user_query>Add a settings page</user_query>"},
                    {"type": 2, "bubbleId": "a1", "text": "Here is the settings page.", "thinking": {"text": ""}},
                    {"type": 2, "bubbleId": "a2", "text": "", "thinking": {"text": "", "signature": "c2ln"}},
                ],
            },
            {"composerId": "listed-only", "name": "kept in the global database"},
            {
                "composerId": "stored-too",
                "conversation": [{"type": 1, "bubbleId": "s1", "text": "a copy of the stored composer"}],
            },
        ]
    }
    stored = {
        "composerData:stored-too": {
            "composerId": "stored-too",
            "conversation": [{"type": 1, "bubbleId": "s1", "text": "a copy of the stored composer"}],
        },
        "bubbleId:gone:b1": {"type": 1, "bubbleId": "b1", "text": "a bubble whose composer is gone"},
    }
    return cursor_fixture().build(tmp_path / "ws" / "state.vscdb", kv=stored, items={"composer.composerData": index})


def test_cursor_composers_kept_in_the_index_are_sessions(tmp_path: Path) -> None:
    path = _inline_index(tmp_path)
    problems = Problems()
    with keeping_ledger() as ledger:
        sessions = {s.id: s for s in CURSOR.read(path, problems)}
    assert set(sessions) == {"cursor-inline-1", "cursor-stored-too"}
    inline = sessions["cursor-inline-1"]
    # records: the bubble key (1), the stored composer's inline bubble (2), then the index's composers (3-6)
    assert [(e.kind, e.line) for e in inline.events] == [(Kind.USER, 3), (Kind.ASSISTANT, 4)]
    assert session_title(inline) == "Add a settings page"  # the user's words, not the <user_query> wrapper
    assert inline.skipped == {"empty thinking block": 2}  # counted, not vanished
    fates = {line: fate for (_, line), fate in ledger.fates.items()}
    assert fates[1] == (Fate.NOT_SHOWN, "bubble of a composer that is not stored")
    assert fates[5] == (Fate.NOT_SHOWN, "empty thinking block")
    assert fates[6] == (Fate.MERGED, "copy of a composer stored under its own key")
    assert [str(p) for p in problems.items] == [f"{path}: cursor: 1 bubble(s) belong to no stored composer; not shown"]
    found = audit(path.parent, "cursor")
    assert not found.unaccounted and not found.missing


def test_cursor_store_without_sessions_says_why_in_one_line(tmp_path: Path) -> None:
    make = cursor_fixture()
    index = {"allComposers": [{"composerId": "a", "name": "one"}, {"composerId": "b"}]}
    cases = {
        "workspace": ({}, {"composer.composerData": index}, "its index lists 2 composer(s) whose messages are kept"),
        "empty": ({"composerData:e": {"composerId": "e", "fullConversationHeadersOnly": []}}, {}, "no messages"),
        "bare": ({}, {}, "it holds no composers and no chat tabs"),
        "orphans": ({"bubbleId:gone:b1": {"type": 1, "text": "lost"}}, {}, "1 bubble(s) belong to no stored composer"),
    }
    for name, (kv, items, why) in cases.items():
        path = make.build(tmp_path / name / "state.vscdb", kv=kv, items=items)
        problems = Problems()
        assert list(CURSOR.read(path, problems)) == []
        assert len(problems.items) == 1 and "no session in this store" in problems.items[0].message, name
        assert why in problems.items[0].message, name


def test_cursor_json_dumps_number_their_records_per_file(tmp_path: Path) -> None:
    rows = cursor_fixture().global_rows()
    bubbles = {k: v for k, v in rows.items() if k.startswith("bubbleId:")}
    cid = next(k for k in rows if k.startswith("composerData:c0ffee00"))
    (tmp_path / "b-dump.json").write_text(json.dumps(bubbles))
    (tmp_path / "c-copy.json").write_text(json.dumps(dict(list(bubbles.items())[:2])))  # two keys again
    (tmp_path / "composer.json").write_text(json.dumps(rows[cid]))
    found = audit(tmp_path, "cursor")
    assert found.sessions and not found.unaccounted
    copies = [key for key, (fate, reason) in found.fates.items() if key[0].endswith("c-copy.json")]
    assert len(copies) == 2 and all(
        found.fates[k] == (Fate.MERGED, "copy of a bubble read from another file") for k in copies
    )


# -- Cline ----------------------------------------------------------------------------------


def test_cline_keeps_cache_reads_and_writes_apart_and_the_recorded_cost() -> None:
    session = read_one(CLINE, CLINE_TASK)
    total = sum((e.usage for e in walk(session.events) if e.usage), Usage())
    # metrics.tokens.cached (1200, 1500, 1700) adds reads and writes; the panel's requests keep them apart
    assert total == Usage(input_tokens=30, output_tokens=131, cache_read_tokens=2700, cache_write_tokens=1700)
    assert session.meta["cost"] == pytest.approx(0.0157)  # as recorded, not an estimate
    assert [e.meta["cost"] for e in session.events if e.usage] == [0.0085, 0.003, 0.0042]


def test_cline_refused_calls_pair_and_panel_only_content_is_shown() -> None:
    session = read_one(CLINE, CLINE_TASK)
    by_call = {e.call_id: e for e in session.events if e.kind == Kind.TOOL_RESULT}
    refused = by_call["toolu_read2"]
    assert refused.is_error and refused.text.startswith("Tool [read_file] was not executed")
    assert "was not executed" not in by_call["toolu_read1"].text
    # the interrupted response only the panel kept, shown before the history's interruption notice
    kinds = [(e.kind, e.line) for e in session.events]
    interrupted = next(i for i, e in enumerate(session.events) if "[Response interrupted by user]" in e.text)
    assert kinds[interrupted - 2 : interrupted] == [(Kind.THINKING, 8), (Kind.TOOL_CALL, 9)]
    edit = session.events[interrupted - 1]
    assert edit.path == "main.py" and edit.diff and "+import sys, argparse" in edit.diff
    assert any(e.kind == Kind.SYSTEM and e.title == "Cline error" for e in session.events)
    # Cline's own instructions in the user's turn are context, not the user's words
    assert [e.text for e in session.events if e.kind == Kind.USER] == ["Add a --verbose flag"]
    assert any(e.title == "Cline instructions" for e in session.events)
    assert session.skipped["empty thinking block"] == 1
    assert session_title(session) == "Add a --verbose flag"


def test_cline_records_are_numbered_by_their_index(tmp_path: Path) -> None:
    with keeping_ledger() as ledger:
        session = read_one(CLINE, CLINE_TASK)
    api = {line for (path, line) in ledger.fates if path.endswith("api_conversation_history.json")}
    ui = {line for (path, line) in ledger.fates if path.endswith("ui_messages.json")}
    assert api == set(range(1, 7)) and ui == set(range(1, 16))
    assert {e.line for e in session.events if e.line is not None} >= {1, 2, 3, 4, 5, 6}


FRAMING = "New instructions for task continuation:"


def test_cline_framing_around_the_users_words_is_not_their_words(tmp_path: Path) -> None:
    history = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nDeploy the app\n</task>"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Which project?"}]},
        {"role": "user", "content": [
            {"type": "text", "text": f"{FRAMING}\n<user_message>\nUse dev\n</user_message>"},
            {"type": "text", "text": "# task_progress List (Optional - Plan Mode)\n\nWhile in PLAN MODE, …"},
            {"type": "text", "text": "(The user did not provide a new message. Consider asking them how to proceed.)"},
        ]},
    ]  # fmt: skip
    task = tmp_path / "tasks" / "1769200000000"
    task.mkdir(parents=True)
    (task / "api_conversation_history.json").write_text(json.dumps(history))
    session = read_one(CLINE, task)
    users = [(e.text, dict(e.meta)) for e in session.events if e.kind == Kind.USER]
    assert users == [
        ("Deploy the app", {}),
        ("Use dev", {"tag": "user_message", "framed by": FRAMING}),
    ]
    assert [e.title for e in session.events if e.kind == Kind.SYSTEM] == ["Cline instructions", "Cline notice"]
    assert not audit(tmp_path, "cline").missing


def test_cline_panel_messages_of_known_kinds_are_never_raw_json(tmp_path: Path) -> None:
    """A task rebuilt from its panel: browser and MCP calls pair with their results, a screenshot is an
    image (never base64 text), a condensed summary is a compaction, notices are notes."""
    png = "data:image/png;base64,iVBORw0KGgo="
    panel = [
        {"ts": 1769100000000, "type": "say", "say": "task", "text": "Check the landing page"},
        {
            "ts": 1769100001000,
            "type": "ask",
            "ask": "use_mcp_server",
            "text": json.dumps({"type": "use_mcp_tool", "serverName": "web", "toolName": "status", "arguments": "{}"}),
        },
        {"ts": 1769100002000, "type": "say", "say": "mcp_server_request_started"},
        {"ts": 1769100003000, "type": "say", "say": "mcp_server_response", "text": "200 OK"},
        {"ts": 1769100004000, "type": "say", "say": "browser_action_launch", "text": "http://localhost:3000"},
        {
            "ts": 1769100005000,
            "type": "say",
            "say": "browser_action_result",
            "text": json.dumps({"screenshot": png, "logs": "ready", "currentUrl": "http://localhost:3000"}),
        },
        {"ts": 1769100006000, "type": "say", "say": "info", "text": "Browser closed"},
        {"ts": 1769100007000, "type": "ask", "ask": "condense", "text": "The page loads; the status endpoint is up."},
    ]
    task = tmp_path / "tasks" / "1769100000000"
    task.mkdir(parents=True)
    (task / "ui_messages.json").write_text(json.dumps(panel))
    with keeping_ledger() as ledger:
        session = read_one(CLINE, task)
    kinds = [e.kind for e in session.events]
    assert kinds == [
        Kind.USER,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.SYSTEM,
        Kind.COMPACTION,
    ]
    mcp, mcp_out, launch, shot = session.events[1:5]
    assert mcp_out.call_id == mcp.call_id and shot.call_id == launch.call_id
    assert shot.blocks[0].type == "image" and shot.blocks[0].uri == png and "base64" not in shot.text
    assert session.skipped == {"panel mcp_server_request_started": 1}
    assert len(ledger.fates) == len(panel)


# -- claude.ai ------------------------------------------------------------------------------


def test_claude_ai_calls_without_ids_pair_with_the_result_that_follows() -> None:
    path = FIXTURES / "claude_ai" / "tools_without_ids.json"
    session = read_one(CLAUDE_AI, path)
    calls = [(e.tool_name, e.call_id) for e in session.events if e.kind == Kind.TOOL_CALL]
    assert calls == [
        ("project_knowledge_search", "conv-tools-0001:call1"),
        ("recent_chats", "conv-tools-0001:call2"),
        ("create_file", "conv-tools-0001:call3"),
        ("project_knowledge_search", "conv-tools-0001:call4"),
    ]
    results = {e.text: e.call_id for e in session.events if e.kind == Kind.TOOL_RESULT}
    # parallel calls: each result answers the open call of its tool
    assert results == {
        "Session 12: Shield, Misty Step": "conv-tools-0001:call2",
        "Canon: Fireball chosen at level 5": "conv-tools-0001:call1",
        "No new spells": "conv-tools-0001:call4",
    }
    assert session.skipped["empty thinking block"] == 1
    assert session_title(session) == "Which spells did we pick last session?"
    assert [e.line for e in session.events if e.kind == Kind.USER] == [1, 3]


def test_claude_ai_call_ids_do_not_depend_on_message_order(tmp_path: Path) -> None:
    """Messages listed out of time order are sorted for the page; the call ids stay those of the file."""
    doc = json.loads((FIXTURES / "claude_ai" / "tools_without_ids.json").read_text())
    messages = doc[0]["chat_messages"]
    messages[0]["created_at"], messages[2]["created_at"] = messages[2]["created_at"], messages[0]["created_at"]
    (tmp_path / "conversations.json").write_text(json.dumps(doc))
    session = read_one(CLAUDE_AI, tmp_path / "conversations.json")
    assert session.meta["message order"].startswith("sorted")
    pairs = {e.call_id for e in session.events if e.kind == Kind.TOOL_RESULT}
    assert pairs == {"conv-tools-0001:call1", "conv-tools-0001:call2", "conv-tools-0001:call4"}


# -- HAIL -----------------------------------------------------------------------------------


def test_hail_token_counts_are_usage_not_empty_events() -> None:
    path = FIXTURES / "hail" / "token-counts.hail.jsonl"
    with keeping_ledger() as ledger:
        session = read_one(HAIL, path)
    by_id = {e.id: e for e in session.events}
    assert by_id["codex-4"].usage == Usage(input_tokens=1000, output_tokens=40)  # on the call it follows
    assert by_id["codex-8"].usage == Usage(input_tokens=1200, output_tokens=10)
    early = by_id["codex-1"]  # no response before it: a note that says what it counts
    assert early.kind == Kind.SYSTEM and early.title == "token count" and "50 input" in early.text
    assert "codex-5" not in by_id and "codex-6" not in by_id and "codex-9" not in by_id
    assert session.skipped == {"repeated token count (already counted)": 1}
    fates = {line: fate for (_, line), (fate, _) in ledger.fates.items()}
    assert (fates[6], fates[7], fates[10]) == (Fate.MERGED, Fate.NOT_SHOWN, Fate.MERGED)
    assert fates[1] == fates[11] == Fate.MERGED  # the header and stats lines: the session's facts
    total = sum((e.usage for e in session.events if e.usage), Usage())
    assert (total.input_tokens, total.output_tokens) == (2250, 50)
    assert session.title == "Run the tests please"  # the header's title without its injected context


def test_hail_codex_compaction_is_a_compaction(tmp_path: Path) -> None:
    header = {"type": "header", "version": "hail-1.0.0", "session_id": "c-1", "agent": {"tool": "codex"}}
    event = {
        "type": "event",
        "event_id": "codex-9",
        "timestamp": "2026-02-27T01:18:29.984Z",
        "event_type": {"type": "Custom", "data": {"kind": "context_compacted"}},
        "content": {"blocks": [{"type": "Text", "text": "context compacted"}]},
    }
    path = tmp_path / "c-1.hail.jsonl"
    path.write_text(f"{json.dumps(header)}\n{json.dumps(event)}\n")
    [compacted] = read_one(HAIL, path).events
    assert compacted.kind == Kind.COMPACTION and compacted.text == "context compacted"


def test_hail_acp_shaped_storage_is_read_as_its_hail_events() -> None:
    """opensession's newer storage wraps each HAIL event in an ACP session update: the same session."""
    path = FIXTURES / "hail" / "acp-semantic.hail.jsonl"
    problems = Problems()
    with keeping_ledger() as ledger:
        session = read_one(HAIL, path, problems)
    assert not problems.items and session.id == "hail-acp-0001" and session.agent == "codex"
    assert session.cwd == "/srv/app" and session.git.branches == ("main",)
    kinds = [(e.kind, e.line) for e in session.events]
    assert kinds == [
        (Kind.USER, 2),
        (Kind.ASSISTANT, 3),
        (Kind.TOOL_CALL, 4),
        (Kind.TOOL_RESULT, 5),
        (Kind.ASSISTANT, 7),  # an update with no HAIL event behind it, read from the update
    ]
    call, result = session.events[2:4]
    assert call.command == "git status -sb" and result.call_id == call.call_id and result.exit_code == 0
    assert call.usage == Usage(input_tokens=900, output_tokens=30)  # the token count it was followed by
    assert len(ledger.fates) == 8 and session.meta["hail.stats"]["stop_reason"] == "completed"
    assert not audit(path.parent, "hail").unaccounted


# -- the real logs --------------------------------------------------------------------------


@needs_real
@pytest.mark.parametrize("reader", FORMATS)
def test_real_files_are_read_faithfully(reader: str) -> None:
    if not (REAL / reader).is_dir():
        pytest.skip(f"no real {reader} files")
    found = audit(REAL / reader, reader)
    assert found.sessions
    found.assert_faithful()
    assert not found.problems


@needs_real
def test_real_cursor_composers_kept_inline_become_sessions() -> None:
    if not (REAL / "cursor").is_dir():
        pytest.skip("no real cursor files")
    found = audit(REAL / "cursor", "cursor")
    tabs = [s for s in found.sessions if s.meta.get("layout") == "chat tab (old Cursor)"]
    composers = [s for s in found.sessions if s not in tabs]
    assert len(composers) == 26 and len(tabs) == 5
    assert sum(1 for s in composers for e in s.events if e.kind in (Kind.USER, Kind.ASSISTANT)) == 82


@needs_real
def test_real_cline_usage_and_cost_as_recorded() -> None:
    tasks = sorted((REAL / "cline").glob("*/tasks/*"))
    if not tasks:
        pytest.skip("no real cline task")
    session = read_one(CLINE, tasks[0])
    panel = json.loads((tasks[0] / "ui_messages.json").read_text())
    requests = [json.loads(m["text"]) for m in panel if m.get("say") == "api_req_started"]
    total = sum((e.usage for e in walk(session.events) if e.usage), Usage())
    assert total.cache_read_tokens == sum(r["cacheReads"] for r in requests)
    assert total.cache_write_tokens == sum(r["cacheWrites"] for r in requests)
    assert session.meta["cost"] == pytest.approx(sum(r["cost"] for r in requests))


@needs_real
def test_real_claude_ai_calls_pair() -> None:
    files = sorted((REAL / "claude_ai").glob("*.json"))
    if not files:
        pytest.skip("no real claude.ai export")
    events = [e for s in CLAUDE_AI.read(files[0], Problems()) for e in s.events]
    calls = {e.call_id: e.tool_name for e in events if e.kind == Kind.TOOL_CALL}
    results = {e.call_id for e in events if e.kind == Kind.TOOL_RESULT}
    assert results <= set(calls) and len(results) == len(calls) - 1
    assert [calls[c] for c in set(calls) - results] == ["create_file"]  # the export has no result for it
