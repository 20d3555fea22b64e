"""Every value in a session file is untrusted: JSON nested 1,000 or 100,000 deep, numbers
beyond any range, odd times, lone surrogates and fields of the wrong type. A bad value costs
that value (one problem line); its event and the rest of the file are kept."""

from __future__ import annotations

import gzip
import io
import json
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from helpers import EXAMPLE, FIXTURES, build_site, render_session_page

from sessite.model import NO_META, Event, Kind, Problems, Session, SourceRef, walk
from sessite.readers import discover, files, ledger, registry
from sessite.readers._util import Ids
from sessite.readers.finish import UNREAD_REASON, with_sound_fields
from sessite.readers.labels import humanize
from sessite.readers.skeleton import skeleton
from sessite.site.view import anchor_ids

READERS = {r.name: r for r in registry()}
DEEP = {"deep-1k": "[" * 1000 + "]" * 1000, "deep-100k": "[" * 100_000 + "]" * 100_000}
NUMBERS = ["NaN", "Infinity", "-Infinity", "1e400", "1" + "0" * 400, "9" * 5000]


def read(fmt: str, path: Path) -> tuple[list[Session], list[str]]:
    problems = Problems(path.parent)
    sessions = list(READERS[fmt].read(path, problems))
    said = [str(p) for p in problems.items]
    assert not [s for s in said if "reader failed" in s], said
    assert all("\n" not in s for s in said)
    return sessions, said


def events_of(sessions: list[Session]) -> list[Event]:
    return [e for s in sessions for e in walk(s.events)]


def with_raw(record: dict[str, Any], key: str, raw_json: str) -> str:
    """The record as one JSON line with ``key`` set to a raw JSON token (NaN, 1e400, deep nesting)."""
    marker = "\x00raw\x00"
    return json.dumps({**record, key: marker}).replace(json.dumps(marker), raw_json)


def claude_code_lines() -> list[str]:
    return (FIXTURES / "claude_code" / "basic.jsonl").read_text().splitlines()


# --------------------------------------------------------------------------------- nesting


@pytest.mark.parametrize("depth", sorted(DEEP))
def test_a_deep_value_in_a_claude_code_line_costs_that_value(tmp_path: Path, depth: str) -> None:
    lines = claude_code_lines()
    good, _ = read("claude_code", FIXTURES / "claude_code" / "basic.jsonl")
    index = next(i for i, line in enumerate(lines) if '"type":"user"' in line)
    lines[index] = with_raw(json.loads(lines[index]), "toolUseResult", DEEP[depth])
    path = tmp_path / "basic.jsonl"
    path.write_text("\n".join(lines) + "\n")
    sessions, said = read("claude_code", path)
    assert len(events_of(sessions)) == len(events_of(good))
    assert [s for s in said if "nested deeper than" in s] == [
        f"basic.jsonl:{index + 1}: JSON nested deeper than 100 levels; the deeper values are left out"
    ]


@pytest.mark.parametrize("depth", sorted(DEEP))
def test_a_deep_value_in_an_amp_thread_costs_that_value(tmp_path: Path, depth: str) -> None:
    source = FIXTURES / "amp" / "T-7f3e2a10-1111-4222-8333-444455556666.json"
    good, _ = read("amp", source)
    doc = json.loads(source.read_text())
    doc["messages"][1]["content"][2]["input"]["extra"] = "\x00raw\x00"
    path = tmp_path / source.name
    path.write_text(json.dumps(doc).replace(json.dumps("\x00raw\x00"), DEEP[depth]))
    sessions, said = read("amp", path)
    assert len(events_of(sessions)) == len(events_of(good))
    assert any("nested deeper than 100 levels" in s for s in said)


def test_a_deep_value_in_one_claude_ai_conversation_keeps_every_conversation(tmp_path: Path) -> None:
    source = FIXTURES / "claude_ai" / "wrong_types.json"
    good, _ = read("claude_ai", source)
    doc = json.loads(source.read_text())
    doc[0]["extra"] = "\x00raw\x00"
    path = tmp_path / source.name
    path.write_text(json.dumps(doc).replace(json.dumps("\x00raw\x00"), DEEP["deep-100k"]))
    sessions, _ = read("claude_ai", path)
    assert [s.id for s in sessions] == [s.id for s in good]


