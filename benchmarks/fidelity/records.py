"""What the fidelity check knows of a source file, read straight from the file.

Each format has a module in ``formats/`` that walks a file the way the format's
own documentation and real files say it is built, independently of the reader,
and yields one ``Record`` per record: what the reader must account for.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass
class Record:
    """One record of a source file and the content a faithful page must show."""

    path: Path  # the file it is in
    line: int  # 1-based line of a JSONL file, or the record index the reader gives events (Event.line)
    type: str  # the record's type as the format names it ("assistant", "attachment/queued_command", …)
    user_texts: list[str] = field(default_factory=list)  # what the user typed (no injected context)
    assistant_texts: list[str] = field(default_factory=list)  # what the model answered in prose
    calls: list[str] = field(default_factory=list)  # ids of tool calls this record makes
    results: list[str] = field(default_factory=list)  # ids of tool calls this record answers


def json_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(1-based line, object) for each line of a JSONL file that is a JSON object; a blank,
    broken or non-object line is no record (the readers report it as a problem)."""
    try:
        with open(path, "rb") as fh:
            for lineno, raw in enumerate(fh, 1):
                if not raw.strip():
                    continue
                try:
                    obj = json.loads(raw.decode("utf-8", errors="replace").lstrip("\ufeff"))
                except ValueError:
                    continue
                if isinstance(obj, dict):
                    yield lineno, obj
    except OSError:
        return


def read_text(path: Path) -> str | None:
    """The file's text (undecodable bytes replaced, a BOM dropped); None when it cannot be read."""
    try:
        return path.read_bytes().decode("utf-8", errors="replace").lstrip("\ufeff")
    except OSError:
        return None


def json_document(path: Path) -> Any:
    """The JSON document a file holds; None when it cannot be read or is not JSON."""
    text = read_text(path)
    return None if text is None else json_value(text)


def json_value(raw: Any) -> Any:
    """The JSON value a string holds (a database cell, an embedded payload); None for anything else."""
    if not isinstance(raw, str):
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None


def blocks(content: Any) -> list[Any]:
    """A message's content as its list of blocks: a string is one text block, anything else none."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content if isinstance(content, list) else []


def text_parts(content: Any) -> list[str]:
    """The text of each ``{"type": "text", "text": …}`` block of a message's content (a string: itself)."""
    return [
        b["text"]
        for b in blocks(content)
        if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
    ]


# A format module's one function: every record of one file (a main file or a companion).
Enumerate = Callable[[Path], Iterator[Record]]


def sqlite_rows(path: Path, read: Callable[[sqlite3.Connection], T], default: T) -> T:
    """What ``read`` takes from the database at ``path`` as its app last committed it: the file
    and its ``-wal`` are copied to a temporary folder and SQLite itself applies the log there
    (independently of the readers' own log reading, and never beside the source).
    ``default`` when it cannot be read."""
    with tempfile.TemporaryDirectory(prefix="fidelity-db-") as tmp:
        copy = Path(tmp) / path.name
        shutil.copyfile(path, copy)
        wal = path.with_name(path.name + "-wal")
        if wal.is_file():
            shutil.copyfile(wal, Path(tmp) / (path.name + "-wal"))
        try:
            with closing(sqlite3.connect(copy)) as conn:
                conn.text_factory = lambda b: b.decode("utf-8", errors="replace")
                return read(conn)
        except sqlite3.Error:
            return default
