"""Low-level input handling shared by all readers: bad lines, encodings, truncation, timestamps."""

import json
from datetime import UTC, datetime

from sitegen.model import Problems
from sitegen.readers.base import iter_json_array, iter_jsonl, parse_time


def lines_of(path, problems):
    return [(n, obj) for n, obj in iter_jsonl(path, problems)]


def test_bad_lines_are_reported_and_the_rest_kept(tmp_path):
    f = tmp_path / "s.jsonl"
    f.write_bytes(b'{"a":1}\nnot json\n[1,2]\n\n{"a":2}\n{"a":3, "trunc')
    problems = Problems(tmp_path)
    got = lines_of(f, problems)
    assert [obj["a"] for _, obj in got] == [1, 2]
    assert [n for n, _ in got] == [1, 5]
    messages = [str(p) for p in problems.items]
    assert messages[0].startswith("s.jsonl:2: malformed JSON")
    assert messages[1].startswith("s.jsonl:3: expected a JSON object")
    assert messages[2].startswith("s.jsonl:6: truncated JSON")
    assert len(messages) == 3


def test_invalid_utf8_is_replaced_and_reported_once_per_line(tmp_path):
    f = tmp_path / "s.jsonl"
    f.write_bytes(b'{"t":"caf\xe9"}\n{"t":"ok"}\n')
    problems = Problems(tmp_path)
    got = lines_of(f, problems)
    assert got[0][1]["t"] == "caf\ufffd" and got[1][1]["t"] == "ok"
    assert [str(p) for p in problems.items] == ["s.jsonl:1: invalid UTF-8; undecodable bytes replaced"]


def test_utf8_bom_is_accepted(tmp_path):
    f = tmp_path / "s.jsonl"
    f.write_bytes(b'\xef\xbb\xbf{"a":1}\n')
    problems = Problems()
    assert lines_of(f, problems) == [(1, {"a": 1})] and not problems.items


def test_binary_junk_does_not_crash(tmp_path):
    f = tmp_path / "junk.jsonl"
    f.write_bytes(bytes(range(256)) * 50)
    problems = Problems()
    assert lines_of(f, problems) == []
    assert problems.items


def test_truncated_json_array_keeps_complete_items(tmp_path):
    f = tmp_path / "c.json"
    items = [{"n": i, "text": "x" * 10} for i in range(3)]
    text = json.dumps(items, indent=1)
    f.write_text(text[: text.rindex('"n": 2') + 8])
    problems = Problems(tmp_path)
    got = [item for _, item in iter_json_array(f, problems)]
    assert [i["n"] for i in got] == [0, 1]
    assert len(problems.items) == 1 and "truncated" in problems.items[0].message and problems.items[0].line


def test_parse_time_variants():
    utc = UTC
    assert parse_time("2026-01-11T22:00:00-0500") == datetime(2026, 1, 12, 3, 0, tzinfo=utc)
    assert parse_time("2026-01-11T22:00:00-05:00") == datetime(2026, 1, 12, 3, 0, tzinfo=utc)
    assert parse_time("2024-10-17T03:28:33.480257Z") == datetime(2024, 10, 17, 3, 28, 33, 480257, tzinfo=utc)
    assert parse_time("2026-02-21T00:39:28.356123456Z").microsecond == 356123
    assert parse_time(1760000000000) == datetime.fromtimestamp(1760000000, utc)
    assert parse_time(1760000000) == datetime.fromtimestamp(1760000000, utc)
    assert parse_time("2026-01-11 22:00:00").tzinfo is not None
    for bad in (None, "", "yesterday", True, {"x": 1}):
        assert parse_time(bad) is None
