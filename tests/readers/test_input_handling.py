"""Low-level input handling shared by all readers: bad lines, encodings, truncation, timestamps."""

import json
from datetime import UTC, datetime

from sessite.model import Problems
from sessite.readers._util import opt_int, to_int
from sessite.readers.base import parse_time
from sessite.readers.files import iter_json_array, iter_jsonl, load_json


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


# ------------------------------------------------------------------ hostile values (issue 16)


def test_nesting_beyond_the_limit_costs_that_value_only(tmp_path):
    f = tmp_path / "s.jsonl"
    deep = "[" * 100_000 + "]" * 100_000
    f.write_text('{"a":1}\n{"a":2,"deep":' + deep + ',"b":3}\n{"a":4,"deep":' + "[" * 1000 + "]" * 1000 + "}\n")
    problems = Problems(tmp_path)
    got = lines_of(f, problems)
    assert [obj["a"] for _, obj in got] == [1, 2, 4] and got[1][1]["b"] == 3
    assert [str(p) for p in problems.items] == [
        f"s.jsonl:{n}: JSON nested deeper than 100 levels; the deeper values are left out" for n in (2, 3)
    ]
    (tmp_path / "d.json").write_text('{"keep": "me", "deep": ' + deep + "}")
    assert load_json(tmp_path / "d.json", Problems())["keep"] == "me"


def test_a_deep_element_of_a_json_array_keeps_the_rest(tmp_path):
    f = tmp_path / "c.json"
    f.write_text('[{"n": 0},\n' + "[" * 50_000 + "]" * 50_000 + ',\n{"n": 2}]')
    problems = Problems(tmp_path)
    got = [(line, item) for line, item in iter_json_array(f, problems)]
    assert got[0] == (1, {"n": 0}) and got[2] == (3, {"n": 2})
    assert [p.line for p in problems.items] == [2]


def test_numbers_beyond_range_are_read_as_null_with_one_problem(tmp_path):
    f = tmp_path / "s.jsonl"
    f.write_text('{"a":NaN}\n{"a":-Infinity}\n{"a":1e400}\n{"a":' + "9" * 5000 + ',"b":1}\n{"a":1.5e300}\n')
    problems = Problems(tmp_path)
    got = lines_of(f, problems)
    assert [obj["a"] for _, obj in got] == [None, None, None, None, 1.5e300] and got[3][1]["b"] == 1
    assert [str(p) for p in problems.items] == [
        "s.jsonl:1: NaN is not a JSON number; read as null",
        "s.jsonl:2: -Infinity is not a JSON number; read as null",
        "s.jsonl:3: number out of range (1e400); read as null",
        "s.jsonl:4: integer of 5000 digits; read as null",
    ]


def test_lone_surrogates_are_replaced_and_pairs_kept(tmp_path):
    f = tmp_path / "s.jsonl"
    f.write_text('{"id":"\\ud800x","\\udfffk":["\\ud83d\\ude00"],"t":"\\\\ud800"}\n')
    problems = Problems(tmp_path)
    ((_, obj),) = lines_of(f, problems)
    assert obj == {"id": "\ufffdx", "\ufffdk": ["\U0001f600"], "t": "\\ud800"}
    assert [str(p) for p in problems.items] == ["s.jsonl:1: lone UTF-16 surrogate in a string; replaced with U+FFFD"]


def test_parse_time_never_raises():
    for odd in ("²", "１２", 1e400, float("nan"), float("-inf"), 10**400, "9" * 5000, "x" * 10_000, [], "-1"):
        assert parse_time(odd) is None or parse_time(odd).year > 1
    assert parse_time("0001-01-01T00:00:00-05:00") is None  # its UTC would overflow
    assert parse_time("9999-12-31T23:59:59-05:00") is None


def test_counts_from_odd_values():
    odd = (5, 2.9, "12", "²", "-3", float("nan"), float("inf"), 10**400, "9" * 5000)
    assert [to_int(v) for v in odd] == [5, 2, 12] + [0] * 6
    assert [opt_int(v) for v in ("-3", "²", "--3", 1e300, 2.5, 2**63, True)] == [-3] + [None] * 6


def test_problems_are_one_printable_line():
    problems = Problems()
    problems.add("caf\udce9\x1b[31m.jsonl", 3, "bad\nvalue\r\x00 \ud800" + "x" * 5000)
    (text,) = [str(p) for p in problems.items]
    assert text.startswith("caf\\xe9\\x1b[31m.jsonl:3: bad value \\x00 \ufffd")
    assert "\n" not in text and text.encode("utf-8") and len(text) < 1100