def test_values_nested_500_deep_still_export(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    archive.mkdir()
    lines = claude_code_lines()
    index = next(i for i, line in enumerate(lines) if '"type":"user"' in line)
    lines[index] = with_raw(json.loads(lines[index]), "toolUseResult", '{"k":' * 500 + "1" + "}" * 500)
    (archive / "basic.jsonl").write_text("\n".join(lines) + "\n")
    report = build_site(archive, tmp_path / "site", exports=("aics", "hail", "markdown"))
    assert report.sessions == 1
    assert not [p for p in report.problems if "could not" in p.message], report.problems
    exports = list((tmp_path / "site" / "sessions").glob("*.gz"))
    assert len(exports) == 3 and all(gzip.decompress(p.read_bytes()) for p in exports)


# --------------------------------------------------------------------------------- numbers and times


@pytest.mark.parametrize("number", NUMBERS)
def test_an_out_of_range_token_count_keeps_its_event(tmp_path: Path, number: str) -> None:
    lines = claude_code_lines()
    index = next(i for i, line in enumerate(lines) if '"usage"' in line)
    record = json.loads(lines[index])
    record["message"]["usage"]["output_tokens"] = "\x00raw\x00"
    lines[index] = json.dumps(record).replace(json.dumps("\x00raw\x00"), number)
    path = tmp_path / "basic.jsonl"
    path.write_text("\n".join(lines) + "\n")
    good, _ = read("claude_code", FIXTURES / "claude_code" / "basic.jsonl")
    sessions, said = read("claude_code", path)
    assert len(events_of(sessions)) == len(events_of(good))
    for event in events_of(sessions):
        if event.usage is not None:
            assert 0 <= event.usage.output_tokens < 2**63
    render_session_page(sessions[0])
    if number != "1" + "0" * 400:  # a 401-digit integer is a valid JSON number (read as no count)
        assert [s for s in said if "read as null" in s]


@pytest.mark.parametrize("stamp", ['"²"', "1e400", "NaN", '"' + "9" * 5000 + '"', '"0001-01-01T00:00:00-05:00"'])
def test_an_odd_timestamp_keeps_its_event(tmp_path: Path, stamp: str) -> None:
    lines = claude_code_lines()
    index = next(i for i, line in enumerate(lines) if '"type":"user"' in line)
    lines[index] = with_raw(json.loads(lines[index]), "timestamp", stamp)
    path = tmp_path / "basic.jsonl"
    path.write_text("\n".join(lines) + "\n")
    good, _ = read("claude_code", FIXTURES / "claude_code" / "basic.jsonl")
    sessions, _ = read("claude_code", path)
    assert len(events_of(sessions)) == len(events_of(good))
    render_session_page(sessions[0])


# --------------------------------------------------------------------------------- field types


def aics_with(tmp_path: Path, change: Any) -> Path:
    doc = json.loads((EXAMPLE / "aics" / "rate-limiter.aics.json").read_text())
    change(doc["log"]["sessions"][0])
    path = tmp_path / "odd.aics.json"
    path.write_text(json.dumps(doc))
    return path


def _mcp(session: dict[str, Any], mcp: dict[str, Any]) -> None:
    session["messages"][0]["mcp"] = mcp


@pytest.mark.parametrize(
    "change",
    [
        lambda s: _mcp(s, {"tools": True}),
        lambda s: _mcp(s, {"resources": [{"uri": "file:///x", "name": ["not", "text"]}]}),
        lambda s: _mcp(s, {"resources": [{"uri": 5, "name": {"a": 1}, "mimeType": 7}], "prompts": True}),
        lambda s: s.update(title=True),
        lambda s: s.update(id=["x"]),
        lambda s: s["messages"][1].update(role=[1, "a", None]),
        lambda s: s["messages"][1].update(thinking={"content": "x", "steps": 5}),
    ],
    ids=["mcp-tools-true", "resource-name-list", "resource-fields-odd", "title-true", "id-list", "role-list", "steps"],
)
def test_aics_fields_of_the_wrong_type_cost_that_value(tmp_path: Path, change: Any) -> None:
    good, _ = read("aics", EXAMPLE / "aics" / "rate-limiter.aics.json")
    sessions, _ = read("aics", aics_with(tmp_path, change))
    assert len(sessions) == len(good) == 1
    assert len(sessions[0].events) >= len(good[0].events) - 1
    assert sessions[0].title is None or isinstance(sessions[0].title, str)
    html = render_session_page(sessions[0])
    assert html.encode("utf-8")


def test_a_wrong_type_in_any_event_field_is_made_text() -> None:
    """What a reader slips on is caught once, where every session leaves the readers."""
    odd = Session(
        id="s",
        source=SourceRef("x", "aics"),
        agent="a",
        title=True,  # type: ignore[arg-type]
        events=(Event(id="e", kind=Kind.USER, text=["a"], tool_name=5, exit_code="1"),),  # type: ignore[arg-type]
    )
    problems = Problems()
    sound = with_sound_fields(odd, problems, Path("x"))
    assert sound.title == "true" and sound.events[0].text.startswith("[") and sound.events[0].tool_name == "5"
    assert sound.events[0].exit_code is None
    assert len(problems.items) == 4 and all("not text" in p.message or "exit code" in p.message for p in problems.items)
    render_session_page(sound)


# --------------------------------------------------------------------------------- surrogates


def test_a_lone_surrogate_in_an_opencode_id_is_replaced(tmp_path: Path) -> None:
    storage = tmp_path / "storage"
    shutil.copytree(EXAMPLE / "opencode" / "storage", storage)
    good, _ = read("opencode", EXAMPLE / "opencode" / "storage")
    for path in sorted((storage / "message").rglob("*.json"))[:1]:
        text = path.read_text()
        doc = json.loads(text)
        path.write_text(text.replace(json.dumps(doc["id"]), '"\\ud800' + doc["id"] + '"', 1))
    sessions, said = read("opencode", storage)
    assert len(sessions) == len(good)
    assert any("lone UTF-16 surrogate" in s for s in said)
    for session in sessions:
        render_session_page(session).encode("utf-8")
        for event in walk(session.events):
            event.id.encode("utf-8")


def test_a_lone_surrogate_in_text_renders(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    archive.mkdir()
    lines = claude_code_lines()
    index = next(i for i, line in enumerate(lines) if '"type":"user"' in line)
    record = json.loads(lines[index])
    record["message"]["content"] = "half a pair: \\ud83d, and its other half \\ude00 alone"
    lines[index] = json.dumps(record).replace("\\\\ud83d", "\\ud83d").replace("\\\\ude00", "\\ude00")
    (archive / "basic.jsonl").write_text("\n".join(lines) + "\n")
    report = build_site(archive, tmp_path / "site")
    assert report.sessions == 1
    assert not [p for p in report.problems if "could not" in p.message], report.problems


# --------------------------------------------------------------------------------- de-duplication


def test_ids_sharing_one_base_are_made_unique_in_linear_time() -> None:
    ids = Ids()
    started = time.perf_counter()
    taken = [ids.take("x" * 200) for _ in range(40_000)]
    assert time.perf_counter() - started < 2  # quadratic: minutes
    assert len(set(taken)) == 40_000 and taken[:3] == ["x" * 200, "x" * 200 + "-2", "x" * 200 + "-3"]


def test_anchors_of_ids_sharing_a_long_prefix_are_linear() -> None:
    events = tuple(Event(id="p" * 70 + str(i), kind=Kind.USER) for i in range(40_000))
    started = time.perf_counter()
    anchors = anchor_ids(events)
    assert time.perf_counter() - started < 2  # quadratic: minutes
    assert len(set(anchors.values())) == 40_000
    assert anchors[events[2].id] == "e-" + "p" * 64 + "-3"


def test_a_file_of_millions_of_lines_is_read_to_a_bound_and_the_rest_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Memory stays bounded: past the line limit a file is counted, not read, and the user is told."""
    monkeypatch.setattr(files, "MAX_FILE_LINES", 40)
    line = (
        '{"type":"user","sessionId":"s","uuid":"u%d","timestamp":"2026-01-01T00:00:00Z",'
        '"message":{"role":"user","content":"hi %d"}}'
    )
    path = tmp_path / "s.jsonl"
    path.write_text("".join(line % (i, i) + "\n" for i in range(100)))
    with ledger.keeping_ledger() as kept:
        sessions, said = read("claude_code", path)
    assert [e.text for e in events_of(sessions)] == [f"hi {i}" for i in range(40)]
    assert sessions[0].skipped == {UNREAD_REASON: 60}
    assert said == [
        "s.jsonl:41: 60 more lines after the first 40 are not read "
        "(a file is read to at most that many lines, to keep memory bounded)"
    ]
    fates = {line: fate for (_, line), (fate, _) in kept.fates.items()}
    assert sorted(fates) == list(range(1, 101))
    assert {fates[n] for n in range(41, 101)} == {ledger.Fate.NOT_SHOWN}


HEADERS = [  # (fixture, reader, key of its first record)
    ("codex/rollout-2025-08-18T01-16-13-c3c4b301-27c8-4c70-b6e4-46b99fdf0236.jsonl", "codex", "instructions"),
    ("claude_code/attachments.jsonl", "claude_code", "version"),
    ("goose/sessions/20260108_1.jsonl", "goose", "accumulated_total_tokens"),
    ("copilot_cli/5f0c2a1e-0000-4000-8000-00000000c0de/events.jsonl", "copilot_cli", "id"),
]
BULK = {"string-100k": json.dumps("A" * 100_000), "deep-100k": DEEP["deep-100k"]}


@pytest.mark.parametrize("bulk", sorted(BULK))
@pytest.mark.parametrize(("fixture", "fmt", "key"), HEADERS)
def test_a_huge_value_in_a_header_does_not_hide_the_format(
    tmp_path: Path, fixture: str, fmt: str, key: str, bulk: str
) -> None:
    """The bulk fills the sniffed head before the keys that say what the file is; detection
    reads the head's skeleton instead, and the file is read with only that value lost."""
    source = FIXTURES / fixture
    lines = source.read_text().splitlines()
    lines[0] = with_raw(json.loads(lines[0]), key, BULK[bulk])
    path = tmp_path / fixture
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(lines) + "\n")
    problems = Problems(tmp_path)
    claims = discover([tmp_path], problems).claims
    assert [(c.reader.name, c.path) for c in claims] == [(fmt, path)], [str(p) for p in problems.items]
    sessions = list(claims[0].read(problems))
    good, _ = read(fmt, source)
    assert len(events_of(sessions)) == len(events_of(good))


@pytest.mark.parametrize(
    ("fixture", "fmt", "key", "raw"),
    [
        ("factory_droid/exec/list-files.jsonl", "factory_droid", "type", "-1"),
        ("factory_droid/exec/list-files.jsonl", "factory_droid", "session_id", "{}"),
        ("goose/sessions/20260108_1.jsonl", "goose", "working_dir", "-1e400"),
    ],
)
def test_a_damaged_first_record_does_not_hide_the_rest(
    tmp_path: Path, fixture: str, fmt: str, key: str, raw: str
) -> None:
    lines = (FIXTURES / fixture).read_text().splitlines()
    lines[0] = with_raw(json.loads(lines[0]), key, raw)
    path = tmp_path / fixture
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(lines) + "\n")
    claims = discover([tmp_path], Problems(tmp_path)).claims
    assert [(c.reader.name, c.path) for c in claims] == [(fmt, path)]
    sessions, _ = read(fmt, path)
    assert len(events_of(sessions)) >= len(events_of(read(fmt, FIXTURES / fixture)[0])) - 1


