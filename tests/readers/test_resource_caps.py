"""Issue 30, the bombs: every input is bounded, and a cap met is one problem line naming the
file and the cap while the rest is read. The caps are lowered here so each bomb is small;
``benchmarks/attacks/bombs.py`` runs the full-size ones through the CLI."""

from __future__ import annotations

import gzip
import json
import sqlite3
import struct
from pathlib import Path

import pytest

from sessite.model import Problems
from sessite.pipeline import convert as convert_module
from sessite.pipeline.convert import ConvertError, convert
from sessite.readers import files, safejson, sqlite_guard, zstd
from sessite.readers.files import iter_json_array, iter_jsonl, load_json
from sessite.readers.formats.zed import database as zed_database
from sessite.readers.sqlite_wal import WalClaimsTooMuch, apply_wal, open_database

LINE = {"type": "user", "sessionId": "s1", "uuid": "u1", "message": {"role": "user", "content": "hi"}}


def messages(problems: Problems) -> list[str]:
    return [p.message for p in problems.items]


def test_a_line_over_the_cap_is_one_problem_and_the_next_lines_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "MAX_LINE_BYTES", 1000)
    path = tmp_path / "s.jsonl"
    long = json.dumps({**LINE, "pad": "x" * 5000})
    path.write_text(f"{json.dumps(LINE)}\n{long}\n{json.dumps(LINE)}\n{long}")  # the last one has no newline
    problems = Problems()
    assert [n for n, _ in iter_jsonl(path, problems)] == [1, 3]
    assert [(p.line, "the cap on one line" in p.message) for p in problems.items] == [(2, True), (4, True)]


def test_a_value_of_too_many_objects_is_refused_in_a_line_a_document_and_an_array(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(safejson, "MAX_CONTAINERS", 100)
    bomb = {"messages": [{"User": {"content": [{"Text": ""}]}}] * 60}  # 181 objects
    small = {"messages": [{"a": "{[" * 200}]}  # many brackets, but in a string: read
    (tmp_path / "s.jsonl").write_text(f"{json.dumps(bomb)}\n{json.dumps(small)}\n")
    problems = Problems()
    assert [n for n, _ in iter_jsonl(tmp_path / "s.jsonl", problems)] == [2]
    assert ["the cap on one value" in m for m in messages(problems)] == [True]

    (tmp_path / "doc.json").write_text(json.dumps(bomb))
    problems = Problems()
    assert load_json(tmp_path / "doc.json", problems) is None
    assert "the cap on one value" in messages(problems)[0]

    (tmp_path / "arr.json").write_text(json.dumps([small, bomb, small]))
    problems = Problems()
    assert len(list(iter_json_array(tmp_path / "arr.json", problems))) == 1
    assert "the cap on one value" in messages(problems)[0]


def test_an_array_is_read_to_the_cap_on_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files, "MAX_RECORDS", 10)
    (tmp_path / "arr.json").write_text(json.dumps([{"n": n} for n in range(25)]))
    problems = Problems()
    assert [item["n"] for _, item in iter_json_array(tmp_path / "arr.json", problems)] == list(range(10))
    assert ["the cap on records per document" in m for m in messages(problems)] == [True]


def test_a_zstd_frame_over_a_cap_says_so_not_damaged(monkeypatch: pytest.MonkeyPatch) -> None:
    if zstd._DECODE is None:
        pytest.skip("no zstd decoder")
    frame = _compress(b"x" * 100_000)
    monkeypatch.setattr(zstd, "MAX_OUTPUT", 50_000)
    assert "the cap on one zstd value" in zstd.unzstd_why(frame)[1]
    monkeypatch.setattr(zstd, "MAX_OUTPUT", 1_000_000)
    quota = zstd.Quota(150_000)
    assert zstd.unzstd_why(frame, quota)[0] == b"x" * 100_000
    assert "one database's zstd values" in zstd.unzstd_why(frame, quota)[1]
    assert zstd.unzstd_why(frame[:-3])[1] == "a damaged zstd frame"


def _compress(data: bytes) -> bytes:
    try:
        import zstandard

        return bytes(zstandard.ZstdCompressor().compress(data))
    except ImportError:  # pragma: no cover - Python 3.14 has compression.zstd
        from compression import zstd as stdlib_zstd  # type: ignore[import-not-found]

        return bytes(stdlib_zstd.compress(data))


def _zed_db(path: Path, threads: list[tuple[str, bytes]], extra: str = "") -> Path:
    conn = sqlite3.connect(path)
    conn.execute(
        "CREATE TABLE threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, updated_at TEXT NOT NULL, "
        f"data_type TEXT NOT NULL, data BLOB NOT NULL, parent_id TEXT, folder_paths TEXT{extra})"
    )
    for n, (kind, data) in enumerate(threads):
        conn.execute(
            "INSERT INTO threads (id, summary, updated_at, data_type, data) VALUES (?, 's', '2026-01-01', ?, ?)",
            (f"t{n}", kind, data),
        )
    conn.commit()
    conn.close()
    return path


