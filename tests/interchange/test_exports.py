"""Exports: AICS 1.0 valid by its rules, HAIL 1.0 in opensession's exact serialization, Markdown;
round trips through sessite's own readers for every reader's fixtures; ``sessite convert``."""

from __future__ import annotations

import gzip
import json
import os
import re
from dataclasses import fields, is_dataclass
from datetime import UTC, datetime, timezone
from enum import Enum
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ALL_EXPORTS, EXAMPLE, FIXTURES, SAMPLES, build_site

from sessite.cli import main
from sessite.interchange.aics import aics_bytes, aics_chunks, aics_document, to_aics
from sessite.interchange.extension import dumps
from sessite.interchange.formats import export_chunks, export_session
from sessite.interchange.hail import hail_bytes, hail_chunks, hail_records, to_hail
from sessite.interchange.markdown import markdown_chunks, markdown_line_groups, to_markdown
from sessite.interchange.streaming import gzip_bytes, trim_end
from sessite.model import Event, Kind, Problems, Session, SourceRef, Usage
from sessite.outputs.downloads import session_exports
from sessite.readers import discover, registry


def _sources() -> list[tuple[str, Path]]:
    roots = [FIXTURES, EXAMPLE] + ([SAMPLES] if SAMPLES.is_dir() else [])
    out = []
    for root in roots:
        for claim in discover(root, Problems(root)).claims:
            out.append((claim.reader.name, claim.path))
    return out


SOURCES = _sources()


def _read(path: Path) -> list[Session]:
    problems = Problems()
    claims = discover(path, problems).claims
    return [s for c in claims for s in c.reader.read(c.path, problems)]


def _read_clean(path: Path) -> Session:
    problems = Problems()
    claims = discover(path, problems).claims
    sessions = [s for c in claims for s in c.reader.read(c.path, problems)]
    assert not problems.items, [str(p) for p in problems.items]
    assert len(sessions) == 1
    return sessions[0]


def comparable(value):
    """A session as plain data: instants in UTC, enums as values, tuples as lists; its id and source left out
    (a round trip gives the id the reader's prefix and the source is the export file)."""
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat()
    if isinstance(value, Enum):
        return value.value
    if is_dataclass(value) and not isinstance(value, type):
        data = {f.name: comparable(getattr(value, f.name)) for f in fields(value)}
        if isinstance(value, Session):
            del data["id"], data["source"]
        return data
    if isinstance(value, (list, tuple)):
        return [comparable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): comparable(v) for k, v in value.items()}
    return value


def test_every_reader_has_fixtures_to_round_trip():
    assert {name for name, _ in SOURCES} == {r.name for r in registry()}


@pytest.mark.parametrize("fmt", ["aics", "hail"])
@pytest.mark.parametrize("reader, path", SOURCES, ids=[f"{n}:{p.parent.name}/{p.name}" for n, p in SOURCES])
def test_round_trip_gives_back_the_same_session(reader, path, fmt, tmp_path):
    for session in _read(path):
        target = tmp_path / (f"{session.id}.aics.json" if fmt == "aics" else f"{session.id}.hail.jsonl")
        target.write_bytes(aics_bytes([session]) if fmt == "aics" else hail_bytes(session))
        back = _read_clean(target)
        assert back.id == f"{fmt}-{session.id}" or back.id.startswith(f"{fmt}-")
        assert back.source.format == fmt
        assert comparable(back) == comparable(session)


def _strip_extension(value):
    if isinstance(value, dict):
        return {k: _strip_extension(v) for k, v in value.items() if k != "sessite"}
    if isinstance(value, list):
        return [_strip_extension(v) for v in value]
    return value


@pytest.mark.parametrize("reader, path", SOURCES[::3], ids=[f"{n}:{p.name}" for n, p in SOURCES[::3]])
def test_other_tools_see_plain_valid_files(reader, path, tmp_path):
    """Without sessite's extension (what another tool reads), the readers take the exports without a single problem."""
    for session in _read(path):
        doc = _strip_extension(to_aics(session))
        doc["creator"]["name"] = "another-tool"
        (tmp_path / "x.aics.json").write_text(json.dumps(doc))
        lines = [_strip_extension(json.loads(line)) for line in to_hail(session).splitlines()]
        (tmp_path / "x.hail.jsonl").write_text("\n".join(json.dumps(line) for line in lines) + "\n")
        for name in ("x.aics.json", "x.hail.jsonl"):
            back = _read_clean(tmp_path / name)
            assert len(list(back.events)) >= min(1, len(session.events)) and back.title == session.title


