"""The mutants benchmarks/fuzz.py feeds the readers: what a seed is, and every way one is damaged.

Byte damage (flips, a cut, invalid UTF-8, a UTF-16 BOM, a line dropped or doubled), one
JSON value replaced by a hostile one (in a JSONL line, a document or a SQLite cell), a
sweep of wrong types through every place of a file, and a name that is not UTF-8.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SQLITE_HEADER = b"SQLite format 3\x00"


def hostile_values(deepest: int) -> list[tuple[str, str]]:
    """(name, JSON text) of every value a mutant may put in place of a good one."""
    return [
        ("deep-1k", "[" * 1000 + "]" * 1000),
        (f"deep-{deepest // 1000}k", "[" * deepest + "]" * deepest),
        ("deep-objects", '{"a":' * 3000 + "1" + "}" * 3000),
        ("deep-500", '{"k":' * 500 + '"v"' + "}" * 500),
        ("1e400", "1e400"),
        ("-1e400", "-1e400"),
        ("NaN", "NaN"),
        ("Infinity", "Infinity"),
        ("-Infinity", "-Infinity"),
        ("int-5000-digits", "9" * 5000),
        ("int-400-digits", "1" + "0" * 400),
        ("2**64", str(2**64)),
        ("-1", "-1"),
        ("1.5", "1.5"),
        ("0", "0"),
        ("lone-surrogate", '"\\ud800"'),
        ("surrogate-key", '{"\\udfff": "x\\ud800y", "text": "\\udc00"}'),
        ("superscript-two", '"²"'),
        ("bad-date", '"2026-13-45T99:99:99Z"'),
        ("year-1", '"0001-01-01T00:00:00-05:00"'),
        ("year-9999", '"9999-12-31T23:59:59-05:00"'),
        ("true", "true"),
        ("false", "false"),
        ("null", "null"),
        ("empty-string", '""'),
        ("string", '"x"'),
        ("empty-list", "[]"),
        ("empty-object", "{}"),
        ("mixed-list", '[1, "a", null, {}, [], true]'),
        ("long-string", json.dumps("A" * 100_000)),
        ("control-chars", json.dumps("a\x00b\x1b[31m\nc\u2028d\r")),
        ("markup", json.dumps('<script>alert(1)</script><img src=x onerror="alert(2)">')),
    ]


@dataclass(frozen=True)
class Seed:
    """One source of the corpus: what a claim reads, as paths relative to its corpus root."""

    fmt: str
    root: Path
    claim: Path  # relative
    files: tuple[Path, ...]  # relative; the claim's own file first when it is a file


@dataclass
class Mutant:
    seed: Seed
    how: str
    target: Path  # relative: the file damaged (or renamed)
    data: bytes | None = None  # the damaged file's new bytes
    rename: bytes | None = None  # a new last path component (bytes: may not be UTF-8) for the claim


def mutate(seed: Seed, rng: random.Random, deepest: int) -> Mutant:
    """One random mutant of ``seed``."""
    target = seed.files[0] if rng.random() < 0.6 else rng.choice(seed.files)
    data = (seed.root / target).read_bytes()
    roll = rng.random()
    if roll < 0.08:
        return Mutant(seed, "name-not-utf8", seed.claim, rename=_odd_name(seed.claim, rng))
    if roll < 0.65:
        mutated = _mutate_json_in(data, rng, deepest)
        if mutated is not None:
            how, new = mutated
            return Mutant(seed, how, target, new)
    how, op = rng.choice(BYTE_MUTATIONS)
    return Mutant(seed, how, target, op(data, rng))


def _odd_name(claim: Path, rng: random.Random) -> bytes:
    """The claim's name with bytes that are not UTF-8 (and a terminal escape) inside."""
    name = claim.name.encode()
    stem, dot, suffix = name.rpartition(b".") if claim.suffix else (name, b"", b"")
    junk = rng.choice([b"\xff\xfe", b"\xe9", b"\x1b[31m\xc3", b"\xed\xa0\x80"])
    return stem + junk + dot + suffix


