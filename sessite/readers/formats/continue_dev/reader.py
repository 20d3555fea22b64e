"""The Continue reader: which of its files a path is, and where Continue keeps them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from sessite.model import Problems, Session
from sessite.readers.base import Reader, Sniff
from sessite.readers.files import load_json
from sessite.readers.formats.continue_dev.neighbours import INDEX_NAME
from sessite.readers.formats.continue_dev.session import account_dev_data, account_index, session_of
from sessite.readers.formats.continue_dev.vocabulary import AGENT, NAME
from sessite.readers.platform import Platform
from sessite.readers.safejson import raw_decode

# The two keys of a session file (their values may be damaged: the file is still Continue's).
_SESSION_ID = re.compile(r'"sessionId"\s*:')
_HISTORY = re.compile(r'"history"\s*:')


class ContinueReader(Reader):
    """Continue's sessions (``~/.continue/sessions/<id>.json``), their index (``sessions.json``)
    and its dev data (``~/.continue/dev_data/<version>/*.jsonl``, telemetry: counted, not shown)."""

    name = NAME
    dot_names = (".continue",)  # found inside an archived project, too
    agent = AGENT

    def detect(self, sniffed: Sniff) -> bool:
        return _kind(sniffed) is not None

    def default_folders(self, plat: Platform) -> list[Path]:
        """``~/.continue/sessions`` on every system (``%USERPROFILE%`` on Windows), or under
        ``$CONTINUE_GLOBAL_DIR`` when it is set."""
        base = plat.var("CONTINUE_GLOBAL_DIR") or plat.home / ".continue"
        return [base / "sessions"]

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        kind = _kind(Sniff(path))
        if kind == "index":
            account_index(path, problems)
        elif kind == "dev data":
            account_dev_data(path, problems)
        else:
            data = load_json(path, problems)
            if isinstance(data, dict):
                yield session_of(path, data, problems)
            elif data is not None:
                problems.add(path, None, f"Continue: a session file holds a {type(data).__name__}, not an object")


def _kind(sniffed: Sniff) -> str | None:
    """ "session", "index", "dev data", or None for a file that is none of Continue's."""
    suffix = sniffed.path.suffix.lower()
    if suffix == ".jsonl":
        first = next(sniffed.json_lines(1), {})
        shaped = all(isinstance(first.get(k), str) for k in ("eventName", "schema")) and "timestamp" in first
        return "dev data" if shaped else None
    if suffix != ".json":
        return None
    head = sniffed.text().lstrip()
    if head.startswith("{"):
        found = _SESSION_ID.search(head) and _HISTORY.search(head)
        return "session" if found else None
    if head.startswith("[") and sniffed.path.name.endswith(INDEX_NAME):
        body = head[1:].lstrip()
        if body.startswith("]"):
            return "index" if sniffed.path.parent.name == "sessions" else None  # a fresh, empty index
        try:
            first, _ = raw_decode(body)
        except ValueError:
            return None
        if isinstance(first, dict) and isinstance(first.get("sessionId"), str) and "dateCreated" in first:
            return "index"
    return None


READER = ContinueReader()