# ---------------------------------------------------------------- AICS by the spec's rules

ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$")


def aics_problems(doc) -> list[str]:
    """The validation rules of ../shared/specs/aics-1.0.md, section Validation, plus the field types it gives."""
    out = []
    if doc.get("version") != "1.0":
        out.append("version")
    if not isinstance(doc.get("creator"), dict) or not doc["creator"].get("name"):
        out.append("creator.name")
    log = doc.get("log")
    if not isinstance(log, dict) or not isinstance(log.get("sessions"), list):
        return out + ["log"]
    for s in log["sessions"]:
        if not s.get("id") or not isinstance(s.get("messages"), list) or not s["messages"]:
            out.append(f"session {s.get('id')}: id and one message")
        for key in ("startedAt", "updatedAt"):
            if key in s and not ISO.match(s[key]):
                out.append(f"{key} {s[key]}")
        for key, value in (s.get("gitRefs") or {}).items():
            if key not in ("branches", "issues", "commits", "tags", "repos") or not all(
                isinstance(v, str) for v in value
            ):
                out.append(f"gitRefs.{key}")
        if "metadata" in s and not isinstance(s["metadata"], dict):
            out.append("session metadata")
        for m in s.get("messages", []):
            if not m.get("id") or m.get("role") not in ("user", "assistant", "system", "tool") or not m.get("content"):
                out.append(f"message {m.get('id')}: id, role, content")
            if "timestamp" in m and not ISO.match(m["timestamp"]):
                out.append(f"timestamp {m['timestamp']}")
            for part in m.get("content", []):
                if (
                    not isinstance(part.get("type"), str)
                    or ("text" in part and not isinstance(part["text"], str))
                    or ("data" in part and not isinstance(part["data"], dict))
                ):
                    out.append(f"content part {part}")
    return out


@pytest.mark.parametrize("reader, path", SOURCES, ids=[f"{n}:{p.parent.name}/{p.name}" for n, p in SOURCES])
def test_aics_exports_are_valid(reader, path):
    for session in _read(path):
        raw = aics_bytes([session])
        doc = json.loads(raw)
        assert aics_problems(doc) == []
        assert raw.startswith(b'{"version":"1.0","creator":{"name":"sessite"') and b"\n" not in raw  # compact


def test_an_empty_session_still_has_one_message(tmp_path):
    session = Session(id="empty", source=SourceRef("x", "x"), agent="a", events=())
    doc = to_aics(session)
    assert aics_problems(doc) == []
    (tmp_path / "e.aics.json").write_bytes(aics_bytes([session]))
    assert comparable(_read_clean(tmp_path / "e.aics.json")) == comparable(session)


# ---------------------------------------------------------------- HAIL's exact serialization

EVENT_TYPES = {
    "UserMessage",
    "AgentMessage",
    "SystemMessage",
    "Thinking",
    "ToolCall",
    "ToolResult",
    "FileRead",
    "FileEdit",
    "FileCreate",
    "FileDelete",
    "CodeSearch",
    "FileSearch",
    "WebSearch",
    "WebFetch",
    "ShellCommand",
    "ImageGenerate",
    "VideoGenerate",
    "AudioGenerate",
    "TaskStart",
    "TaskEnd",
    "Custom",
}
BLOCK_KEYS = {
    "Text": ["type", "text"],
    "Code": ["type", "code", "language", "start_line"],
    "Image": ["type", "url", "alt", "mime"],
    "Video": ["type", "url", "mime"],
    "Audio": ["type", "url", "mime"],
    "File": ["type", "path", "content"],
    "Json": ["type", "data"],
    "Reference": ["type", "uri", "media_type"],
}
RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3}|\.\d{6})?Z$")


