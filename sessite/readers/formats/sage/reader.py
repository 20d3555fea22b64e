"""The sage Reader: a project folder, a REPL session file, or a loose conversation file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from sessite.model import Problems, Session
from sessite.readers.base import Reader, Sniff
from sessite.readers.formats.sage.detect import (
    CONVERSATION,
    HISTORY,
    METADATA,
    history_files,
    is_project_dir,
    is_session_file,
    looks_like_sage_lines,
)
from sessite.readers.formats.sage.messages import NAME
from sessite.readers.formats.sage.sessions import read_conversation, read_project, read_session_file
from sessite.readers.platform import Platform


class SageReader(Reader):
    name = NAME
    claims_directories = True
    claims_files = True  # REPL session files and loose conversation files
    agent = NAME

    def detect(self, sniffed: Sniff) -> bool:
        path = sniffed.path
        if path.is_dir():
            return is_project_dir(path)
        suffix = path.suffix.lower()
        if suffix == ".json":
            return is_session_file(sniffed.text())
        if suffix == ".jsonl" and (path.name == CONVERSATION or path.parent.name == HISTORY):
            return looks_like_sage_lines(sniffed)
        return False

    def companions(self, path: Path) -> list[Path]:
        if not path.is_dir():
            return []
        found = [p for p in (path / CONVERSATION, path / METADATA) if p.is_file()]
        return found + history_files(path)

    def default_folders(self, plat: Platform) -> list[Path]:
        """``projects`` and ``sessions`` in sage's folder: in ``~/.emacs.d``, ``~/.config/emacs``, or ``~/.sage``."""
        bases = (plat.home / ".emacs.d" / "sage", plat.home / ".config" / "emacs" / "sage", plat.home / ".sage")
        return [base / part for base in bases for part in ("projects", "sessions")]

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        if path.is_dir():
            yield from read_project(path, problems)
        elif path.suffix.lower() == ".json":
            session = read_session_file(path, problems)
            if session is not None:
                yield session
        else:
            # A conversation file outside a project folder (its folder stands in for the project).
            if path.parent.name == HISTORY:
                key, project_dir = f"{path.parent.parent.name}/history/{path.stem}", path.parent.parent
            else:
                key, project_dir = f"{path.parent.name}/{path.stem}", path.parent
            yield read_conversation(path, key, problems, project_dir=project_dir, metadata=None)


READER = SageReader()
