"""The agents' tools: list, get and search sessions, list and get git refs.

Each tool is a plain function of the catalog and its arguments; ``make_registry``
binds them to one catalog and declares their parameters for both protocols.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import Any

from sessite.analyze.session import SessionSummary
from sessite.model import Event, walk
from sessite.readers.base import parse_time
from sessite.serve.catalog import Catalog
from sessite.serve.rpc import Param, Registry, Tool, ToolError
from sessite.serve.tool_answers import event_json, flatten, iso, summary_json
from sessite.site.urls import ref_url, session_url

TEXT_LIMIT = 2000  # characters of one event's text in a response
SEARCH_BUDGET_S = 5.0

_WORD = re.compile(r"[\w][\w.\-/:]*[\w]|[\w]", re.UNICODE)


def _terms(query: str) -> list[str]:
    return [t.lower() for t in _WORD.findall(query)]


def sessions_list(
    catalog: Catalog,
    agent: str | None,
    project: str | None,
    since: str | None,
    until: str | None,
    limit: int,
    offset: int,
    tool: str | None = None,
) -> dict:
    keep = summary_filter(agent, project, since, until, tool)
    rows = [e.summary for e in catalog.entries() if keep(e.summary)]
    rows.sort(key=lambda s: (s.started is None, -(s.started.timestamp() if s.started else 0)))
    page = rows[offset : offset + limit]
    return {
        "total": len(rows),
        "offset": offset,
        "limit": limit,
        "sessions": [summary_json(s) for s in page],
        "next_offset": offset + limit if offset + limit < len(rows) else None,
    }


def summary_filter(
    agent: str | None, project: str | None, since: str | None, until: str | None, tool: str | None
) -> Callable[[SessionSummary], bool]:
    """Whether a session passes the agents' filters: agent, project, start time, a tool it called."""
    lo, hi = _time_arg("since", since), _time_arg("until", until)
    wanted_tool = tool.casefold() if tool else None

    def keep(s: SessionSummary) -> bool:
        return (
            (not agent or s.agent == agent)
            and (not project or s.project == project)
            and (lo is None or bool(s.started and s.started >= lo))
            and (hi is None or bool(s.started and s.started <= hi))
            and (wanted_tool is None or any(name.casefold() == wanted_tool for name, _ in s.stats.tools))
        )

    return keep


def sessions_get(catalog: Catalog, id: str, offset: int, limit: int, max_chars: int) -> dict:  # noqa: A002 - the protocol's name
    session = catalog.load(id)
    flat = list(flatten(session.events))
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


def sessions_search(catalog: Catalog, query: str, limit: int, agent: str | None, project: str | None) -> dict:

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
                "url": session_url(sid),
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


def refs_list(catalog: Catalog, kind: str | None, repo: str | None, limit: int, offset: int) -> dict:
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
                "id": ref_url(d.key),
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


def refs_get(catalog: Catalog, id: str, max_mentions: int) -> dict:  # noqa: A002 - the protocol's name
    index = catalog.refs()
    data = next((d for d in index.refs.values() if ref_url(d.key) == id), None)
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
                "started": iso(info.started) if info else None,
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
        "related": sorted(ref_url(k) for k in data.related),
        "sessions": sessions,
    }


# The tools agents call: (name, description, parameters, function of the catalog and the arguments).
_TOOLS: tuple[tuple[str, str, tuple[Param, ...], Callable[..., Any]], ...] = (
    (
        "refs.list",
        "Git refs (branches, commits, issues/PRs, tags) found in the archive, by repository",
        (
            Param("kind", "string", "branch, commit, issue, mr or tag"),
            Param("repo", "string", "part of the repository name"),
            Param("limit", "integer", "page size", default=50, minimum=1, maximum=500),
            Param("offset", "integer", "page start", default=0, minimum=0),
        ),
        refs_list,
    ),
    (
        "refs.get",
        "One git ref: its sessions and the events that mention it, with snippets",
        (
            Param("id", "string", "ref id from refs.list", required=True),
            Param("max_mentions", "integer", "mentions per session", default=5, minimum=0, maximum=100),
        ),
        refs_get,
    ),
    (
        "sessions.list",
        "List sessions, newest first, filtered by agent, project and start time",
        (
            Param("agent", "string", "agent/tool name, e.g. claude-code"),
            Param("project", "string", "project name"),
            Param("since", "string", "ISO 8601 start time lower bound"),
            Param("until", "string", "ISO 8601 start time upper bound"),
            Param("limit", "integer", "page size", default=20, minimum=1, maximum=200),
            Param("offset", "integer", "page start", default=0, minimum=0),
            Param("tool", "string", "only sessions that called this tool, e.g. Bash"),
        ),
        sessions_list,
    ),
    (
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
    ),
    (
        "sessions.search",
        "Full-text search across every session's events, ranked, with snippets",
        (
            Param("query", "string", "words to find", required=True),
            Param("limit", "integer", "results", default=10, minimum=1, maximum=100),
            Param("agent", "string", "only this agent"),
            Param("project", "string", "only this project"),
        ),
        sessions_search,
    ),
)


def make_registry(catalog: Catalog) -> Registry:
    """The tools agents call, each bound to the catalog."""
    reg = Registry()
    for name, description, params, function in _TOOLS:
        reg.add(Tool(name, description, params, partial(function, catalog)))
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
