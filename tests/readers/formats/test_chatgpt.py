"""The ChatGPT export reader: the kept branch, the other versions, calls and results, records, bad input.

The hand-made fixture (tests/fixtures/chatgpt/conversations.json) holds two conversations: one
with custom instructions, an image, the code interpreter (a success and a traceback), the
browser, DALL·E, a canvas, reasoning, an edited prompt, a regenerated reply and an unknown
content type; and a short one. The real export in ../shared/formats/real-agents is read when there.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO, build_site, detected_by, parse_html

from sessite.model import Event, Kind, Problems, Session, ToolCategory, walk
from sessite.readers import discover, registry
from sessite.readers.formats.chatgpt import READER
from sessite.readers.ledger import Fate, keeping_ledger
from sessite.readers.locations import find
from sessite.readers.platform import Platform

sys.path.insert(0, str(REPO / "benchmarks"))
from fidelity.formats import enumerator  # noqa: E402

REAL = REPO.parent / "shared" / "formats" / "real-agents" / "chatgpt-export"
FIRST = "chatgpt-c0ffee00-0000-4000-8000-000000000001"


@pytest.fixture
def export(fixtures: Path) -> Path:
    return fixtures / "chatgpt" / "conversations.json"


def read_all(path: Path, problems: Problems | None = None) -> list[Session]:
    return list(READER.read(path, problems if problems is not None else Problems()))


def by_kind(session: Session, kind: Kind) -> list[Event]:
    return [e for e in walk(session.events) if e.kind == kind]


def test_registered_and_the_only_reader_of_its_files(export: Path, tmp_path: Path) -> None:
    assert READER in registry() and detected_by(export) == ["chatgpt"]
    part = tmp_path / "conversations-000.json"  # newer exports come in parts
    part.write_bytes(export.read_bytes())
    assert detected_by(part) == ["chatgpt"]
    claude = tmp_path / "claude.json"
    claude.write_text(json.dumps([{"uuid": "u", "name": "n", "chat_messages": []}]))
    assert not READER.detect_path(claude) and detected_by(claude) == ["claude_ai"]


def test_the_kept_branch_is_the_conversation(export: Path) -> None:
    problems = Problems()
    first, second = read_all(export, problems)
    assert [str(p).split(": ", 1)[1] for p in problems.items] == [
        "ChatGPT: unknown content type 'hologram'; its text is shown (further ones not reported)"
    ]
    assert first.id == FIRST and first.title == "Receipt tax check" and first.agent == "chatgpt"
    assert [e.text for e in by_kind(first, Kind.USER)] == [
        "What is the total on this receipt, and is the tax right?",
        "Now look up the sales tax rate in Springfield, Illinois",  # the edited prompt, not the old one
        "Draw the receipt as a cartoon",
        "Plot the tax by month",
        "Write it up as a note",
    ]
    kept = [e.text for e in by_kind(first, Kind.ASSISTANT)]
    assert kept[1].startswith("Springfield, Illinois charges **9.75 %** combined")
    assert "([tax.illinois.gov](https://tax.illinois.gov/springfield))" in kept[1]  # the citation mark made readable
    assert kept[-1] == "A reply of a kind not seen before"
    assert first.models == ("gpt-4o", "o3") and first.started and first.started.year == 2024
    assert [e.text for e in by_kind(second, Kind.ASSISTANT)] == ["Bonjour !"]
    injected, drawn = by_kind(second, Kind.TOOL_RESULT)  # file_search's note answers no call; the image does
    assert injected.call_id is None and injected.meta["tool"] == "file_search"
    [draw] = by_kind(second, Kind.TOOL_CALL)
    assert drawn.call_id == draw.call_id == "img" and draw.meta["channel"] == "commentary"
    image, attached = by_kind(first, Kind.USER)[0].blocks
    assert (image.type, image.uri, attached.title) == ("image", "file-service://file-receipt", "receipt.png")


def test_edits_and_regenerations_are_notes_holding_the_other_versions(export: Path) -> None:
    first, _ = read_all(export)
    notes = {e.title: e for e in by_kind(first, Kind.SYSTEM) if e.title and "version" in e.title}
    edited = notes["1 other version of this prompt"]
    assert [b.text for b in edited.blocks] == [
        "Now look up the sales tax rate in Springfield",
        "Which Springfield do you mean? There are several.",  # what followed the old prompt
    ]
    assert edited.blocks[0].title is not None and edited.blocks[0].title.startswith("Version 1 · user")
    regenerated = notes["2 other versions of this reply"]
    assert [b.text for b in regenerated.blocks] == [
        "The rate is 9.75 %.",
        "Springfield charges 9.75 % in total, more than the receipt's 8 %.",
    ]
    order = [e.title or e.kind.value for e in first.events]
    assert order.index("2 other versions of this reply") == order.index("thinking") + 1  # before the kept reply


def test_calls_and_their_results(export: Path) -> None:
    first, _ = read_all(export)
    calls = {e.call_id: e for e in by_kind(first, Kind.TOOL_CALL)}
    results: dict[str | None, list[Event]] = {}
    for e in by_kind(first, Kind.TOOL_RESULT):
        results.setdefault(e.call_id, []).append(e)
    assert set(calls) == set(results) == {"a1", "a3", "a5", "a6", "a8"}
    assert calls["a1"].tool_name == "python" and calls["a1"].text.startswith("```python\nsubtotal = 18.50")
    assert [r.text for r in results["a1"]] == ["19.98"]
    assert calls["a3"].category == ToolCategory.WEB and len(results["a3"]) == 2  # the page shown, then a quote
    assert results["a3"][1].blocks[0].uri == "https://tax.illinois.gov/springfield"
    assert calls["a5"].tool_input == {"prompt": "A cartoon bakery receipt", "size": "1024x1024"}
    assert results["a5"][0].blocks[0].type == "image"
    [failed] = results["a6"]
    assert failed.is_error and "Traceback (most recent call last):" in failed.text and failed.meta["run"] == "failed"
    canvas = calls["a8"]
    assert (
        canvas.category == ToolCategory.EDIT and canvas.path == "tax_note" and "+City rate: 9.75 %" in str(canvas.diff)
    )


def test_reasoning_and_instructions(export: Path) -> None:
    first, _ = read_all(export)
    [thinking] = by_kind(first, Kind.THINKING)
    assert thinking.text.startswith("**Comparing the rates**") and thinking.meta["reasoning"] == "Thought for 4 seconds"
    instructions = next(e for e in by_kind(first, Kind.SYSTEM) if e.title == "Custom instructions")
    assert "I write Python for a small bakery." in instructions.text and "Answer briefly." in instructions.text


def test_every_node_has_a_fate(export: Path) -> None:
    with keeping_ledger() as ledger:
        first, second = read_all(export)
    fates = {line: (fate, why) for (path, line), (fate, why) in ledger.fates.items() if path == str(export)}
    assert sorted(fates) == list(range(1, 36))  # 29 nodes, then 6
    assert fates[1] == (Fate.NOT_SHOWN, "the message tree's root (no message)")
    assert fates[9][0] == fates[17][0] == Fate.MERGED  # the other versions' later messages
    assert fates[15][0] == Fate.MERGED  # the reasoning recap
    assert first.skipped == {
        "the message tree's root (no message)": 1,
        "empty message ChatGPT hides (a placeholder system or context message)": 1,
    }


def test_the_enumerator_reads_the_export_independently(export: Path) -> None:
    records_of = enumerator("chatgpt")
    assert records_of is not None
    records = list(records_of(export))
    assert [r.line for r in records] == list(range(1, 36))
    users = [t for r in records for t in r.user_texts]
    assert "Now look up the sales tax rate in Springfield" in users and "Say hello in French" in users
    calls = {c for r in records for c in r.calls}
    assert calls == {c for r in records for c in r.results} == {"a1", "a3", "a5", "a6", "a8", "img"}


def _conversation(mapping: dict[str, Any], current: Any = "b") -> dict[str, Any]:
    return {
        "conversation_id": "odd",
        "title": "Odd",
        "create_time": 1714560000,
        "mapping": mapping,
        "current_node": current,
    }


def _node(parent: str | None, children: list[str], role: str, text: str, t: float) -> dict[str, Any]:
    message = {
        "id": None,
        "author": {"role": role},
        "create_time": t,
        "content": {"content_type": "text", "parts": [text]},
    }
    return {"parent": parent, "children": children, "message": message}


def test_a_damaged_export_costs_only_what_is_damaged(tmp_path: Path) -> None:
    mapping = {
        "a": _node(None, ["b"], "user", "first question", 1714560001),
        "b": _node("a", [], "assistant", "first answer", 1714560002),
        "lost": _node("nowhere", [], "assistant", "an answer with no parent", 1714560003),
        "bad": ["not", "a", "node"],
        "odd": {"parent": "b", "children": [], "message": "a message that is a string"},
    }
    path = tmp_path / "conversations.json"
    path.write_text(
        json.dumps(
            [_conversation(mapping), "not a conversation", _conversation({"x": _node(None, [], "user", "hi", 1)}, None)]
        )
    )
    problems = Problems()
    with keeping_ledger() as ledger:
        odd, fallback = read_all(path, problems)
    messages = sorted(str(p).split(": ", 1)[1] for p in problems.items)
    assert any("conversation #2 is a str; skipped" in m for m in messages)
    assert any("node 'bad' is a list, not an object" in m for m in messages)
    assert any("joined to the conversation by no chain of parents" in m for m in messages)
    assert [e.text for e in by_kind(odd, Kind.USER)] == ["first question"]
    detached = next(e for e in by_kind(odd, Kind.SYSTEM) if e.title and "outside" in e.title)
    assert [b.text for b in detached.blocks] == ["an answer with no parent"]
    after = next(e for e in by_kind(odd, Kind.SYSTEM) if e.title == "1 branch after the last message kept")
    assert after.blocks[0].data == "a message that is a string"
    assert any("node 'odd': message is a str" in m for m in messages)
    assert fallback.meta["branch shown"].startswith("the export names no current message")
    assert [e.text for e in by_kind(fallback, Kind.USER)] == ["hi"]
    assert len([k for k in ledger.fates if k[0] == str(path)]) == 6  # five nodes, then one


def test_an_export_has_no_default_folder(tmp_path: Path) -> None:
    assert READER.agent == "" and READER.default_folders(Platform(tmp_path)) == []
    (tmp_path / "Downloads").mkdir()
    assert not [loc for loc in find(home=tmp_path) if loc.agent == "chatgpt"]


def test_the_export_builds_pages_with_both_branches(export: Path, tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    archive.mkdir()
    (archive / "conversations.json").write_bytes(export.read_bytes())
    report = build_site(archive, tmp_path / "site")
    assert report.published and report.sessions == 2
    page = parse_html(tmp_path / "site" / "sessions" / f"{FIRST}.html")
    text = page.get_text(" ")
    assert "2 other versions of this reply" in text and "The rate is 9.75 %." in text
    assert "Which Springfield do you mean?" in text and "Springfield, Illinois charges" in text
    assert page.select(".k-tool_call") and "19.98" in text
    found = discover(archive, Problems(archive))
    assert [c.reader.name for c in found.claims] == ["chatgpt"]


def test_the_real_export_is_read_faithfully() -> None:
    real = sorted(REAL.glob("*conversations*.json")) if REAL.is_dir() else []
    if not real:
        pytest.skip("../shared/formats/real-agents/chatgpt-export is not here")
    for path in real:
        problems = Problems()
        with keeping_ledger() as ledger:
            sessions = read_all(path, problems)
        assert sessions and not problems.items
        for session in sessions:
            assert not by_kind(session, Kind.UNKNOWN)
            calls = {e.call_id for e in by_kind(session, Kind.TOOL_CALL)}
            assert calls == {e.call_id for e in by_kind(session, Kind.TOOL_RESULT)}
        records_of = enumerator("chatgpt")
        assert records_of is not None
        assert {r.line for r in records_of(path)} == {line for p, line in ledger.fates if p == str(path)}


def test_two_exports_of_one_account_are_merged(export: Path, tmp_path: Path) -> None:
    older = json.loads(export.read_text())
    newer = json.loads(export.read_text())
    mapping = newer[1]["mapping"]
    mapping["imgr"]["children"] = ["later"]
    later = {
        "id": "later",
        "author": {"role": "user"},
        "create_time": 1714646500,
        "content": {"content_type": "text", "parts": ["Merci !"]},
    }
    mapping["later"] = {"id": "later", "parent": "imgr", "children": [], "message": later}
    newer[1]["current_node"] = "later"
    (tmp_path / "2024-05").mkdir()
    (tmp_path / "2024-06").mkdir()
    (tmp_path / "2024-05" / "conversations.json").write_text(json.dumps(older[1:]))
    (tmp_path / "2024-06" / "conversations.json").write_text(json.dumps(newer))
    problems = Problems(tmp_path)
    [claim] = discover(tmp_path, problems).claims
    sessions = list(claim.read(problems))
    assert [p.message for p in problems.items] == [
        "ChatGPT: unknown content type 'hologram'; its text is shown (further ones not reported)"
    ]
    assert len(sessions) == 2
    hello = next(s for s in sessions if s.title == "Hello")
    assert [e.text for e in by_kind(hello, Kind.USER)] == ["Say hello in French", "Merci !"]
