"""What a first look over a whole session tells: its header, the tree of entries, labels.

Entries form a tree (``id``/``parentId``): moving back in ``/tree`` and going on makes a
new branch, and the session's conversation is the path from its last entry back to the
root. Entries off that path are kept on the page, and marked as on another branch. A
``label`` names an earlier entry; the name goes with that entry.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessite.model import Problems
from sessite.readers._util import text_of
from sessite.readers.files import iter_jsonl


@dataclass
class FileIndex:
    records: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    header: dict[str, Any] = field(default_factory=dict)
    header_line: int | None = None
    off_path: set[str] = field(default_factory=set)  # ids of entries on a branch the session left
    labels: dict[str, str] = field(default_factory=dict)  # entry id -> its (latest) label
    name: str | None = None  # the session's name (``session_info``)


def index_file(path: Path, problems: Problems) -> FileIndex:
    index = FileIndex()
    parents: dict[str, str | None] = {}
    children: dict[str | None, int] = {}
    last: str | None = None
    for line, record in iter_jsonl(path, problems):
        index.records.append((line, record))
        if record.get("type") == "session" and index.header_line is None:
            index.header, index.header_line = record, line
            continue
        entry = text_of(record.get("id"))
        if entry is None:
            continue
        parent = text_of(record.get("parentId"))
        parents.setdefault(entry, parent)
        children[parent] = children.get(parent, 0) + 1
        last = entry
        if record.get("type") == "label" and text_of(record.get("targetId")):
            label = text_of(record.get("label"))
            if label:
                index.labels[record["targetId"]] = label
            else:
                index.labels.pop(record["targetId"], None)
        elif record.get("type") == "session_info" and text_of(record.get("name")):
            index.name = record["name"].strip() or index.name
    if any(count > 1 for count in children.values()) and last is not None:
        on_path: set[str] = set()
        step: str | None = last
        while step is not None and step not in on_path:
            on_path.add(step)
            step = parents.get(step)
        index.off_path = set(parents) - on_path
    return index