def _ordered(keys, order):
    positions = [order.index(k) for k in keys]
    return all(k in order for k in keys) and positions == sorted(positions)


@pytest.mark.parametrize("reader, path", SOURCES, ids=[f"{n}:{p.parent.name}/{p.name}" for n, p in SOURCES])
def test_hail_exports_follow_the_serialization(reader, path):
    for session in _read(path):
        text = to_hail(session)
        lines = text.splitlines()
        assert text.endswith("\n") and all(
            line == json.dumps(json.loads(line), ensure_ascii=False, separators=(",", ":")) for line in lines
        )  # compact serde form
        records = [json.loads(line) for line in lines]
        header, events, stats = records[0], records[1:-1], records[-1]
        assert (
            list(header) == ["type", "version", "session_id", "agent", "context"] and header["version"] == "hail-1.0.0"
        )
        assert list(header["agent"])[:3] == ["provider", "model", "tool"] and all(
            isinstance(v, str) and v for v in header["agent"].values()
        )
        ctx = header["context"]
        assert _ordered(
            list(ctx), ["title", "description", "tags", "created_at", "updated_at", "related_session_ids", "attributes"]
        )
        assert RFC3339.match(ctx["created_at"]) and RFC3339.match(ctx["updated_at"]) and isinstance(ctx["tags"], list)
        ids = set()
        for e in events:
            assert e["type"] == "event" and _ordered(
                list(e),
                ["type", "event_id", "timestamp", "event_type", "task_id", "content", "duration_ms", "attributes"],
            )
            assert RFC3339.match(e["timestamp"]) and e["event_id"] not in ids
            ids.add(e["event_id"])
            etype = e["event_type"]
            assert etype["type"] in EVENT_TYPES
            unit = etype["type"] in ("UserMessage", "AgentMessage", "SystemMessage", "Thinking")
            assert ("data" not in etype) if unit else isinstance(etype["data"], dict)  # adjacently tagged
            if etype["type"] == "ToolResult":
                assert isinstance(etype["data"]["name"], str) and isinstance(etype["data"]["is_error"], bool)
            if etype["type"] == "ShellCommand":
                assert isinstance(etype["data"]["command"], str)
            for block in e["content"]["blocks"]:  # internally tagged
                assert block["type"] in BLOCK_KEYS and _ordered(list(block), BLOCK_KEYS[block["type"]])
            if "attributes" in e:
                assert e["attributes"]  # omitted when empty
        assert list(stats) == [
            "type",
            "event_count",
            "message_count",
            "tool_call_count",
            "task_count",
            "duration_seconds",
            "total_input_tokens",
            "total_output_tokens",
            "user_message_count",
            "files_changed",
            "lines_added",
            "lines_removed",
        ]
        assert stats["event_count"] == len(events)
        assert stats["user_message_count"] == sum(e["event_type"]["type"] == "UserMessage" for e in events)
        assert all(isinstance(v, int) and v >= 0 for k, v in stats.items() if k != "type")


def test_hail_matches_a_real_opensession_file_line_for_line(tmp_path):
    """A session read from a real opensession sample and written again keeps the sample's shape:
    same event types in the same order, same timestamps, same stats counts."""
    sample = SAMPLES / "hail" / "6ccf974b-claude-code-small.hail.jsonl"
    if not sample.is_file():
        pytest.skip("shared samples not found")
    original = [json.loads(line) for line in sample.read_text().splitlines()]
    again = [json.loads(line) for line in to_hail(_read_clean(sample)).splitlines()]
    assert [r["type"] for r in again] == [r["type"] for r in original]
    assert [(r.get("event_type"), r.get("timestamp"), r.get("event_id")) for r in again[1:-1]] == [
        (r.get("event_type"), r.get("timestamp"), r.get("event_id")) for r in original[1:-1]
    ]
    for key in (
        "event_count",
        "message_count",
        "user_message_count",
        "tool_call_count",
        "task_count",
        "duration_seconds",
    ):
        assert again[-1][key] == original[-1][key], key
    assert again[0]["context"]["created_at"] == original[0]["context"]["created_at"]


