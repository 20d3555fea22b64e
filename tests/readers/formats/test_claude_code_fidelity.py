"""Claude Code, faithful to what real 2.0.x and 2.1.x logs hold (issue 15), on hand-made fixtures.

- 2.0.x flat sidechains (``agent-<id>.jsonl`` beside the main file, the parent's
  ``sessionId``): nested under the Task call that spawned them (by agent id, prompt or
  time), an unclaimed one (a start-up "Warmup") a sub-agent placed by time; a session
  whose main file is missing or empty is one session holding its sidechains.
- 2.1.x ``attachment`` records: queued prompts (with images), hook notes, folded
  context, counted reminders; never raw JSON.
- Titles in the user's own words; every record of every file accounted for in the ledger.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from helpers import FIXTURES, REPO, claimed_files, discover_cleanly

from sessite.model import Event, Kind, Problems, Session, walk
from sessite.readers import discover
from sessite.readers.base import Sniff
from sessite.readers.formats.claude_code import READER
from sessite.readers.ledger import keeping_ledger

sys.path.insert(0, str(REPO / "benchmarks"))
from fidelity.formats.claude_code import records  # noqa: E402  (benchmarks/ is not a package)

FLAT = FIXTURES / "claude_code" / "flat_sidechains"
MAIN = FLAT / "e5e5e5e5-1111-4222-8333-444444444444.jsonl"
MISSING = "f0f0f0f0-2222-4333-8444-555555555555"
EMPTY = FLAT / "0a0a0a0a-3333-4444-8555-666666666666.jsonl"
ATTACHMENTS = FIXTURES / "claude_code" / "attachments.jsonl"


def sessions_of(root: Path) -> dict[str, Session]:
    """Every Claude Code session discovery finds under ``root``, by its raw session id."""
    problems = Problems()
    found = discover(root, problems)
    sessions = [s for claim in found.claims for s in claim.read(problems)]
    assert not problems.items, [str(p) for p in problems.items]
    ids = [s.id for s in sessions]
    assert len(ids) == len(set(ids)), ids
    return {s.meta["session_id"]: s for s in sessions}


def by_id(session: Session, event_id: str) -> Event:
    return next(e for e in walk(session.events) if e.id == event_id)


def subagents(session: Session) -> list[Event]:
    return [e for e in session.events if e.kind == Kind.SUBAGENT]


# --------------------------------------------------------------------------- flat sidechains


def test_flat_sidechains_are_read_with_their_main_file() -> None:
    found = discover_cleanly(FLAT)
    owner = claimed_files(found.claims)
    assert set(owner) == {p for p in FLAT.iterdir()} and not found.ignored
    # The group's first file by name leads it, so no member is offered alone first.
    lead = next(c for c in found.claims if MAIN in c.companions)
    assert lead.path == FLAT / "agent-1111aaaa.jsonl" and lead.key == MAIN.stem
    assert READER.detect_path(lead.path) and not READER.detect_path(FLAT / "agent-2222bbbb.jsonl")
    assert READER.detect_path(MAIN)  # offered alone (``sessite build <file>``) it is read, with its sidechains
    session = sessions_of(FLAT)[MAIN.stem]
    assert session.source.path == str(MAIN) and session.title == "Make the CLI installable with uv"
    assert [e.title for e in subagents(session)] == ["Warmup", "Explore project", "Check packaging"]


def test_flat_sidechain_nests_under_its_task_call_by_id_and_by_time() -> None:
    session = sessions_of(FLAT)[MAIN.stem]
    order = [e.id for e in session.events]
    explore = by_id(session, "agent-1111aaaa")  # the Task result names its agent id
    assert explore.call_id == "toolu_task_a" and order.index(explore.id) == order.index("m-04") + 1
    assert [c.id for c in explore.children] == ["1111aaaa-a-01", "1111aaaa-a-02", "1111aaaa-a-03", "1111aaaa-a-04"]
    packaging = by_id(session, "agent-3333cccc")  # no agent id, another prompt: it ran while the call did
    assert packaging.call_id == "toolu_task_b" and order.index(packaging.id) == order.index("m-06") + 1
    warmup = by_id(session, "agent-2222bbbb")  # no call spawned it: a sub-agent placed by its start time
    assert warmup.call_id is None and order.index(warmup.id) == 0
    assert [c.kind for c in warmup.children] == [Kind.USER, Kind.ASSISTANT]
    assert session.meta["subagents"] == 3


def test_flat_sidechains_without_main_file_are_one_session() -> None:
    session = sessions_of(FLAT)[MISSING]
    assert session.id == f"claude_code-{MISSING}" and session.meta["main_file"] == "missing"
    assert session.subagent_log  # only sub-agents' logs: a page, not an index row
    assert session.source.path == str(FLAT / "agent-4444dddd.jsonl")
    assert session.title == "Sub-agent: Find every TODO comment in src/"  # a warmup says nothing
    assert [(e.id, e.call_id) for e in session.events] == [("agent-4444dddd", None), ("agent-5555eeee", None)]
    assert session.cwd == "/home/dev/tool" and session.git.branches == ("main",)
    assert READER.detect_path(FLAT / "agent-4444dddd.jsonl") and not READER.detect_path(FLAT / "agent-5555eeee.jsonl")


def test_empty_main_file_holds_its_sidechains() -> None:
    assert READER.detect_path(EMPTY)
    assert READER.companions(EMPTY) == [FLAT / "agent-6666ffff.jsonl"]
    session = sessions_of(FLAT)[EMPTY.stem]
    assert session.meta["main_file"] == "empty" and session.title == "Sub-agents of session 0a0a0a0a"
    assert session.subagent_log
    assert [e.kind for e in session.events] == [Kind.SUBAGENT]


def test_one_flat_sidechain_offered_alone_reads_its_session(tmp_path: Path) -> None:
    """``sessite build agent-….jsonl``: the group's leading file reads the main file beside it."""
    sessions = list(READER.read(FLAT / "agent-1111aaaa.jsonl", Problems()))
    assert [s.meta["session_id"] for s in sessions] == [MAIN.stem]


