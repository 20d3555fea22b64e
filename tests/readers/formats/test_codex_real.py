"""Codex 0.14x as real rollouts write it: web searches, sub-agents, world state and the rest.

Small hand-made fixtures (``tests/fixtures/codex/v0.145``) reproduce each case seen in
real rollouts; the last tests read the real public rollouts in ``../shared/formats/real/codex``
(skipped when that folder is absent) and check that every record is accounted for.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import FIXTURES, REPO

from benchmarks.fidelity.formats.codex import records
from sessite.model import Event, Kind, Problems, Session, ToolCategory, walk
from sessite.readers import discover
from sessite.readers.base import Sniff
from sessite.readers.formats.codex import READER
from sessite.readers.formats.codex.hosted import NO_WEB_RESULT
from sessite.readers.ledger import Fate, Ledger, keeping_ledger

V145 = FIXTURES / "codex" / "v0.145"
AGENTS = V145 / "agents"
PARENT = AGENTS / "rollout-2026-07-28T02-40-00-019fa69f-0000-7000-8000-00000000000a.jsonl"
CHILD = AGENTS / "rollout-2026-07-28T02-40-10-019fa69f-0000-7000-8000-00000000000b.jsonl"
LONE = V145 / "rollout-2026-07-28T02-50-00-019fa6aa-0000-7000-8000-00000000000c.jsonl"
REAL = REPO.parent / "shared" / "formats" / "real" / "codex"


def read_all(root: Path) -> tuple[list[Session], Ledger, Problems, list[Path]]:
    """Every session under ``root`` as a build reads them (discovery, families, snapshot groups)."""
    problems = Problems()
    found = discover(root, problems, readers=(READER,))
    files = [p for claim in found.claims for p in dict.fromkeys((*claim.sources, *claim.companions))]
    with keeping_ledger() as ledger:
        sessions = [s for claim in found.claims for s in claim.read(problems)]
    return sessions, ledger, problems, files


def read_one(path: Path) -> Session:
    problems = Problems()
    [session] = READER.read(path, problems)
    assert problems.items == []
    return session


def by_call(session: Session, call_id: str) -> list[Event]:
    return [e for e in walk(session.events) if e.call_id == call_id and e.kind in (Kind.TOOL_CALL, Kind.TOOL_RESULT)]


# -- one web search = one call and its result ------------------------------------------------------


def test_a_web_search_written_twice_is_one_call_and_one_result():
    session = read_one(V145 / "web-search.jsonl")
    for sid in ("ws_1", "ws_2"):  # the notice first, then the item; the item first, then the notice
        call, result = by_call(session, sid)
        assert (call.kind, result.kind) == (Kind.TOOL_CALL, Kind.TOOL_RESULT)
        assert call.category == ToolCategory.WEB and call.tool_name == "web_search"
        assert result.text == NO_WEB_RESULT
    assert by_call(session, "ws_1")[0].text.startswith("Llama 3 herd of models pretraining stages")
    assert by_call(session, "ws_2")[0].text == "https://arxiv.org/abs/2407.21783"


def test_a_web_search_notice_alone_shows_its_results():
    session = read_one(V145 / "web-search.jsonl")
    call, result = by_call(session, "exec-1")
    assert call.text == "llama 3 annealing"
    assert (
        result.text
        == "- The Llama 3 Herd of Models <https://arxiv.org/abs/2407.21783>\n  annealing on high-quality data"
    )


def test_a_web_run_call_takes_its_notice_and_keeps_its_output():
    session = read_one(V145 / "web-search.jsonl")
    call, result = by_call(session, "call_w1")
    assert (call.tool_name, call.category, call.text) == ("web.run", ToolCategory.WEB, "llama 3 context extension")
    assert result.text.startswith("Llama 3 (https://ai.meta.com/llama)")
    # a search item without an id still gets its result
    [old] = [e for e in session.events if e.kind == Kind.TOOL_CALL and e.text == "html-validate"]
    assert [e.kind for e in by_call(session, old.call_id or "")] == [Kind.TOOL_CALL, Kind.TOOL_RESULT]


def test_the_second_copy_of_a_web_search_is_merged_in_the_ledger():
    path = V145 / "web-search.jsonl"
    with keeping_ledger() as ledger:
        read_one(path)
    fates = {line: fate for (p, line), (fate, _) in ledger.fates.items() if p == str(path)}
    assert fates[5] == Fate.SHOWN and fates[6] == Fate.MERGED  # web_search_end, then its web_search_call
    assert fates[7] == Fate.SHOWN and fates[8] == Fate.MERGED
    assert fates[11] == Fate.MERGED  # the web.run call's notice


# -- sub-agents ---------------------------------------------------------------------------------------


def test_a_sub_agent_rollout_nests_under_the_call_that_spawned_it():
    sessions, ledger, problems, files = read_all(AGENTS)
    assert problems.items == [] and sorted(files) == sorted([PARENT, CHILD])
    [session] = sessions
    assert session.id == "codex-019fa69f-0000-7000-8000-00000000000a"
    [sub] = [e for e in session.events if e.kind == Kind.SUBAGENT]
    assert sub.call_id == "call_spawn" and sub.title == "Euclid (explorer) /root/brief_audit"
    spawn = next(e for e in session.events if e.kind == Kind.TOOL_CALL and e.call_id == "call_spawn")
    assert spawn.meta["sub_agent_thread_id"] == "019fa69f-0000-7000-8000-00000000000b"
    # the sub-agent's own transcript, with ids of its own
    kinds = [e.kind for e in sub.children]
    assert Kind.ASSISTANT in kinds and Kind.TOOL_CALL in kinds
    ids = [e.id for e in walk(session.events)]
    assert len(ids) == len(set(ids))
    task = next(e for e in sub.children if e.kind == Kind.SYSTEM)
    assert task.title == "Task from /root" and "encrypted" in task.text
    # its records are accounted for in its own file, and its left-out records counted on the page
    assert {line for (p, line) in ledger.fates if p == str(CHILD)} == set(range(1, 12))
    assert (
        session.skipped["turn_context (model and policies, restated every turn; the model is shown on each response)"]
        == 2
    )
    answer = next(
        e for e in session.events if e.kind == Kind.SYSTEM and e.title == "Final answer from /root/brief_audit"
    )
    assert answer.text == "The brief asks for two services." and answer.meta["recipient"] == "/root"


def test_a_sub_agent_is_read_with_its_parent_whichever_is_offered_first():
    assert READER.companions(CHILD) == [PARENT]
    assert READER.companions(PARENT) == [CHILD]
    assert READER.session_key(Sniff(CHILD)) == READER.session_key(Sniff(PARENT))
    [from_child] = READER.read(CHILD, Problems())
    assert from_child.id == "codex-019fa69f-0000-7000-8000-00000000000a"


def test_a_sub_agent_alone_says_it_is_one():
    session = read_one(LONE)
    assert session.title == "Sub-agent Hume (explorer) /root/config_research"
    assert session.meta["sub_agent"]["parent_thread_id"] == "019fa600-0000-7000-8000-0000000000ff"
    assert READER.companions(LONE) == []
    assert READER.session_key(Sniff(LONE)) == "019fa6aa-0000-7000-8000-00000000000c"


def test_a_code_mode_script_shows_its_command():
    session = read_one(LONE)
    [call] = [e for e in session.events if e.kind == Kind.TOOL_CALL]
    assert (call.tool_name, call.category, call.command) == ("exec", ToolCategory.SHELL, "sed -n '1,40p' docs/brief.md")
    assert isinstance(call.tool_input, str) and call.tool_input.startswith("const r = await tools.exec_command(")


def test_a_code_mode_patch_shows_its_diff(tmp_path):
    script = (
        'const patch = "*** Begin Patch\\n*** Update File: a.go\\n@@\\n-x\\n+y\\n*** End Patch";\n'
        "text(await tools.apply_patch(patch));"
    )
    rows = [
        {"timestamp": "2026-07-28T02:40:00.000Z", "type": "session_meta", "payload": {"id": "p", "cwd": "/"}},
        {
            "timestamp": "2026-07-28T02:40:01.000Z",
            "type": "response_item",
            "payload": {"type": "custom_tool_call", "call_id": "c1", "name": "exec", "input": script},
        },
    ]
    path = tmp_path / "patch.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    [call] = [e for e in read_one(path).events if e.kind == Kind.TOOL_CALL]
    assert (call.category, call.path, call.diff) == (ToolCategory.EDIT, "a.go", "--- a/a.go\n+++ b/a.go\n@@\n-x\n+y")


# -- titles and context --------------------------------------------------------------------------------


def test_titles_come_from_the_users_words_never_from_injected_context():
    [session], _, _, _ = read_all(AGENTS)
    assert session.title == "Audit docs/brief.md with a sub-agent"
    titles = [e.title for e in session.events if e.kind == Kind.SYSTEM and e.line == 4]
    assert titles == ["Recommended plugins", "AGENTS.md instructions"]  # two items of one message, apart
    assert read_one(V145 / "context.jsonl").title == "Implement the plan: Ship the duration parser"


def test_context_records_are_understood():
    session = read_one(V145 / "context.jsonl")
    assert [e for e in session.events if e.kind == Kind.UNKNOWN] == []
    notes = {e.title: e for e in session.events if e.kind == Kind.SYSTEM}
    world = notes["World state"]
    assert "- **permissions**: abc123" in world.text and "#### host skills\n\n## Skills" in world.text
    assert notes["World state update"].text == "- **collaboration mode**: plan"
    assert "- **reasoning effort**: high" in notes["Thread settings applied"].text
    review = notes["Guardian review: approved"]  # one note per review, updated by its verdict
    assert review.text == "**command**: `rm -rf build`\n\nThe user asked for a clean build."
    assert not any(t.startswith("Guardian review: in progress") for t in notes)
    assert notes["Message from /root/worker"].text == "Done: tests pass."
    assert notes["Thread named"].text.endswith("- **thread name**: Duration parser")
    assert notes["Hook stop: completed"].kind == Kind.SYSTEM
    assert notes["Waited for sub-agents"].meta["statuses"]  # a collaboration notice whose call is not recorded


def test_tool_search_and_image_generation_are_calls_with_results():
    session = read_one(V145 / "context.jsonl")
    call, result = by_call(session, "call_ts")
    assert (call.tool_name, call.text) == ("tool_search", "github pull request")
    assert result.text == "mcp__github: Access repositories.\n  get_pr: Get a pull request."
    call, result = by_call(session, "ig_1")
    assert (call.tool_name, call.category, call.text) == ("image_generation", ToolCategory.MEDIA, "A red square")
    [image] = result.blocks
    assert image.type == "image" and image.uri and image.uri.startswith("data:image/png;base64,iVBOR")
    assert result.meta["saved_path"] == "/home/dev/app/red.png"
    assert not any("iVBOR" in e.text for e in walk(session.events))  # never base64 as text
    spawn = next(e for e in session.events if e.call_id == "call_spawn_v1" and e.kind == Kind.TOOL_CALL)
    assert spawn.meta["new_agent_nickname"] == "Sartre"  # collab_agent_spawn_end goes on its call


# -- ids and snapshots ---------------------------------------------------------------------------------


def test_two_snapshots_of_one_rollout_give_their_records_the_same_ids(tmp_path):
    lines = (V145 / "web-search.jsonl").read_text(encoding="utf-8").splitlines()
    early = tmp_path / "early.jsonl"
    early.write_text("\n".join(lines[:9]) + "\n", encoding="utf-8")
    # a later snapshot writes the same records with another key order (as a checkpointing tool may)
    late = tmp_path / "late.jsonl"
    late.write_text("".join(json.dumps(json.loads(x), sort_keys=True) + "\n" for x in lines), encoding="utf-8")
    a, b = read_one(early), read_one(late)
    assert [e.id for e in a.events] == [e.id for e in b.events][: len(a.events)]
    problems = Problems()
    [merged] = READER.read_group([early, late], problems)
    assert problems.items == [] and [e.id for e in merged.events] == [e.id for e in b.events]
    assert READER.session_key(Sniff(early)) == READER.session_key(Sniff(late)) == "019fa6bb-0000-7000-8000-00000000000d"


# -- accounting -----------------------------------------------------------------------------------------


def assert_faithful(root: Path) -> dict[str, int]:
    """Every record has a fate, every text the enumerator finds is on a page, every pair is paired."""
    sessions, ledger, problems, files = read_all(root)
    events = [e for s in sessions for e in walk(s.events)]
    said = {kind: [_norm(e.text) for e in events if e.kind == kind] for kind in (Kind.USER, Kind.ASSISTANT)}
    calls = {e.call_id for e in events if e.kind == Kind.TOOL_CALL}
    answered = {e.call_id for e in events if e.kind == Kind.TOOL_RESULT}
    counts = {"records": 0, "texts": 0, "pairs": 0}
    for path in files:
        found = list(records(path))
        results = {c for r in found for c in r.results}
        for record in found:
            counts["records"] += 1
            fate = ledger.fates.get((str(path), record.line))
            assert fate is not None, f"{path.name}:{record.line} {record.type} has no fate"
            assert "nothing to show" not in fate[1], f"{path.name}:{record.line} {record.type}: {fate[1]}"
            for kind, texts in ((Kind.USER, record.user_texts), (Kind.ASSISTANT, record.assistant_texts)):
                for text in texts:
                    counts["texts"] += 1
                    assert any(_norm(text) in shown for shown in said[kind]), f"{path.name}:{record.line} {text[:60]}"
            for call_id in record.calls:
                if call_id in results:
                    counts["pairs"] += 1
                    assert call_id in calls and call_id in answered, f"{path.name}: {call_id} not paired"
    assert not [e for e in events if e.kind == Kind.UNKNOWN]
    assert not [p for p in problems.items if "reader failed" in p.message]
    return counts


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def test_every_record_of_the_fixtures_is_accounted_for():
    counts = assert_faithful(V145)
    assert counts["records"] == sum(1 for p in V145.rglob("*.jsonl") for line in p.open() if line.strip())


@pytest.mark.skipif(not REAL.is_dir(), reason="the shared real rollouts are not here")
def test_real_rollouts_are_read_faithfully():
    counts = assert_faithful(REAL)
    assert counts["records"] == sum(1 for p in REAL.glob("*.jsonl") for line in p.open() if line.strip())
    sessions, _, _, _ = read_all(REAL)
    titles = sorted(s.title or "" for s in sessions)
    assert not [t for t in titles if t.startswith("<")]
    assert any(t.startswith("Sub-agent Euclid (explorer)") for t in titles)
    searches = [e for s in sessions for e in walk(s.events) if e.tool_name == "web_search"]
    calls = [e for e in searches if e.kind == Kind.TOOL_CALL]
    assert calls and len({e.call_id for e in calls}) == len(calls)  # each search once
    assert len([e for e in searches if e.kind == Kind.TOOL_RESULT]) == len(calls)


def test_a_memory_citation_does_not_make_an_answer_appear_twice(tmp_path):
    answer = "The beta gate stays manual."
    block = (
        "\n\n<oai-mem-citation>\n<citation_entries>\nMEMORY.md:106-113|note=[gates]\n"
        "</citation_entries>\n</oai-mem-citation>"
    )
    rows = [
        {"timestamp": "2026-08-01T19:26:00.000Z", "type": "session_meta", "payload": {"id": "m", "cwd": "/"}},
        {
            "timestamp": "2026-08-01T19:26:01.000Z",
            "type": "event_msg",
            "payload": {
                "type": "agent_message",
                "message": answer,
                "memory_citation": {"entries": [{"path": "MEMORY.md"}]},
            },
        },
        {
            "timestamp": "2026-08-01T19:26:01.000Z",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": answer + block}],
            },
        },
    ]
    path = tmp_path / "cited.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    [said] = [e for e in read_one(path).events if e.kind == Kind.ASSISTANT]
    assert said.text == answer and said.meta["memory_citation"] == {"entries": [{"path": "MEMORY.md"}]}
    [record] = [r for r in records(path) if r.assistant_texts and r.line == 3]
    assert record.assistant_texts == [answer]


def test_a_sub_agent_in_the_next_day_folder_is_still_found(tmp_path):
    sessions = tmp_path / "sessions"
    for day, source in (("28", PARENT), ("29", CHILD)):
        folder = sessions / "2026" / "07" / day
        folder.mkdir(parents=True)
        (folder / source.name).write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    [session], _, problems, files = read_all(sessions)
    assert problems.items == [] and len(files) == 2
    assert [e.title for e in session.events if e.kind == Kind.SUBAGENT] == ["Euclid (explorer) /root/brief_audit"]