def test_times_offsets_and_odd_values_survive(tmp_path):
    from datetime import timedelta

    tz = timezone(timedelta(hours=-5))
    events = (
        Event(
            id="1",
            kind=Kind.USER,
            text="hi\u2028there \x00 ``` fence",
            timestamp=datetime(2026, 1, 2, 3, 4, 5, 120000, tzinfo=tz),
        ),
        Event(id="2", kind=Kind.TOOL_CALL, tool_name=None, call_id="c", tool_input=[1, {"a": None}], timestamp=None),
        Event(
            id="3", kind=Kind.TOOL_RESULT, call_id="c", text="", is_error=True, exit_code=2, usage=Usage(1, 2, 3, 4, 5)
        ),
        Event(
            id="4",
            kind=Kind.SUBAGENT,
            title="sub",
            children=(
                Event(id="4.1", kind=Kind.SUBAGENT, children=(Event(id="4.1.1", kind=Kind.ASSISTANT, text="deep"),)),
            ),
        ),
        Event(id="5", kind=Kind.UNKNOWN, raw={"weird": [1.5, True, None]}),
        Event(id="6", kind=Kind.COMPACTION, text="summary", meta={"k": ["v"]}),
    )
    session = Session(
        id="odd",
        source=SourceRef("x", "x"),
        agent="Some Agent",
        events=events,
        title="",
        started=None,
        ended=None,
        models=("m1", "m2"),
        usage=Usage(7, 8),
        skipped={"x": 2},
        meta={"nested": {"a": [1]}},
    )
    for fmt, data, name in (
        ("aics", aics_bytes([session]), "o.aics.json"),
        ("hail", hail_bytes(session), "o.hail.jsonl"),
    ):
        (tmp_path / name).write_bytes(data)
        assert comparable(_read_clean(tmp_path / name)) == comparable(session), fmt
    assert "2026-01-02T08:04:05.120Z" in to_hail(session)  # UTC, milliseconds, Z
    assert (
        json.loads(aics_bytes([session]))["log"]["sessions"][0]["messages"][0]["timestamp"]
        == "2026-01-02T03:04:05.120000-05:00"
    )


def test_a_lone_surrogate_is_written_as_valid_json(tmp_path):
    """An export holds valid UTF-8 JSON (the surrogate escaped in place); reading it back, the
    readers scrub lone surrogates (hostile-input rule): U+FFFD and a problem line, nothing else lost."""
    session = Session(
        id="s",
        source=SourceRef("x", "x"),
        agent="a",
        events=(Event(id="1", kind=Kind.USER, text="bad \udc80 byte"),),
        title="t\ud800",
    )
    for data, name in ((aics_bytes([session]), "s.aics.json"), (hail_bytes(session), "s.hail.jsonl")):
        data.decode("utf-8")
        (tmp_path / name).write_bytes(data)
        problems = Problems()
        sessions = [s for c in discover(tmp_path / name, problems).claims for s in c.reader.read(c.path, problems)]
        assert [s.events[0].text for s in sessions] == ["bad \ufffd byte"]
        assert {p.message for p in problems.items} == {"lone UTF-16 surrogate in a string; replaced with U+FFFD"}
        assert [s.title for s in sessions] == ["t\ufffd"]
    assert json.loads(aics_bytes([session])) == to_aics(session)  # escaped in place, the same document


# ---------------------------------------------------------------- Markdown


def test_markdown_shows_every_event_safely():
    events = (
        Event(id="u", kind=Kind.USER, text="Please fix it"),
        Event(id="c", kind=Kind.TOOL_CALL, tool_name="Bash", command="ls", tool_input={"command": "ls"}, call_id="t1"),
        Event(id="r", kind=Kind.TOOL_RESULT, call_id="t1", text="a\n```\nb", is_error=True, exit_code=1),
        Event(
            id="s",
            kind=Kind.SUBAGENT,
            title="helper",
            children=(Event(id="s1", kind=Kind.ASSISTANT, text="inner answer", model="m"),),
        ),
        Event(id="x", kind=Kind.UNKNOWN, raw={"odd": 1}),
    )
    md = to_markdown(
        Session(
            id="s",
            source=SourceRef("a/b.jsonl", "claude_code"),
            agent="claude-code",
            events=events,
            title="Title\nwith newline",
        )
    )
    assert md.startswith("# Title with newline\n")
    assert "## Tool call: Bash" in md and "**Result (error) · exit 1:**" in md
    assert "````text\na\n```\nb\n````" in md  # the fence outgrows the content's
    assert "## Sub-agent: helper" in md and "### Assistant · m" in md and "inner answer" in md
    assert md.count("Tool result") == 0  # shown under its call
    assert '"odd": 1' in md


