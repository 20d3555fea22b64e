"""What the preview server knows about the archive, for agents' RPC tools.

The build hands over one small entry per session (its summary and where it was
read from); a session's events are read again from its source on demand, and
redacted exactly as the build did. Responses are paged and truncated so they
fit an agent's context, and say so.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from sessite.analyze.image_metadata import session_without_image_metadata
from sessite.analyze.redact import Redactor
from sessite.model import Problems, Session
from sessite.outputs.ref_pages import GitRefsIndex
from sessite.pipeline.folder_settings import LeaveOut
from sessite.pipeline.pipeline import cached_items
from sessite.pipeline.plan import build_roots, common_root
from sessite.pipeline.report import CatalogEntry
from sessite.readers import registry
from sessite.serve.rpc import ToolError


class Catalog:
    def __init__(self, archive: Path, redact: bool = True, config: Any = None) -> None:
        self.archive = archive
        self.redact = redact
        self.config = config
        self.cache_dir: Path | None = None
        self._entries: dict[str, CatalogEntry] = {}
        self._refs: Any = None
        self._lock = threading.Lock()

    def update(self, entries: list[CatalogEntry], cache_dir: Path | None = None) -> None:
        with self._lock:
            self._entries = {e.summary.id: e for e in entries}
            self.cache_dir = cache_dir
            self._refs = None

    def refs(self) -> Any:
        """The archive's git refs, rebuilt from the last build's cached items (no source is read)."""
        with self._lock:
            if self._refs is not None:
                return self._refs
            entries = list(self._entries.values())
            cache_dir = self.cache_dir

        index = GitRefsIndex(self.config)
        if cache_dir is not None:
            seen: set[tuple[str, Path]] = set()
            for entry in entries:
                if (entry.reader, entry.path) in seen:
                    continue
                seen.add((entry.reader, entry.path))
                items = cached_items(cache_dir, entry.reader, entry.path, "refs")
                for sid, item in items.items():
                    if sid in self._entries:
                        index.add(item)
        index.resolve_candidates()
        with self._lock:
            self._refs = index
        return index

    def _problems(self) -> Problems:
        """Problems rooted at the archive (and the folders ``--discover`` adds), as in the build:
        readers follow no symlink out of them."""
        roots = build_roots(replace(self.config, archive=self.archive)) if self.config else [self.archive.resolve()]
        problems = Problems(common_root(roots), Redactor.scrub_for(self.config))
        for root in roots:
            problems.trust(root if root.is_dir() else root.parent)
        return problems

    def entries(self) -> list[CatalogEntry]:
        with self._lock:
            return list(self._entries.values())

    def entry(self, session_id: str) -> CatalogEntry:
        with self._lock:
            found = self._entries.get(session_id)
        if found is None:
            raise ToolError(404, f"Session not found: {session_id}")
        return found

    def load(self, session_id: str) -> Session:
        """Read one session again from its source, redacted as the build does."""
        entry = self.entry(session_id)
        reader = next((r for r in registry() if r.name == entry.reader), None)
        if reader is None:
            raise ToolError(500, f"No reader {entry.reader}")
        redactor = Redactor.for_config(self.config) if self.redact else None  # the build's patterns and allow-list
        leave = LeaveOut.for_config(self.config)  # hide_events, as the build shows the session
        for session in reader.read_group(entry.sources, self._problems()):
            read_id = session.id
            if redactor is not None:
                session = redactor.value(session)  # first: a secret in an id changes the id
            session = session_without_image_metadata(session)  # as the build publishes it
            kept = leave.session(session, read_id, entry.path, self._problems()) if session.id == session_id else None
            if kept is not None:
                return kept
        raise ToolError(404, f"Session {session_id} is no longer in {entry.summary.source}")

    def iter_sessions(self, entries: list[CatalogEntry]) -> Iterator[Session]:
        """Sessions of the given entries, each source read once."""
        wanted: dict[tuple[str, tuple[Path, ...]], set[str]] = {}
        for e in entries:
            wanted.setdefault((e.reader, e.sources), set()).add(e.summary.id)
        readers = {r.name: r for r in registry()}
        for (name, sources), ids in wanted.items():
            reader = readers.get(name)
            if reader is None:
                continue
            redactor = Redactor.for_config(self.config) if self.redact else None
            leave = LeaveOut.for_config(self.config)
            for session in reader.read_group(sources, self._problems()):
                read_id = session.id
                if redactor is not None:
                    session = redactor.value(session)
                session = session_without_image_metadata(session)
                kept = leave.session(session, read_id, sources[0], self._problems()) if session.id in ids else None
                if kept is not None:
                    yield kept
