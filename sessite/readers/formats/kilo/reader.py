"""The Kilo CLI reader: OpenCode's reading of ``kilo.db`` (or a ``storage`` tree in a ``kilo``
data folder), its sessions named Kilo's."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from sessite.model import Problems, Session
from sessite.readers.base import Sniff
from sessite.readers.formats.opencode.detect import is_db, is_tree
from sessite.readers.formats.opencode.reader import OpenCodeReader
from sessite.readers.platform import Platform

NAME = "kilo"
DB_NAME = "kilo.db"
_OPENCODE_PREFIX = "opencode-"


class KiloReader(OpenCodeReader):
    name = NAME
    agent = NAME

    def detect(self, sniffed: Sniff) -> bool:
        path = sniffed.path
        if path.is_dir():
            return path.parent.name == NAME and is_tree(path)
        return path.name == DB_NAME and is_db(path)

    def default_folders(self, plat: Platform) -> list[Path]:
        """``kilo`` in the XDG data folders (Kilo resolves them as OpenCode does, also on macOS
        and Windows: ``~/.local/share/kilo`` unless ``$XDG_DATA_HOME`` is set)."""
        return [data / NAME for data in plat.data_dirs]

    def discovery_roots(self, folder: Path) -> tuple[Path, ...]:
        """The ``storage`` tree and ``kilo.db`` only: the folder also holds logs, binaries and snapshots."""
        roots = tuple(p for p in (folder / "storage", folder / DB_NAME) if p.is_file() or (p / "session").is_dir())
        return roots or (folder,)

    def holds_nothing(self, sniffed: Sniff) -> str | None:
        """``storage/session_diff/<session>.json``: the files a session changed, no conversation."""
        parent = sniffed.path.parent
        if parent.name == "session_diff" and parent.parent.name == "storage":
            return "Kilo's list of the files a session changed (session_diff): no conversation in it"
        return None

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        for session in super().read_source(path, problems):
            raw = session.id.removeprefix(_OPENCODE_PREFIX)
            yield replace(session, id=f"{NAME}-{raw}", agent=NAME, source=replace(session.source, format=NAME))


READER = KiloReader()