def test_a_page_counts_the_lines_past_the_bound_among_records_not_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "MAX_FILE_LINES", 40)
    archive = tmp_path / "archive" / "claude-code" / "-p"
    archive.mkdir(parents=True)
    line = (
        '{"type":"user","sessionId":"s","uuid":"u%d","timestamp":"2026-01-01T00:00:00Z",'
        '"message":{"role":"user","content":"hi %d"}}'
    )
    (archive / "s.jsonl").write_text("".join(line % (i, i) + "\n" for i in range(1_040)))
    report = build_site(tmp_path / "archive", tmp_path / "site", jobs=1, cache_dir=tmp_path / "cache")
    assert report.published
    page = next((tmp_path / "site" / "sessions").glob("*.html"))
    skipped = BeautifulSoup(page.read_text(), "html.parser").select_one("details.skipped")
    assert skipped is not None and skipped.summary is not None
    assert skipped.summary.get_text() == "1,000 records not shown"
    assert [li.get_text() for li in skipped.select("li")] == [f"1,000 × {UNREAD_REASON}"]


def test_a_skeleton_keeps_every_key_and_stays_json() -> None:
    cut = "\\" * 1023 + '"'  # a cut that would split the escape ``\\"`` in half
    first = (
        '{"a": '
        + json.dumps("x" * 100_000)
        + ', "b": '
        + DEEP["deep-100k"]
        + ', "c": '
        + json.dumps(cut + "y" * 5000)
        + ', "d": 1}'
    )
    data = (first + '\n{"e": [1, {"f": "g"}]}\n').encode()
    head = skeleton(io.BytesIO(data), 64 * 1024)
    records = [json.loads(line) for line in head.decode().splitlines()]
    assert [list(r) for r in records] == [["a", "b", "c", "d"], ["e"]]
    assert records[0]["a"] == "x" * 1024 and records[0]["d"] == 1 and records[1] == {"e": [1, {"f": "g"}]}
    depth, value = 0, records[0]["b"]
    while isinstance(value, list):
        depth, value = depth + 1, value[0] if value else None
    assert depth == 63 and value is None  # nesting past 64 levels is null