def test_nested_subagents_layout_still_works(fixtures: Path) -> None:
    main = fixtures / "claude_code" / "projects" / "-home-dev-app" / "44444444-5555-4666-8777-888888888888.jsonl"
    session = sessions_of(main.parent)[main.stem]
    assert {e.id for e in subagents(session)} == {"agent-abc1234", "agent-acompact-1a2b3c"}


# --------------------------------------------------------------------------- attachments (2.1.x)


def read_attachments() -> Session:
    problems = Problems()
    sessions = list(READER.read(ATTACHMENTS, problems))
    assert len(sessions) == 1 and not problems.items
    return sessions[0]


def test_no_attachment_or_bookkeeping_record_is_raw_json() -> None:
    session = read_attachments()
    assert not [e for e in walk(session.events) if e.kind == Kind.UNKNOWN]
    assert "base64" not in "".join(e.text for e in walk(session.events))
    assert session.skipped == {
        "permission-mode record (used for the session title and details)": 1,
        "last-prompt record (used for the session title and details)": 1,
        "attachment total_tokens_reminder (token budget reminder)": 1,
        "attachment todo_reminder (todo list reminder; the list is shown by the todo calls)": 1,
        "thinking block with no text (the reasoning was not recorded)": 1,
        "file-history-delta (editor backup bookkeeping)": 1,
        "atis-latch (client state bookkeeping)": 1,
    }


def test_queued_prompt_is_a_user_message_with_its_images() -> None:
    queued = by_id(read_attachments(), "q-01")
    assert queued.kind == Kind.USER and queued.text == "Also check the rounding of taxes, see the screenshot"
    assert [b.type for b in queued.blocks] == ["image"]
    assert queued.blocks[0].uri.startswith("data:image/png;base64,iVBORw0")
    assert queued.meta["queued"] is True and queued.meta["origin"] == "human"
    notice = by_id(read_attachments(), "q-02")  # a queued task notification is not the user speaking
    assert notice.kind == Kind.SYSTEM and "Background build finished" in notice.text


def test_hook_notes_follow_the_call_they_ran_on() -> None:
    session = read_attachments()
    order = [e.id for e in session.events]
    success = by_id(session, "h-03")
    assert success.kind == Kind.SYSTEM and success.title == "Hook: PostToolUse:Bash"
    assert success.meta["tool_use_id"] == "toolu_b1" and success.meta["tool"] == "Bash"
    assert order.index("h-03") == order.index("u-03") + 1  # right after that call's result
    blocked = by_id(session, "h-04")
    assert blocked.is_error and blocked.title == "Hook blocked: PreToolUse:Edit"
    assert blocked.text == "[./check.sh]: cart.py is frozen until the release"
    assert blocked.meta["tool_use_id"] == "toolu_e1"
    assert by_id(session, "h-02").text == "clmail session registered"


def test_listings_and_changes_are_folded_context() -> None:
    session = read_attachments()
    skills = by_id(session, "l-01")
    assert skills.title == "Skills available (2)" and skills.meta["context"] is True
    assert by_id(session, "l-02").text == "`WebFetch`, `WebSearch`"
    edited = by_id(session, "e-01")
    assert edited.title == "File changed: /home/dev/shop/tax.py" and edited.blocks[0].type == "code"
    newer = by_id(session, "n-01")  # a type this reader has not met: still titled text, not raw JSON
    assert newer.kind == Kind.SYSTEM and newer.title == "Brand new reminder" and newer.meta["level"] == 3