# ---------------------------------------------------------------- in the built site


@pytest.fixture(scope="module")
def exported_site(tmp_path_factory):
    out = tmp_path_factory.mktemp("exports") / "site"
    report = build_site(EXAMPLE, out, jobs=1, cache_dir=out.parent / "cache", exports=ALL_EXPORTS)
    return report, out


SITE_SUFFIXES = (".aics.json.gz", ".hail.jsonl.gz", ".md.gz")


def test_each_session_page_has_its_exports_beside_it(exported_site, tmp_path):
    report, site = exported_site
    pages = sorted((site / "sessions").glob("*.html"))
    assert len(pages) == report.sessions
    for page in pages:
        stem = page.name[: -len(".html")]
        for suffix in SITE_SUFFIXES:
            assert (site / "sessions" / f"{stem}{suffix}").is_file(), stem + suffix
        assert not list((site / "sessions").glob(f"{stem}.*.json"))  # the downloads: only compressed
        twin = (site / "sessions" / f"{stem}.md").read_bytes()  # the Markdown twin agents read (llms.txt)
        assert twin == gzip.decompress((site / "sessions" / f"{stem}.md.gz").read_bytes())
        plain = tmp_path / f"{stem}.hail.jsonl"
        plain.write_bytes(gzip.decompress((site / "sessions" / f"{stem}.hail.jsonl.gz").read_bytes()))
        back = _read_clean(plain)
        assert back.id == f"hail-{stem}"
        doc = json.loads(gzip.decompress((site / "sessions" / f"{stem}.aics.json.gz").read_bytes()))
        assert aics_problems(doc) == [] and doc["log"]["sessions"][0]["id"] == stem
        assert gzip.decompress((site / "sessions" / f"{stem}.md.gz").read_bytes()).startswith(b"# ")


def test_site_exports_are_deterministic_gzip():
    """mtime 0, no file name, same bytes every time: an unchanged session keeps its files."""
    from sessite.config import SiteConfig
    from sessite.site.view import build_view

    config = SiteConfig(archive=EXAMPLE, output=Path("unused"), exports=ALL_EXPORTS)
    for session in _read(EXAMPLE / "claude-code") + _read(EXAMPLE / "hail"):
        view = build_view(session)
        first, again = list(session_exports(view, config)), list(session_exports(view, config))
        assert [u for u, _ in first] == [f"sessions/{session.id}{s}" for s in SITE_SUFFIXES]
        assert first == again
        for (url, data), fmt in zip(first, ("aics", "hail", "markdown")):
            assert data[:4] == b"\x1f\x8b\x08\x00" and data[4:8] == b"\0\0\0\0", (
                url
            )  # deflate, no FNAME/FEXTRA/FCOMMENT flags, mtime 0
            plain = export_session(session, fmt)
            assert gzip.decompress(data) == plain and (len(data) < len(plain) / 2 or len(plain) < 1000), url


def _joined_text(chunks) -> str:
    pieces = list(chunks)
    assert all(isinstance(p, bytes) for p in pieces)
    return b"".join(pieces).decode("utf-8")


STREAM_ROOTS = [pytest.param(EXAMPLE, id="example-archive"), pytest.param(SAMPLES, id="shared-samples")]