def test_the_shared_empty_meta_stays_empty(tmp_path: Path) -> None:
    """Events without meta share one dict (memory for millions of tiny events): nobody may fill it."""
    report = build_site(FIXTURES, tmp_path / "site")
    assert report.sessions > 10
    assert NO_META == {} and Event(id="e", kind=Kind.USER).meta is NO_META


def test_names_a_reader_turns_into_titles_are_never_reshaped_unless_plainly_words() -> None:
    assert humanize("compact_boundary") == "Compact boundary"
    assert humanize("turn-aborted", capital=False) == "turn aborted"
    assert humanize("", "System message") == "System message"
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    for name in (token, "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "AKIA2E0A8F3B244C9986", "x_" + "a" * 40):
        assert humanize(name) == name  # redaction still sees the value as the log has it


def test_a_token_in_a_codex_tag_or_a_claude_code_subtype_is_redacted(tmp_path: Path) -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    archive = tmp_path / "archive"
    archive.mkdir()
    codex = archive / "rollout-2026-01-01T00-00-00-0199aaaa-0000-7000-8000-000000000001.jsonl"
    meta = {
        "type": "session_meta",
        "timestamp": "2026-01-01T00:00:00Z",
        "payload": {"id": "0199aaaa-0000-7000-8000-000000000001", "cwd": "/w"},
    }
    tagged = {
        "type": "response_item",
        "timestamp": "2026-01-01T00:00:01Z",
        "payload": {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": f"<{token}>x</{token}>"}],
        },
    }
    codex.write_text("\n".join(json.dumps(r) for r in (meta, tagged)) + "\n")
    claude = archive / "c1.jsonl"
    lines = [
        {
            "type": "user",
            "sessionId": "c1",
            "uuid": "u1",
            "timestamp": "2026-01-01T00:00:00Z",
            "message": {"role": "user", "content": "hi"},
        },
        {
            "type": "system",
            "subtype": token,
            "sessionId": "c1",
            "uuid": "u2",
            "timestamp": "2026-01-01T00:00:01Z",
            "content": "x",
        },
    ]
    claude.write_text("\n".join(json.dumps(r) for r in lines) + "\n")
    site = tmp_path / "site"
    report = build_site(archive, site)
    assert report.published and report.sessions == 2
    published = "\n".join(p.read_text(errors="replace") for p in site.rglob("*") if p.is_file())
    assert token not in published and token[4:].lower() not in published.lower()


def test_a_sub_agent_that_holds_its_own_call_is_drawn_once_not_without_end() -> None:
    """Ids are untrusted: a sub-agent whose transcript holds the call that started it, and two
    sub-agents that hold each other's calls, render (each drawn once), never recursing."""

    def call(cid: str, eid: str) -> Event:
        return Event(id=eid, kind=Kind.TOOL_CALL, tool_name="task", call_id=cid)

    def agent(cid: str, eid: str, *children: Event) -> Event:
        return Event(id=eid, kind=Kind.SUBAGENT, title=f"agent {eid}", call_id=cid, children=children)

    selfish = agent("x", "a1", call("x", "c1"), Event(id="t1", kind=Kind.ASSISTANT, text="inside one"))
    first = agent("p", "a2", call("q", "c2"), Event(id="t2", kind=Kind.ASSISTANT, text="inside two"))
    second = agent("q", "a3", call("p", "c3"), Event(id="t3", kind=Kind.ASSISTANT, text="inside three"))
    session = Session("loops", SourceRef("l.jsonl", "t"), "t", (selfish, first, second))
    html = render_session_page(session)
    for text in ("inside one", "inside two", "inside three"):
        assert html.count(text) >= 1
    assert html.count('id="e-a1"') + html.count("agent a1") >= 1