def test_unknown_record_type_is_still_kept_as_raw_json(tmp_path: Path) -> None:
    lines = ATTACHMENTS.read_text().splitlines()
    lines.insert(3, json.dumps({"type": "hologram", "uuid": "holo-1", "sessionId": "x"}))
    path = tmp_path / "c4c4c4c4-5555-4666-8777-888888888888.jsonl"
    path.write_text("\n".join(lines) + "\n")
    session = list(READER.read(path, Problems()))[0]
    assert [e.id for e in walk(session.events) if e.kind == Kind.UNKNOWN] == ["holo-1"]


# --------------------------------------------------------------------------- the prompt queue


def test_a_prompt_folded_into_a_running_turn_is_shown_where_it_was_typed() -> None:
    """2.1.1x wrote a prompt typed mid-turn only as a queue record (``enqueue``, then ``remove``)."""
    path = FIXTURES / "claude_code" / "queued_prompts.jsonl"
    with keeping_ledger() as ledger:
        session = list(READER.read(path, Problems()))[0]
    users = [e for e in session.events if e.kind == Kind.USER]
    assert [e.text for e in users] == ["Rebase the branch on main", "then run the tests please"]
    folded = users[1]
    assert folded.line == 5 and folded.meta["only_in_queue"] is True
    assert [e.id for e in session.events].index(folded.id) == 2  # typed after the call, before its result
    # The dequeued prompt's queue record repeats the user record: merged; the taken-back one is counted.
    assert ledger.fates[(str(path), 1)][0] == "merged"
    assert session.skipped == {
        "queue-operation (prompt queue bookkeeping)": 4,  # dequeue, remove, popAll, one still queued at the end
        "queue-operation (a queued prompt the user took back to edit; what they sent is shown)": 1,
    }
    texts = [t for r in records(path) for t in r.user_texts]
    assert texts == ["Rebase the branch on main", "Rebase the branch on main", "then run the tests please"]


# --------------------------------------------------------------------------- titles


def test_title_is_the_users_own_words() -> None:
    assert read_attachments().title == "Why is the total off by one cent?"  # not the <ide_selection> block


def test_title_skips_a_prompt_that_is_only_injected_context(tmp_path: Path) -> None:
    rec = {"type": "user", "uuid": "u1", "sessionId": "s", "timestamp": "2026-01-01T00:00:00Z"}
    only_ide = "<ide_opened_file>The user opened the file /a.py in the IDE.</ide_opened_file>"
    path = tmp_path / "s.jsonl"
    path.write_text(
        json.dumps({**rec, "message": {"role": "user", "content": only_ide}})
        + "\n"
        + json.dumps({**rec, "uuid": "u2", "message": {"role": "user", "content": "Rename a.py to b.py"}})
        + "\n"
    )
    assert list(READER.read(path, Problems()))[0].title == "Rename a.py to b.py"


# --------------------------------------------------------------------------- accounting, snapshots


def test_every_record_of_every_file_is_accounted_for() -> None:
    for root in (
        FLAT,
        ATTACHMENTS,
        FIXTURES / "claude_code" / "queued_prompts.jsonl",
        FIXTURES / "claude_code" / "projects",
    ):
        problems = Problems()
        for claim in discover(root, problems).claims:
            with keeping_ledger() as ledger:
                sessions = list(claim.read(problems))
            assert sessions
            for path in dict.fromkeys((*claim.sources, *claim.companions)):
                for record in records(path):
                    assert (str(record.path), record.line) in ledger.fates, (record.path.name, record.line, record.type)


def test_snapshots_of_one_session_share_a_key_and_merge(tmp_path: Path) -> None:
    """A checkpointing tool keeps a session's log twice, the later copy longer: one session, nothing dropped."""
    lines = ATTACHMENTS.read_text().splitlines()
    for name, count in (("early", 12), ("late", len(lines))):
        (tmp_path / name).mkdir()
        (tmp_path / name / "full.jsonl").write_text("\n".join(lines[:count]) + "\n")
    keys = {READER.session_key(Sniff(tmp_path / n / "full.jsonl")) for n in ("early", "late")}
    assert keys == {"c4c4c4c4-5555-4666-8777-888888888888"}
    merged = sessions_of(tmp_path)["c4c4c4c4-5555-4666-8777-888888888888"]
    assert [e.id for e in merged.events] == [e.id for e in read_attachments().events]
    assert READER.session_key(Sniff(FLAT / "agent-5555eeee.jsonl")) == MISSING


def test_event_ids_come_from_records_not_positions(tmp_path: Path) -> None:
    """The same records at other lines (a snapshot that starts later) keep their event ids."""
    shutil.copy(ATTACHMENTS, tmp_path / "a.jsonl")
    lines = ATTACHMENTS.read_text().splitlines()
    (tmp_path / "b.jsonl").write_text("\n".join(["", "", *lines[5:]]) + "\n")
    first = {e.id: e.text for e in read_attachments().events}
    later = {e.id: e.text for e in list(READER.read(tmp_path / "b.jsonl", Problems()))[0].events}
    assert later and all(first[i] == text for i, text in later.items())
