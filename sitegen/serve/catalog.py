"""What the preview server knows about the archive, for agents' RPC tools.

The build hands over one small entry per session (its summary and where it was
read from); a session's events are read again from its source on demand, and
redacted exactly as the build did. Responses are paged and truncated so they
fit an agent's context, and say so.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from sitegen.analyze.redact import Redactor
from sitegen.analyze.session import SessionSummary
from sitegen.build.pipeline import cached_items
from sitegen.build.report import CatalogEntry
from sitegen.model import Event, Problems, Session, walk
from sitegen.readers import registry
from sitegen.readers.base import parse_time
from sitegen.serve.rpc import Param, Registry, Tool, ToolError
from sitegen.site.ref_pages import GitRefsIndex

TEXT_LIMIT = 2000  # characters of one event's text in a response
SEARCH_BUDGET_S = 5.0


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
        index._resolve_candidates()
        with self._lock:
            self._refs = index
        return index

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
        for session in reader.read(entry.path, Problems()):
            if redactor is not None:
                session = redactor.value(session)  # first: a secret in an id changes the id
            if session.id == session_id:
                return session
        raise ToolError(404, f"Session {session_id} is no longer in {entry.summary.source}")

    def iter_sessions(self, entries: list[CatalogEntry]) -> Iterator[Session]:
        """Sessions of the given entries, each source read once."""
        wanted: dict[tuple[str, Path], set[str]] = {}
        for e in entries:
            wanted.setdefault((e.reader, e.path), set()).add(e.summary.id)
        readers = {r.name: r for r in registry()}
        for (name, path), ids in wanted.items():
            reader = readers.get(name)
            if reader is None:
                continue
            redactor = Redactor.for_config(self.config) if self.redact else None
            for session in reader.read(path, Problems()):
                if redactor is not None:
                    session = redactor.value(session)
                if session.id in ids:
                    yield session


# ---------------------------------------------------------------- serialization


def summary_json(s: SessionSummary) -> dict[str, Any]:
    return {
        "id": s.id,
        "title": s.title,
        "agent": s.agent,
        "format": s.format,
        "project": s.project,
        "cwd": s.cwd,
        "models": list(s.models),
        "started": _iso(s.started),
        "ended": _iso(s.ended),
        "duration_s": int(s.duration.total_seconds()) if s.duration else None,
        "events": s.stats.events,
        "messages": s.stats.messages,
        "tool_calls": s.stats.tool_calls,
        "tool_errors": s.stats.tool_errors,
        "tokens": {
            "input": s.stats.usage.input_tokens,
            "output": s.stats.usage.output_tokens,
            "cache_read": s.stats.usage.cache_read_tokens,
            "cache_write": s.stats.usage.cache_write_tokens,
        },
        "url": s.url,
        "source": s.source,
    }


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _clip(text: str, limit: int) -> tuple[str, bool]:
    return (text, False) if len(text) <= limit else (text[:limit] + "…", True)


def event_json(event: Event, depth: int, limit: int) -> dict[str, Any]:
    out: dict[str, Any] = {"id": event.id, "kind": str(event.kind), "time": _iso(event.timestamp)}
    if depth:
        out["depth"] = depth
    if event.text:
        out["text"], clipped = _clip(event.text, limit)
        if clipped:
            out["text_truncated_from"] = len(event.text)
    for name in ("tool_name", "command", "path", "call_id", "title", "model", "exit_code"):
        value = getattr(event, name)
        if value is not None:
            out[name] = value
    if event.category:
        out["category"] = str(event.category)
    if event.is_error:
        out["is_error"] = True
    if event.tool_input is not None:
        out["input"], _ = _clip(
            event.tool_input
            if isinstance(event.tool_input, str)
            else json.dumps(event.tool_input, ensure_ascii=False, default=str),
            limit,
        )
    if event.diff:
        out["diff"], _ = _clip(event.diff, limit)
    if event.usage:
        out["usage"] = {"input": event.usage.input_tokens, "output": event.usage.output_tokens}
    if event.children:
        out["children"] = len(event.children)
    return out


def _flatten(events: tuple[Event, ...], depth: int = 0) -> Iterator[tuple[Event, int]]:
    for event in events:
        yield event, depth
        if event.children:
            yield from _flatten(event.children, depth + 1)


# ---------------------------------------------------------------- tools

_WORD = re.compile(r"[\w][\w.\-/:]*[\w]|[\w]", re.UNICODE)


def _terms(query: str) -> list[str]:
    return [t.lower() for t in _WORD.findall(query)]


def make_registry(catalog: Catalog) -> Registry:
    reg = Registry()

    def sessions_list(
        agent: str | None, project: str | None, since: str | None, until: str | None, limit: int, offset: int
    ) -> dict:
        lo, hi = _time_arg("since", since), _time_arg("until", until)
        rows = [e.summary for e in catalog.entries()]
        rows = [
            s
            for s in rows
            if (not agent or s.agent == agent)
            and (not project or s.project == project)
            and (lo is None or (s.started and s.started >= lo))
            and (hi is None or (s.started and s.started <= hi))
        ]
        rows.sort(key=lambda s: (s.started is None, -(s.started.timestamp() if s.started else 0)))
        page = rows[offset : offset + limit]
        return {
            "total": len(rows),
            "offset": offset,
            "limit": limit,
            "sessions": [summary_json(s) for s in page],
            "next_offset": offset + limit if offset + limit < len(rows) else None,
        }

    def sessions_get(id: str, offset: int, limit: int, max_chars: int) -> dict:  # noqa: A002 - the protocol's name
        session = catalog.load(id)
        flat = list(_flatten(session.events))
        page = flat[offset : offset + limit]
        return {
            "session": summary_json(catalog.entry(id).summary),
            "total_events": len(flat),
            "offset": offset,
            "limit": limit,
            "events": [event_json(e, d, max_chars) for e, d in page],
            "next_offset": offset + limit if offset + limit < len(flat) else None,
            "note": f"text longer than {max_chars} characters is truncated; page with offset",
        }

    def sessions_search(query: str, limit: int, agent: str | None, project: str | None) -> dict:

        terms = _terms(query)
        if not terms:
            raise ToolError(422, "Query has no searchable words")
        entries = [
            e
            for e in catalog.entries()
            if (not agent or e.summary.agent == agent) and (not project or e.summary.project == project)
        ]
        hits: list[tuple[float, str, Event, str]] = []
        started = time.monotonic()
        complete = True
        for session in catalog.iter_sessions(entries):
            for event in walk(session.events):
                text = " ".join(filter(None, (event.text, event.command, event.title, event.tool_name, event.path)))
                lowered = text.lower()
                if not all(t in lowered for t in terms):
                    continue
                score = sum(lowered.count(t) for t in terms) / (1 + len(lowered) / 2000)
                hits.append((score, session.id, event, text))
            if time.monotonic() - started > SEARCH_BUDGET_S:
                complete = False
                break
        hits.sort(key=lambda h: -h[0])
        results = []
        for score, sid, event, text in hits[:limit]:
            results.append(
                {
                    "session": sid,
                    "title": catalog.entry(sid).summary.title,
                    "event": event.id,
                    "kind": str(event.kind),
                    "score": round(score, 3),
                    "snippet": _snippet(text, terms),
                    "url": catalog.entry(sid).summary.url,
                }
            )
        return {
            "query": query,
            "total": len(hits),
            "results": results,
            "complete": complete,
            **(
                {}
                if complete
                else {"note": f"search stopped after {SEARCH_BUDGET_S:.0f}s; narrow it with agent or project"}
            ),
        }

    def refs_list(kind: str | None, repo: str | None, limit: int, offset: int) -> dict:
        index = catalog.refs()
        host = index.forge.default_host
        rows = []
        for data in index.refs.values():
            label = data.key.repo.label(host)
            if (kind and data.key.kind != kind) or (repo and repo.lower() not in label.lower()):
                continue
            rows.append((data.key.sort_key, label, data))
        rows.sort(key=lambda r: (r[1].lower(), r[0]))
        page = rows[offset : offset + limit]
        return {
            "total": len(rows),
            "offset": offset,
            "limit": limit,
            "refs": [
                {
                    "id": d.key.url,
                    "kind": d.key.kind,
                    "name": d.full_name,
                    "repository": label,
                    "repository_known": d.key.repo.known,
                    "pull_request": d.pr,
                    "sessions": len(d.sessions),
                    "forge": index.forge.url(d.key.repo, d.key.kind, d.full_name, d.pr),
                }
                for _, label, d in page
            ],
            "next_offset": offset + limit if offset + limit < len(rows) else None,
        }

    def refs_get(id: str, max_mentions: int) -> dict:  # noqa: A002 - the protocol's name
        index = catalog.refs()
        data = next((d for d in index.refs.values() if d.key.url == id), None)
        if data is None:
            raise ToolError(404, f"Ref not found: {id} (ids come from refs.list)")
        host = index.forge.default_host
        sessions = []
        for sid, seen in data.sessions.items():
            info = index.sessions.get(sid)
            mentions = [
                {
                    "event": m.event_id,
                    "url": link if info and link else None,
                    "snippet": " ".join(f"{m.before}{m.text}{m.after}".split()),
                }
                for link, m in seen.mentions[:max_mentions]
            ]  # link: the event's URL, on its part of a split session
            sessions.append(
                {
                    "session": sid,
                    "title": info.title if info else None,
                    "agent": info.agent if info else None,
                    "started": _iso(info.started) if info else None,
                    "worked_on_it": seen.worked,
                    "mentions": mentions,
                    "more_mentions": max(0, len(seen.mentions) - max_mentions) + seen.more,
                }
            )
        return {
            "id": id,
            "kind": data.key.kind,
            "name": data.full_name,
            "repository": data.key.repo.label(host),
            "repository_known": data.key.repo.known,
            "pull_request": data.pr,
            "forge": index.forge.url(data.key.repo, data.key.kind, data.full_name, data.pr),
            "related": sorted(k.url for k in data.related),
            "sessions": sessions,
        }

    reg.add(
        Tool(
            "refs.list",
            "Git refs (branches, commits, issues/PRs, tags) found in the archive, by repository",
            (
                Param("kind", "string", "branch, commit, issue, mr or tag"),
                Param("repo", "string", "part of the repository name"),
                Param("limit", "integer", "page size", default=50, minimum=1, maximum=500),
                Param("offset", "integer", "page start", default=0, minimum=0),
            ),
            refs_list,
        )
    )
    reg.add(
        Tool(
            "refs.get",
            "One git ref: its sessions and the events that mention it, with snippets",
            (
                Param("id", "string", "ref id from refs.list", required=True),
                Param("max_mentions", "integer", "mentions per session", default=5, minimum=0, maximum=100),
            ),
            refs_get,
        )
    )
    reg.add(
        Tool(
            "sessions.list",
            "List sessions, newest first, filtered by agent, project and start time",
            (
                Param("agent", "string", "agent/tool name, e.g. claude-code"),
                Param("project", "string", "project name"),
                Param("since", "string", "ISO 8601 start time lower bound"),
                Param("until", "string", "ISO 8601 start time upper bound"),
                Param("limit", "integer", "page size", default=20, minimum=1, maximum=200),
                Param("offset", "integer", "page start", default=0, minimum=0),
            ),
            sessions_list,
        )
    )
    reg.add(
        Tool(
            "sessions.get",
            "A session's metadata and events, paginated; long text truncated",
            (
                Param("id", "string", "session id", required=True),
                Param("offset", "integer", "first event", default=0, minimum=0),
                Param("limit", "integer", "events per page", default=50, minimum=1, maximum=200),
                Param(
                    "max_chars",
                    "integer",
                    "characters of text per event",
                    default=TEXT_LIMIT,
                    minimum=50,
                    maximum=20000,
                ),
            ),
            sessions_get,
        )
    )
    reg.add(
        Tool(
            "sessions.search",
            "Full-text search across every session's events, ranked, with snippets",
            (
                Param("query", "string", "words to find", required=True),
                Param("limit", "integer", "results", default=10, minimum=1, maximum=100),
                Param("agent", "string", "only this agent"),
                Param("project", "string", "only this project"),
            ),
            sessions_search,
        )
    )
    return reg


def _time_arg(name: str, value: str | None) -> datetime | None:
    if value is None:
        return None
    parsed = parse_time(value)
    if parsed is None:
        raise ToolError(422, f"Argument {name} must be an ISO 8601 time")
    return parsed


def _snippet(text: str, terms: list[str], width: int = 160) -> str:
    lowered = text.lower()
    at = min((lowered.find(t) for t in terms if lowered.find(t) >= 0), default=0)
    start = max(0, at - width // 3)
    piece = " ".join(text[start : start + width].split())
    return ("…" if start else "") + piece + ("…" if start + width < len(text) else "")
