"""A Cursor store: composers and bubbles by key, from a database or from JSON dumps of one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sessite.model import Problems
from sessite.readers import ledger
from sessite.readers._util import as_str
from sessite.readers.base import sniff
from sessite.readers.files import load_json
from sessite.readers.formats.cursor.keys import BUBBLE, COMPOSER
from sessite.readers.formats.cursor.records import COPY, Records
from sessite.readers.safejson import loads


class Store:
    """What the session builder asks of a store; values are parsed only when used."""

    path: Path
    folder: str | None = None  # the workspace folder, for a workspace database
    records: Records

    def conversation_first(self, cid: str, file: Path, count: int) -> int:
        """The record number of a composer's first inline bubble (asked once per composer,
        in ``composer_ids`` order, with the length of its inline list)."""
        return self.records.block(file, count)

    def bubble_record(self, cid: str, bid: str) -> tuple[Path, int] | None:
        """The file and record number of a stored bubble (noted as read)."""
        return self.records.bubble(f"{BUBBLE}{cid}:{bid}")

    def composer_ids(self) -> list[str]:
        raise NotImplementedError

    def composer(self, cid: str) -> tuple[Any, Path]:
        """The composer's parsed value and the file it came from."""
        raise NotImplementedError

    def bubbles(self, cid: str) -> dict[str, Any]:
        """bubbleId -> stored value (still encoded; parsed only when used)."""
        raise NotImplementedError

    def item(self, key: str) -> Any:
        return None

    def close(self) -> None:
        pass


def parse_value(value: Any, problems: Problems, path: Path, key: str) -> Any:
    """A stored value as JSON (already-parsed values as they are); None, with a problem, when it is not JSON."""
    if value is None:
        return None
    if isinstance(value, (dict, list)):
        return value
    text = as_str(value)
    notes: list[str] = []
    try:
        parsed = loads(text, notes)
    except ValueError as exc:
        problems.add(path, None, f"cursor: {key}: value is not JSON ({exc.msg if hasattr(exc, 'msg') else exc})")
        return None
    for note in notes:
        problems.add(path, None, f"cursor: {key}: {note}")
    return parsed


def _inline(value: Any) -> list[Any]:
    """A composer value's inline ``conversation`` (a JSON string is decoded), else nothing."""
    if isinstance(value, (str, bytes)):
        try:
            value = loads(as_str(value))
        except ValueError:
            return []
    conversation = value.get("conversation") if isinstance(value, dict) else None
    return conversation if isinstance(conversation, list) else []


# --------------------------------------------------------------------------- JSON dumps


def json_kind(path: Path, head: str | None = None) -> str | None:
    """'composer' for one composerData object, 'dump' for a key/value dump, else None
    (``head``: the file's first 4 KiB when the caller has them)."""
    head = sniff(path, 4096) if head is None else head
    compact = "".join(head.split())
    if compact.startswith(('{"composerData:', '{"bubbleId:')):
        return "dump"
    if (
        compact.startswith("{")
        and '"composerId":' in compact
        and ('"fullConversationHeadersOnly":' in compact or '"conversation":' in compact or '"_v":' in compact)
    ):
        return "composer"
    return None


def json_siblings(path: Path) -> list[Path]:
    """The Cursor JSON files in ``path``'s folder (read together as one store)."""
    try:
        return sorted(
            p for p in path.parent.iterdir() if p.suffix.lower() == ".json" and p.is_file() and json_kind(p) is not None
        )
    except OSError:
        return [path]


def json_companions(path: Path) -> list[Path]:
    """The other Cursor JSON files read with ``path``."""
    return [p for p in json_siblings(path) if p != path]


class JsonStore(Store):
    """Composer objects and key/value dumps in the JSON files of one folder."""

    def __init__(self, path: Path, problems: Problems) -> None:
        self.path = path
        self.problems = problems
        self.values: dict[str, tuple[Any, Path]] = {}
        self.records = Records()
        self.inline_first: dict[str, int] = {}  # composer key -> record number of its first inline bubble
        for file in [path, *json_companions(path)]:
            self._load(file)

    def _load(self, file: Path) -> None:
        doc = load_json(file, self.problems)
        if doc is None:
            return
        if not isinstance(doc, dict):
            self.problems.add(file, None, f"cursor: a {type(doc).__name__}, not an object; skipped")
            return
        if isinstance(doc.get("composerId"), str) and json_kind(file) == "composer":
            self._composer(COMPOSER + doc["composerId"], doc, file)
            return
        self.records.add_bubble_keys(file, (key for key in doc if key.startswith(BUBBLE)))
        for key, value in doc.items():
            if key.startswith(BUBBLE):
                self.values.setdefault(key, (value, file))
            elif key.startswith(COMPOSER):
                self._composer(key, value, file)

    def _composer(self, key: str, value: Any, file: Path) -> None:
        """Keep a composer (the first file's copy) and number the bubbles it keeps inline."""
        count = len(_inline(value))
        first = self.records.block(file, count)
        if key not in self.values:
            self.values[key] = (value, file)
            self.inline_first[key] = first
            return
        for number in range(first, first + count):
            ledger.merged(file, number, COPY)

    def conversation_first(self, cid: str, file: Path, count: int) -> int:
        return self.inline_first.get(COMPOSER + cid, 1)

    def composer_ids(self) -> list[str]:
        return [k[len(COMPOSER) :] for k in self.values if k.startswith(COMPOSER)]

    def composer(self, cid: str) -> tuple[Any, Path]:
        value, file = self.values.get(COMPOSER + cid, (None, self.path))
        return parse_value(value, self.problems, file, COMPOSER + cid), file

    def bubbles(self, cid: str) -> dict[str, Any]:
        prefix = f"{BUBBLE}{cid}:"
        return {key[len(prefix) :]: value for key, (value, _file) in self.values.items() if key.startswith(prefix)}