def _mutate_json_in(data: bytes, rng: random.Random, deepest: int) -> tuple[str, bytes] | None:
    """One JSON value in the file replaced by a hostile one: in a JSONL line, a document or a SQLite cell."""
    if data.startswith(SQLITE_HEADER):
        return None  # a SQLite store: see _mutate_sqlite (it needs the file on disk)
    text = data.decode("utf-8", errors="replace")
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    if doc is not None:
        out = mutate_json_value(doc, rng, deepest)
        return (f"json:{out[0]}", out[1].encode("utf-8", "surrogatepass")) if out else None
    lines = text.split("\n")
    candidates = [i for i, line in enumerate(lines) if line.strip().startswith("{")]
    rng.shuffle(candidates)
    for index in candidates[:5]:
        try:
            record = json.loads(lines[index])
        except ValueError:
            continue
        out = mutate_json_value(record, rng, deepest)
        if out:
            lines[index] = out[1]
            return f"jsonl:{out[0]}", "\n".join(lines).encode("utf-8", "surrogatepass")
    return None


def mutate_json_value(doc: Any, rng: random.Random, deepest: int) -> tuple[str, str] | None:
    """``doc`` as JSON text with one value replaced by a hostile one: (what went where, text).

    A depth is picked first, then a value at that depth, so the few top-level fields a
    reader relies on most (titles, ids, roles, types) are hit as often as deep content.
    """
    by_depth: dict[int, list[tuple[Any, ...]]] = {}
    for where in _places(doc):
        by_depth.setdefault(len(where), []).append(where)
    if not by_depth:
        return None
    where = rng.choice(by_depth[rng.choice(sorted(by_depth))])
    name, token = rng.choice(hostile_values(deepest))
    return f"{name}@{_where(where)[:60]}", _put(doc, where, token)


# What a sweep puts in every place in turn: the wrong types, and the values readers trip on.
SWEEP = ("empty-list", "empty-object", "true", "1.5", "string", "null", "-1", "mixed-list", "1e400", "lone-surrogate")


def sweep(seed: Seed, rng: random.Random, places: int, deepest: int) -> Iterator[Mutant]:
    """Mutants of the seed's own file with each SWEEP value in each of up to ``places`` places."""
    target = seed.files[0]
    data = (seed.root / target).read_bytes()
    if data.startswith(SQLITE_HEADER):
        return
    text = data.decode("utf-8", errors="replace")
    try:
        docs: list[tuple[int | None, Any]] = [(None, json.loads(text))]
    except ValueError:
        docs = []
        for index, line in enumerate(text.split("\n")):
            try:
                docs.append((index, json.loads(line)))
            except ValueError:
                continue
    spots = [(line, where) for line, doc in docs for where in _places(doc)]
    if len(spots) > places:
        spots = rng.sample(spots, places)
    values = dict(hostile_values(deepest))
    lines = text.split("\n")
    for line, where in spots:
        for name in SWEEP:
            doc = json.loads(text if line is None else lines[line])
            new = _put(doc, where, values[name])
            out = new if line is None else "\n".join(lines[:line] + [new] + lines[line + 1 :])
            label = f"sweep:{name}@{'' if line is None else f'L{line + 1}'}{_where(where)[:60]}"
            yield Mutant(seed, label, target, out.encode("utf-8", "surrogatepass"))


def _places(doc: Any) -> list[tuple[Any, ...]]:
    """The key path of every value in ``doc``."""
    found: list[tuple[Any, ...]] = []
    stack: list[tuple[Any, tuple[Any, ...]]] = [(doc, ())]
    while stack:
        node, where = stack.pop()
        keys = list(node) if isinstance(node, dict) else range(len(node)) if isinstance(node, list) else ()
        for key in keys:
            found.append((*where, key))
            stack.append((node[key], (*where, key)))
    return found