@pytest.mark.parametrize("root", STREAM_ROOTS)
def test_streamed_exports_equal_the_whole_document_serializers(root):
    """The chunk generators give exactly what serializing the whole document at once gives."""
    if not root.is_dir():
        pytest.skip(f"{root} not found")
    sessions = _read(root)
    assert sessions
    for session in sessions:
        assert _joined_text(aics_chunks([session])) == dumps(aics_document([session])), session.id
        assert len(list(aics_chunks([session]))) >= 3  # head, messages, tail: never one string
        assert (
            _joined_text(hail_chunks(session))
            == "".join(dumps(value) + "\n" for _, value in hail_records(session))
            == to_hail(session)
        )
        lines = [line for group in markdown_line_groups(session) for line in group]
        assert _joined_text(markdown_chunks(session)) == "\n".join(lines).rstrip("\n") + "\n" == to_markdown(session), (
            session.id
        )
        for fmt in ("aics", "hail", "markdown"):
            assert gzip.decompress(gzip_bytes(export_chunks(session, fmt))) == export_session(session, fmt)
    if len(sessions) > 1:  # several sessions in one document, as convert writes them
        assert _joined_text(aics_chunks(sessions)) == dumps(aics_document(sessions))


def test_markdown_trailing_newlines_are_trimmed_across_pieces():
    for pieces in (["a\n", "\n", "b\n\n"], ["a", "\n\n", ""], ["\n", "\n"], [], ["a\n\nb", "\n"]):
        text = "".join(pieces)
        assert "".join(trim_end(pieces)) == text.rstrip("\n") + "\n", pieces


def test_gzip_is_the_same_however_the_text_is_cut():
    data = b"".join(b"line %d of some session text\n" % i for i in range(50_000))
    whole = gzip_bytes([data])
    assert gzip_bytes([data[i : i + 777] for i in range(0, len(data), 777)]) == whole
    assert gzip_bytes([data[:10], data[10:]]) == whole and gzip.decompress(whole) == data
    assert gzip.decompress(gzip_bytes([])) == b""


def test_session_pages_link_their_downloads(exported_site):
    from bs4 import BeautifulSoup

    _, site = exported_site
    for page in (site / "sessions").glob("*.html"):
        anchors = BeautifulSoup(page.read_text(), "html.parser").select(".downloads a")
        stem = page.name[: -len(".html")]
        assert {a["href"] for a in anchors} == {f"../sessions/{stem}{s}" for s in SITE_SUFFIXES}  # from the root
        assert all(a["href"].endswith("/" + a["download"]) and "gzip" in a["title"] for a in anchors)
        assert all((page.parent / a["href"]).is_file() for a in anchors)  # saved as <id>.hail.jsonl.gz
        assert [a.get_text() for a in anchors] == ["AICS", "HAIL", "Markdown"]


def test_the_download_links_in_the_template(tmp_path):
    """What the page shows once the build passes the export formats (relative links, beside the page)."""
    from bs4 import BeautifulSoup

    from sessite.render.pages import session_page
    from sessite.render.renderer import Renderer
    from sessite.site.view import build_view

    session = _read(EXAMPLE / "hail")[0]
    page = session_page(build_view(session))
    html = Renderer({"title": "t", "base_url": "", "forge_url": (), "exports": ("aics", "markdown")}).render(page)
    links = [a["href"] for a in BeautifulSoup(html, "html.parser").select(".downloads a")]
    assert links == [f"../sessions/{session.id}.aics.json.gz", f"../sessions/{session.id}.md.gz"]
    assert "(gzip)" in BeautifulSoup(html, "html.parser").select_one(".downloads").get_text()
    assert not BeautifulSoup(
        Renderer({"title": "t", "base_url": "", "forge_url": ()}).render(page), "html.parser"
    ).select(".downloads")


# ---------------------------------------------------------------- sessite convert


def _convert(*args):
    return CliRunner().invoke(main, ["convert", *map(str, args)])


