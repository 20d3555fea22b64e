"""Which of OpenCode's three layouts a path is: a storage tree, a database or an export."""

from __future__ import annotations

from pathlib import Path

from sessite.readers._util import table_names
from sessite.readers.base import sniff
from sessite.readers.walk import iter_files_below

NAME = "opencode"
AGENT = "opencode"
DB_NAME = "opencode.db"
TREE = ("session", "message", "part")  # the storage tree's folders, and the database's tables
DB_SUFFIXES = (".db", ".sqlite", ".sqlite3")
# The stores of OpenCode's forks, read by their own readers (``kilo``): their data folder and database.
FORK_FOLDERS = frozenset({"kilo"})
FORK_DB_NAMES = frozenset({"kilo.db"})


def is_tree(path: Path) -> bool:
    """A folder holding session/ and message/ (and usually part/) with session JSON in it."""
    if not ((path / "session").is_dir() and (path / "message").is_dir()):
        return False
    if path.name == "storage" and path.parent.name == "opencode":
        return True
    try:
        for child in iter_files_below(path / "session", "*.json"):
            head = sniff(child, 4096)
            return '"id"' in head and any(key in head for key in ('"projectID"', '"directory"', '"slug"', '"ses_'))
    except OSError:
        return False
    return False


def is_db_name(path: Path) -> bool:
    return path.name == DB_NAME or path.suffix.lower() in DB_SUFFIXES


def is_db(path: Path) -> bool:
    tables = table_names(path)
    return all(t in tables for t in TREE)


def is_export(head: str) -> bool:
    """``opencode export`` output: ``{"info": {…}, "messages": […]}``."""
    compact = "".join(head.split())
    if not compact.startswith('{"info":{'):
        return False
    return '"messages":' in head or ('"id":"ses_' in compact and ('"projectID"' in head or '"directory"' in head))


def is_export_with_damaged_info(head: str) -> bool:
    """An export whose ``info`` is not an object (a bad value): its messages still say what it is."""
    compact = "".join(head.split())
    return compact.startswith('{"info":') and '"messages":[{"info":{' in compact and '"sessionID":"ses_' in compact
