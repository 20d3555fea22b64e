"""The Cursor agent reader: the CLI's chat store and the agent transcripts.

- ``~/.cursor/chats/<md5 of the workspace path>/<agentId>/store.db`` (``cursor-agent``, the
  CLI): a SQLite store of content-addressed blobs, in WAL mode (``store``, ``sdk``; ``wal`` for ``detect``);
- ``~/.cursor/projects/<workspace slug>/agent-transcripts/<id>.jsonl`` (or ``<id>/<id>.jsonl``
  with ``subagents/``) and the older ``<id>.txt``: what the IDE's and the CLI's agent
  write as they go (``transcript``, ``text``).

The IDE's own chat database (``state.vscdb``) is the ``cursor`` reader's.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

from sessite.model import GitRefs, Problems, Session
from sessite.readers._util import SQLITE_HEADER, obj, table_names, text_of
from sessite.readers.base import Reader, Sniff, parse_time
from sessite.readers.files import decode_bytes, read_bytes
from sessite.readers.formats.cursor_agent import sdk, text, transcript
from sessite.readers.formats.cursor_agent.session import CursorBuilder
from sessite.readers.formats.cursor_agent.store import read_store
from sessite.readers.formats.cursor_agent.vocabulary import AGENT, DEFAULT_NAME, NAME
from sessite.readers.formats.cursor_agent.wal import schema_in_wal
from sessite.readers.platform import Platform

_TABLES = {"blobs", "meta"}
_LINE_KEYS = frozenset({"role", "message"})


class CursorAgentReader(Reader):
    name = NAME
    dot_names = (".cursor",)  # found inside an archived project, too
    agent = AGENT

    def detect(self, sniffed: Sniff) -> bool:
        path = sniffed.path
        if sniffed.is_dir:
            return False
        if path.suffix.lower() == ".db":
            return sniffed.raw()[:16] == SQLITE_HEADER and _is_store(path)
        suffix = path.suffix.lower()
        if suffix == ".txt":
            return text.looks_like(sniffed.text(4096))
        if suffix != ".jsonl":
            return False
        lines = list(sniffed.json_lines(5))
        return bool(lines) and all(_transcript_line(line) for line in lines)

    def companions(self, path: Path) -> list[Path]:
        if path.suffix.lower() == ".db":
            return [p for p in (path.with_name(f"{path.name}-wal"), path.with_name(f"{path.name}-shm")) if p.is_file()]
        return transcript.subagent_files(path) if path.suffix == ".jsonl" else []

    def default_folders(self, plat: Platform) -> list[Path]:
        cursor = plat.home / ".cursor"
        return [cursor / "chats", cursor / "projects"]

    def discovery_roots(self, folder: Path) -> tuple[Path, ...]:
        """Of ``~/.cursor/projects`` only each project's ``agent-transcripts`` (the rest is
        terminals, MCP caches and the like)."""
        if folder.name != "projects":
            return (folder,)
        try:
            return tuple(
                sorted(p / "agent-transcripts" for p in folder.iterdir() if (p / "agent-transcripts").is_dir())
            )
        except OSError:
            return ()

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        if path.suffix.lower() == ".db":
            yield from _read_store(path, problems)
        elif path.suffix.lower() == ".txt":
            yield from _read_text(path, problems)
        else:
            yield from _read_transcript(path, problems)


def _is_store(path: Path) -> bool:
    """A database whose tables are cursor-agent's two, ``blobs`` and ``meta`` (in the file, or
    only in its WAL so far): no other format's database is shaped so."""
    tables = table_names(path)
    if tables:
        return tables == _TABLES
    schema = schema_in_wal(path)
    return b"CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)" in schema and b"CREATE TABLE meta" in schema


def _transcript_line(line: dict[str, object]) -> bool:
    """``{"role": …, "message": {"content": …}}`` and nothing else: Claude Code's lines, which
    also hold a ``message``, always carry a ``type`` and ids."""
    return (
        set(line) == _LINE_KEYS and line.get("role") in ("user", "assistant") and "content" in obj(line.get("message"))
    )


def _read_store(path: Path, problems: Problems) -> Iterator[Session]:
    b = CursorBuilder(path, problems)
    try:
        store = read_store(path, problems)
    except (sqlite3.Error, OSError, ValueError) as exc:
        b.report(None, f"cannot read the chat store ({type(exc).__name__}: {exc})")
        return
    for note in store.notes:
        b.report(None, note)
    for message in store.messages:
        sdk.read_message(b, message)
    meta = store.meta
    name = text_of(meta.get("name"))
    b.model(text_of(meta.get("lastUsedModel")))
    facts: dict[str, object] = {}
    if text_of(meta.get("mode")):
        facts["mode"] = meta["mode"]
    if store.context is not None:
        facts["context window"] = f"{store.context[0]:,} of {store.context[1]:,} tokens in use"
    if store.files:
        facts["files written"] = store.files
    yield b.finish(
        text_of(meta.get("agentId")) or path.parent.name,
        started=parse_time(meta.get("createdAt")),
        cwd=store.workspace or b.cwd,
        title=name if name and name != DEFAULT_NAME else b.title,
        git=GitRefs(branches=tuple(b.branches)),
        meta=facts,
    )


def _read_transcript(path: Path, problems: Problems) -> Iterator[Session]:
    b = CursorBuilder(path, problems)
    transcript.read_transcript(b, path)
    agents = tuple(transcript.read_subagents(b, transcript.subagent_files(path)))
    if not b.events and not agents and not b.skipped:
        return
    yield _finish(b, path, (*b.events, *agents))


def _read_text(path: Path, problems: Problems) -> Iterator[Session]:
    data = read_bytes(path, problems)
    if data is None:
        return
    content, replaced = decode_bytes(data)
    b = CursorBuilder(path, problems)
    if replaced:
        b.report(None, "invalid UTF-8; undecodable bytes replaced")
    text.read_text(b, content)
    if b.events or b.skipped:
        yield _finish(b, path, tuple(b.events))


def _finish(b: CursorBuilder, path: Path, events: tuple) -> Session:
    project = path.parent.parent.name if path.parent.name == "agent-transcripts" else None
    if path.parent.parent.name == "agent-transcripts":
        project = path.parent.parent.parent.name
    return b.finish(
        path.stem,
        events=events,
        cwd=b.cwd,
        title=b.title,
        git=GitRefs(branches=tuple(b.branches)),
        meta={"Cursor project folder": project} if project else {},
    )


READER = CursorAgentReader()