def test_convert_a_folder_to_one_file_per_session(tmp_path):
    result = _convert(EXAMPLE, "--to", "hail", "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    files = sorted((tmp_path / "out").iterdir())
    assert len(files) == 13 and all(f.name.endswith(".hail.jsonl") for f in files)
    assert "converted 13 sessions to hail" in result.output
    mask = os.umask(0o022)
    os.umask(mask)
    assert {f.stat().st_mode & 0o777 for f in files} == {0o666 & ~mask}  # files to share, not owner-only


def test_convert_to_single_files_and_back(tmp_path):
    source = EXAMPLE / "claude-code"
    original = _read(source)[0]
    assert _convert(source, "--to", "aics", "-o", tmp_path / "one.aics.json").exit_code == 0
    assert _convert(tmp_path / "one.aics.json", "--to", "hail", "-o", tmp_path / "two.hail.jsonl").exit_code == 0
    assert _convert(tmp_path / "two.hail.jsonl", "--to", "markdown", "-o", tmp_path / "three.md").exit_code == 0
    assert comparable(_read_clean(tmp_path / "two.hail.jsonl")) == comparable(original)
    assert (tmp_path / "three.md").read_text().startswith("# ")
    # every session of a folder in one AICS document
    assert _convert(EXAMPLE, "--to", "aics", "-o", tmp_path / "all.aics.json").exit_code == 0
    assert len(json.loads((tmp_path / "all.aics.json").read_text())["log"]["sessions"]) == 13


def test_convert_refuses_what_it_cannot_do(tmp_path):
    result = _convert(EXAMPLE, "--to", "hail", "-o", tmp_path / "x.hail.jsonl")
    assert result.exit_code != 0 and "13 sessions found" in result.output and not (tmp_path / "x.hail.jsonl").exists()
    result = _convert(tmp_path, "--to", "hail", "-o", tmp_path / "out")
    assert result.exit_code != 0 and "inside the input folder" in result.output
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "no sessions found" in _convert(empty, "--to", "aics", "-o", tmp_path / "e.aics.json").output


def test_convert_reads_a_gzip_download(exported_site, tmp_path):
    _, site = exported_site
    packed = next((site / "sessions").glob("claude_code-*.hail.jsonl.gz"))
    stem = packed.name[: -len(".hail.jsonl.gz")]
    result = _convert(packed, "--to", "aics", "-o", tmp_path / "one.aics.json")
    assert result.exit_code == 0, result.output
    plain = tmp_path / "plain.hail.jsonl"
    plain.write_bytes(gzip.decompress(packed.read_bytes()))
    assert comparable(_read_clean(tmp_path / "one.aics.json")) == comparable(_read_clean(plain))
    assert _read_clean(plain).id == f"hail-{stem}"
    result = _convert(packed, "--to", "markdown", "-o", "-")
    assert result.exit_code == 0 and f"`{packed.name}`" in result.stdout  # the source is the file given
    (tmp_path / "bad.hail.jsonl.gz").write_bytes(b"not gzip")
    result = _convert(tmp_path / "bad.hail.jsonl.gz", "--to", "aics", "-o", tmp_path / "bad.aics.json")
    assert (
        result.exit_code != 0
        and "not a readable gzip file" in result.output
        and not (tmp_path / "bad.aics.json").exists()
    )


def test_convert_to_standard_output():
    result = CliRunner().invoke(main, ["convert", str(EXAMPLE / "hail"), "--to", "markdown", "-o", "-"])
    assert result.exit_code == 0 and result.stdout.startswith("# ")


def test_a_damaged_extension_falls_back_to_the_plain_reading(tmp_path):
    session = _read(EXAMPLE / "hail")[0]
    lines = to_hail(session).splitlines()
    event = json.loads(lines[1])
    event["attributes"]["sessite"]["kind"] = "no-such-kind"
    lines[1] = json.dumps(event)
    (tmp_path / "d.hail.jsonl").write_text("\n".join(lines) + "\n")
    problems = Problems()
    back = [s for c in discover(tmp_path / "d.hail.jsonl", problems).claims for s in c.reader.read(c.path, problems)]
    assert (
        len(back) == 1
        and back[0].events
        and any(
            "sessite extension unreadable" in p.message and "read as plain HAIL" in p.message for p in problems.items
        )
    )

    doc = to_aics(session)
    messages = doc["log"]["sessions"][0]["messages"]
    del messages[0]["metadata"]  # a message another tool added or rewrote: read the plain way
    (tmp_path / "m.aics.json").write_text(json.dumps(doc))
    back = _read_clean(tmp_path / "m.aics.json")
    assert (
        comparable(back.events[1:]) == comparable(session.events[1:]) and back.events[0].text == session.events[0].text
    )