def _put(doc: Any, where: tuple[Any, ...], token: str) -> str:
    """``doc`` as JSON text with the value at ``where`` replaced by the raw JSON ``token``."""
    node = doc
    for key in where[:-1]:
        node = node[key]
    marker = "\x00fuzz-marker\x00"
    node[where[-1]] = marker
    return json.dumps(doc, ensure_ascii=False).replace(json.dumps(marker, ensure_ascii=False), token, 1)


def _where(where: tuple[Any, ...]) -> str:
    return "".join(f".{k}" if isinstance(k, str) else f"[{k}]" for k in where)


def _flip(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if out:
            out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    return bytes(out)


def _cut(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


def _insert(junk: bytes) -> Callable[[bytes, random.Random], bytes]:
    def op(data: bytes, rng: random.Random) -> bytes:
        at = rng.randrange(len(data) + 1)
        return data[:at] + junk + data[at:]

    return op


def _lines(change: str) -> Callable[[bytes, random.Random], bytes]:
    def op(data: bytes, rng: random.Random) -> bytes:
        lines = data.split(b"\n")
        at = rng.randrange(len(lines))
        if change == "drop":
            del lines[at]
        else:
            lines.insert(at, lines[at])
        return b"\n".join(lines)

    return op


BYTE_MUTATIONS: list[tuple[str, Callable[[bytes, random.Random], bytes]]] = [
    ("bytes:flip", _flip),
    ("bytes:cut", _cut),
    ("bytes:invalid-utf8", _insert(b"\xff\xfe\xc3(\xed\xa0\x80")),
    ("bytes:nul", _insert(b"\x00" * 16)),
    ("bytes:utf16-bom", lambda data, rng: b"\xff\xfe" + data),
    ("bytes:drop-line", _lines("drop")),
    ("bytes:double-line", _lines("double")),
    ("bytes:empty", lambda data, rng: b""),
]


def _mutate_sqlite(path: Path, rng: random.Random, deepest: int) -> str | None:
    """One JSON cell of a SQLite file replaced by a hostile value (in place)."""
    try:
        with closing(sqlite3.connect(path)) as conn:
            conn.text_factory = bytes
            cells = _json_cells(conn)
            if not cells:
                return None
            table, column, rowid, doc = rng.choice(cells)
            out = mutate_json_value(doc, rng, deepest)
            if out is None:
                return None
            conn.execute(
                f'UPDATE "{table}" SET "{column}" = ? WHERE rowid = ?', (out[1].encode("utf-8", "surrogatepass"), rowid)
            )
            conn.commit()
            return f"sqlite-json:{out[0]}"
    except sqlite3.Error:
        return None


def _json_cells(conn: sqlite3.Connection) -> list[tuple[str, str, int, Any]]:
    cells = []
    tables = [row[0].decode() for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    for table in tables:
        cursor = conn.execute(f'SELECT rowid, * FROM "{table}"')
        names = [d[0] for d in cursor.description][1:]
        for row in cursor:
            for name, value in zip(names, row[1:]):
                if isinstance(value, bytes) and value[:1] in (b"{", b"["):
                    with suppress(ValueError):
                        cells.append((table, name, row[0], json.loads(value)))
    return cells


def materialize(mutant: Mutant, archive: Path, rng: random.Random | None = None, deepest: int = 10_000) -> Path:
    """Write the mutant's seed (damaged) under ``archive``; returns the path its claim is now at."""
    seed = mutant.seed
    for rel in seed.files:
        dest = archive / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(seed.root / rel, dest)
    target = archive / mutant.target
    if mutant.data is not None:
        target.write_bytes(mutant.data)
    elif mutant.how == "sqlite" and rng is not None:
        mutant.how = _mutate_sqlite(target, rng, deepest) or "sqlite:unchanged"
    claim = archive / seed.claim
    if mutant.rename is not None:
        renamed = claim.parent / os.fsdecode(mutant.rename)
        claim.rename(renamed)
        claim = renamed
    return claim