def _thread(count: int) -> bytes:
    message = {"User": {"id": "u", "content": [{"Text": "hi"}]}}
    return json.dumps({"title": "t", "updated_at": "2026-01-01T00:00:00Z", "messages": [message] * count}).encode()


def test_a_zed_thread_is_kept_to_the_cap_on_messages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(zed_database, "MAX_RECORDS", 5)
    path = _zed_db(tmp_path / "threads.db", [("json", _thread(12)), ("json", _thread(2))])
    problems = Problems()
    threads = zed_database.read(path, problems)
    assert [len(t.messages) for t in threads] == [5, 2]
    assert ["the cap on messages per thread" in m for m in messages(problems)] == [True]


def test_a_generated_column_is_never_evaluated(tmp_path: Path) -> None:
    """``printf('%.*c', 500000000, 'x')`` would build 500 MB for each row read: it reads as NULL."""
    path = _zed_db(
        tmp_path / "threads.db",
        [("json", _thread(1))],
        ", folder_paths_order TEXT GENERATED ALWAYS AS (printf('%.*c', 500000000, 'x')) VIRTUAL",
    )
    problems = Problems()
    with open_database(path, problems, "zed") as conn:
        assert conn.execute("SELECT folder_paths_order, length(folder_paths_order) FROM threads").fetchall() == [
            (None, None)
        ]
    problems = Problems()
    assert [len(t.messages) for t in zed_database.read(path, problems)] == [1]
    assert [m.endswith("read as empty: a database's own SQL is never run") for m in messages(problems)] == [True]


def test_sqlite_work_and_values_are_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _zed_db(tmp_path / "threads.db", [("json", _thread(1))])
    monkeypatch.setattr(sqlite_guard, "SQLITE_MAX_LENGTH", 10_000)
    with open_database(path, Problems(), "zed") as conn:
        with pytest.raises(sqlite3.DataError, match="the cap on one SQLite value"):
            conn.execute("SELECT zeroblob(20000)").fetchall()
        assert conn.execute("SELECT printf('%.*c', 20000, 'x')").fetchall() == [(None,)]  # SQLite gives up on it
    monkeypatch.setattr(sqlite_guard, "SQLITE_STEP_BUDGET", 1_000_000)
    with open_database(path, Problems(), "zed") as conn:
        endless = "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r"
        with pytest.raises(sqlite3.OperationalError, match="the cap on work per database"):
            conn.execute(endless).fetchall()


def _wal(main: bytes, page_size: int, commit: int) -> bytes:
    """A log of one committed frame (page 1 again) whose commit field says ``commit`` pages."""

    def checksum(data: bytes, s0: int, s1: int) -> tuple[int, int]:
        words = struct.unpack(f">{len(data) // 4}I", data)
        for i in range(0, len(words), 2):
            s0 = (s0 + words[i] + s1) & 0xFFFFFFFF
            s1 = (s1 + words[i + 1] + s0) & 0xFFFFFFFF
        return s0, s1

    header = struct.pack(">6I", 0x377F0683, 3007000, page_size, 0, 7, 9)
    s0, s1 = checksum(header, 0, 0)
    frame_head = struct.pack(">2I", 1, commit)
    s0, s1 = checksum(frame_head, s0, s1)
    s0, s1 = checksum(main[:page_size], s0, s1)
    return (
        header
        + struct.pack(">2I", *checksum(header, 0, 0))
        + frame_head
        + struct.pack(">4I", 7, 9, s0, s1)
        + main[:page_size]
    )


def test_a_log_cannot_claim_more_than_the_files_hold(tmp_path: Path) -> None:
    path = _zed_db(tmp_path / "threads.db", [("json", _thread(1))])
    main = path.read_bytes()
    page_size = struct.unpack(">H", main[16:18])[0]
    assert apply_wal(main, _wal(main, page_size, len(main) // page_size)) is not None  # an honest commit
    with pytest.raises(WalClaimsTooMuch):
        apply_wal(main, _wal(main, page_size, 500_000))  # 2 GB of pages from a few kB
    path.with_name("threads.db-wal").write_bytes(_wal(main, page_size, 500_000))
    problems = Problems()
    assert [len(t.messages) for t in zed_database.read(path, problems)] == [1]  # the main file, read alone
    assert ["the cap on what a log may claim" in m for m in messages(problems)] == [True]


def test_a_gzip_over_the_cap_is_refused_before_it_fills_the_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(convert_module, "MAX_GUNZIP_BYTES", 100_000)
    source = tmp_path / "s.jsonl.gz"
    source.write_bytes(gzip.compress(b" " * 1_000_000))
    with pytest.raises(ConvertError, match="the cap on a gzip file"):
        convert(source, "hail", str(tmp_path / "out.hail.jsonl"))
    assert not (tmp_path / "out.hail.jsonl").exists()
