"""The archive as the MCP server's tools: search, list, read, problems, git refs; read-only.

Everything comes from one build of the archive (``sessite mcp`` builds it first,
through the build cache): the catalog of published sessions (excluded sessions
are not in it), the site's own search index, ranked as ``search.html`` ranks
(``sessite.search.query``), and the build's problems. A session's events are read
again from its source and redacted, with hidden events left out, exactly as the
preview server's JSON-RPC tools read them (``Catalog.load``); the last few sessions
read stay in memory, so paging through one costs one read. Every answer is bounded:
lists and events come a page at a time with an opaque ``cursor`` for the next page,
long texts are clipped, and a page stops at ``REPLY_CHARS`` characters.
"""

from __future__ import annotations

import base64
import binascii
import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from sessite.analyze.session import SessionSummary
from sessite.config import SiteConfig
from sessite.model import Event
from sessite.search.query import SearchIndex, parse_query, phrases
from sessite.serve.agent_tools import refs_get, refs_list, sessions_list, summary_filter
from sessite.serve.catalog import Catalog
from sessite.serve.rpc import Param, Registry, Tool, ToolError
from sessite.serve.tool_answers import event_json, flatten, iso, summary_json
from sessite.site.urls import COMMIT_LINKS_URL, session_url
from sessite.site.view import SessionView, build_view

REPLY_CHARS = 60_000  # characters of events one read_session page holds at most (about 15k tokens)
SNIPPET_CHARS = 300
SESSIONS_KEPT = 8  # sessions kept read, for paging through them


@dataclass(frozen=True)
class BuildState:
    """What one finished build left for the tools: the site folder and the build's problem lines."""

    site: Path
    problems: tuple[str, ...]


def encode_cursor(kind: str, offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps([kind, offset]).encode()).decode().rstrip("=")


def decode_cursor(kind: str, cursor: str | None) -> int:
    """The offset a cursor of this tool points at (0 without one); 422 for anything else."""
    if not cursor:
        return 0
    try:
        value = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise ToolError(422, "cursor is not one this server gave") from None
    if not (isinstance(value, list) and len(value) == 2 and value[0] == kind and type(value[1]) is int):
        raise ToolError(422, f"cursor is not one {kind} gave")
    return max(0, value[1])


class Archive:
    """The built archive the tools read; ``use`` swaps in a newer build."""

    def __init__(self, config: SiteConfig) -> None:
        self.config = config
        self.catalog = Catalog(config.archive, config.redact, config)
        self._state: BuildState | None = None
        self._index: SearchIndex | None = None
        self._commits: dict[str, dict[str, Any]] | None = None
        self._views: OrderedDict[str, tuple[SessionView, list[tuple[Event, int]]]] = OrderedDict()
        self._lock = threading.Lock()

    def use(self, state: BuildState) -> None:
        with self._lock:
            self._state = state
            self._index = None
            self._commits = None
            self._views.clear()

    @property
    def built(self) -> bool:
        return self._state is not None

    def state(self) -> BuildState:
        if self._state is None:
            raise ToolError(500, "the archive is not built yet")
        return self._state

    def index(self) -> SearchIndex:
        with self._lock:
            if self._index is None:
                site = self.state().site

                def load(url: str) -> bytes | None:
                    path = site / url
                    return path.read_bytes() if path.is_file() else None

                try:
                    self._index = SearchIndex(load)
                except (FileNotFoundError, ValueError, KeyError):
                    raise ToolError(500, "the site has no search index") from None
            return self._index

    def linked_commits(self) -> dict[str, dict[str, Any]]:
        """The build's linked commits (``commits/links.json``: sha -> subject, url, sessions), redacted
        as the commit pages are; read once per build."""
        with self._lock:
            if self._commits is None:
                try:
                    commits = json.loads((self.state().site / COMMIT_LINKS_URL).read_text("utf-8"))["commits"]
                except (OSError, ValueError, KeyError, TypeError):
                    commits = {}
                self._commits = commits if isinstance(commits, dict) else {}
            return self._commits

    def view(self, session_id: str) -> tuple[SessionView, list[tuple[Event, int]]]:
        """A session read, redacted and left out as the build does, with the site's anchors and parts."""
        with self._lock:
            kept = self._views.get(session_id)
            if kept is not None:
                self._views.move_to_end(session_id)
                return kept
        session = self.catalog.load(session_id)
        view = build_view(session, self.config.part_bytes or None)
        kept = (view, list(flatten(session.events)))
        with self._lock:
            self._views[session_id] = kept
            while len(self._views) > SESSIONS_KEPT:
                self._views.popitem(last=False)
        return kept


def _page(kind: str, total: int, offset: int, limit: int) -> dict[str, Any]:
    end = offset + limit
    return {"total": total, "next_cursor": encode_cursor(kind, end) if end < total else None}


def search(
    archive: Archive,
    query: str,
    agent: str | None,
    project: str | None,
    since: str | None,
    until: str | None,
    tool: str | None,
    limit: int,
    cursor: str | None,
) -> dict[str, Any]:
    """The site's search, with its box's syntax ("a phrase", -word, agent:/project:/model:/tool:/
    after:/before:), ranked and grouped as search.html ranks: sessions matching every word first
    (``every_word`` says how many of them there are), then those holding some of the words."""
    offset = decode_cursor("search", cursor)
    index = archive.index()
    entries = archive.catalog.entries()
    by_url = {session_url(e.summary.id): e.summary for e in entries}
    in_order = len(entries) == index.count  # session n of the index is the catalog's n-th (build order)
    keep = summary_filter(agent, project, since, until, tool)
    hits = []
    found, near = index.run(query)
    for hit in found:
        if (agent and index.agent_of(hit.doc) != agent) or (project and index.project_of(hit.doc) != project):
            continue
        if in_order and not keep(entries[hit.doc].summary):
            continue
        hits.append(hit)
    if not parse_query(query):
        note = "no word to look for (stop words and filters alone find nothing; list_sessions filters sessions)"
        return {"query": query, **_page("search", 0, 0, limit), "every_word": 0, "results": [], "note": note}
    every = sum(1 for hit in hits if hit.every_word)  # they come first
    checks_phrase = any(not p.avoid for p in phrases(query))  # each result says whether its text holds them
    results = []
    for hit in hits[offset : offset + limit]:
        head, entry = index.snippet(hit.doc, hit.event)
        summary = by_url.get(str(head.get("u")))
        if summary is None or (not in_order and not keep(summary)):
            continue
        anchor = entry[0] if entry else ""
        page = entry[3] if entry and len(entry) > 3 and isinstance(entry[3], str) else session_url(summary.id)
        text = " ".join(str(entry[2]).split()) if entry else ""
        results.append(
            {
                "session": summary.id,
                "title": summary.title,
                "agent": summary.agent,
                "project": summary.project,
                "started": iso(summary.started),
                "score": round(hit.score, 4),
                "every_word": hit.every_word,
                "event": anchor or None,
                "kind": entry[1] if entry else "session",
                "url": f"{page}#{anchor}" if anchor else session_url(summary.id),
                "snippet": text[:SNIPPET_CHARS] + ("…" if len(text) > SNIPPET_CHARS else ""),
                "matched_terms": list(hit.terms[:10]),
            }
        )
        if checks_phrase:  # true: found word for word (listed first); false: not found; null: not checked
            results[-1]["phrase"] = hit.phrase
    out = {"query": query, **_page("search", len(hits), offset, limit), "every_word": every, "results": results}
    if near:  # no session holds the words: the index's nearest terms, as the search page offers them
        out["nearest"] = [{"word": word, "terms": terms} for word, terms in near]
    return out


def list_sessions(
    archive: Archive,
    agent: str | None,
    project: str | None,
    since: str | None,
    until: str | None,
    tool: str | None,
    limit: int,
    cursor: str | None,
) -> dict[str, Any]:
    """Sessions newest first, filtered (the JSON-RPC ``sessions.list``), paged by cursor."""
    offset = decode_cursor("list_sessions", cursor)
    found = sessions_list(archive.catalog, agent, project, since, until, limit, offset, tool)
    return {
        **_page("list_sessions", found["total"], offset, limit),
        "sessions": found["sessions"],
    }


def read_session(
    archive: Archive,
    id: str,
    event: str | None,
    limit: int,
    max_chars: int,
    cursor: str | None,  # noqa: A002
) -> dict[str, Any]:
    """A session's events from ``cursor`` (or from the event with anchor ``event``), a page at a time."""
    view, flat = archive.view(id)
    offset = decode_cursor(f"read_session:{id}", cursor)
    if event and not cursor:
        anchors = {a: e for e, a in view.anchors.items()}
        wanted = anchors.get(event.lstrip("#"))
        offset = next((i for i, (e, _) in enumerate(flat) if e.id == wanted), -1)
        if offset < 0:
            raise ToolError(404, f"no event {event} in session {id} (anchors come from read_session or search)")
    events: list[dict[str, Any]] = []
    used = 0
    end = offset
    for e, depth in flat[offset : offset + limit]:
        item = event_json(e, depth, max_chars)
        anchor = view.anchors.get(e.id)
        if anchor:
            item["anchor"] = anchor
            item["url"] = view.event_url(e.id)
        size = len(json.dumps(item, ensure_ascii=False, default=str))
        if events and used + size > REPLY_CHARS:
            break
        events.append(item)
        used += size
        end += 1
    out: dict[str, Any] = {}
    if offset == 0:
        out["session"] = summary_json(view.summary) | {"git": _git(view.summary)}
    kind = f"read_session:{id}"
    out |= {
        "total_events": len(flat),
        "first": offset,
        "events": events,
        "next_cursor": encode_cursor(kind, end) if end < len(flat) else None,
        "note": f"text over {max_chars} characters is clipped; pages stop at {REPLY_CHARS} characters",
    }
    return out


def _git(s: SessionSummary) -> dict[str, list[str]]:
    git = s.git
    return {
        "branches": list(git.branches),
        "commits": list(git.commits),
        "issues": list(git.issues),
        "tags": list(git.tags),
        "repos": list(git.repos),
    }


def problems(archive: Archive, limit: int, cursor: str | None) -> dict[str, Any]:
    """The build's problems, one ``path:line: message`` line each."""
    offset = decode_cursor("problems", cursor)
    lines = archive.state().problems
    return {**_page("problems", len(lines), offset, limit), "problems": list(lines[offset : offset + limit])}


def list_refs(archive: Archive, kind: str | None, repo: str | None, limit: int, cursor: str | None) -> dict[str, Any]:
    """Git refs (commits, branches, issues, tags) the sessions mention (the JSON-RPC ``refs.list``)."""
    offset = decode_cursor("list_refs", cursor)
    found = refs_list(archive.catalog, kind, repo, limit, offset)
    return {**_page("list_refs", found["total"], offset, limit), "refs": found["refs"]}


def get_ref(archive: Archive, id: str, max_mentions: int, limit: int, cursor: str | None) -> dict[str, Any]:  # noqa: A002
    """One git ref and the sessions that mention or worked on it (the JSON-RPC ``refs.get``), a page of them."""
    offset = decode_cursor(f"get_ref:{id}", cursor)
    found = refs_get(archive.catalog, id, max_mentions)
    sessions = found.pop("sessions")
    end = offset + limit
    return found | {
        "total_sessions": len(sessions),
        "sessions": sessions[offset:end],
        "next_cursor": encode_cursor(f"get_ref:{id}", end) if end < len(sessions) else None,
    }


def _linked_commits(archive: Archive) -> dict[str, dict[str, Any]]:
    """An error when the archive was built without a repository, else ``Archive.linked_commits``."""
    if not archive.config.repos:
        raise ToolError(422, "no repository: start sessite mcp with --repo PATH (or repos = [...] in sessite.toml)")
    return archive.linked_commits()


def session_commits(archive: Archive, id: str, limit: int, cursor: str | None) -> dict[str, Any]:  # noqa: A002
    """The commits linked to a session (``--repo``), oldest first, each with the evidence for the link."""
    offset = decode_cursor(f"session_commits:{id}", cursor)
    found = []
    for sha, commit in sorted(_linked_commits(archive).items(), key=lambda item: str(item[1].get("authored"))):
        link = next((x for x in commit.get("sessions", ()) if x.get("id") == id), None)
        if link is not None:
            found.append({"sha": sha, **{k: v for k, v in commit.items() if k != "sessions"}, "link": link})
    return {**_page(f"session_commits:{id}", len(found), offset, limit), "commits": found[offset : offset + limit]}


def commit_sessions(archive: Archive, sha: str) -> dict[str, Any]:
    """A commit (its full sha or a prefix of 7 or more) and the sessions linked to it, with the evidence."""
    prefix = sha.strip().lower()
    if len(prefix) < 7 or any(c not in "0123456789abcdef" for c in prefix):
        raise ToolError(422, "sha: 7 to 40 hexadecimal digits")
    commits = _linked_commits(archive)
    matches = [full for full in commits if full.startswith(prefix)]
    if not matches:
        raise ToolError(404, f"no session is linked to a commit {prefix}")
    if len(matches) > 1:
        raise ToolError(422, f"{prefix} names {len(matches)} commits: give more of the sha")
    commit = commits[matches[0]]
    titles = {e.summary.id: e.summary for e in archive.catalog.entries()}
    sessions = []
    for link in commit.get("sessions", ()):
        summary = titles.get(str(link.get("id")))
        title = {"title": summary.title, "agent": summary.agent} if summary is not None else {}
        sessions.append({**link, **title})
    return {"sha": matches[0], **{k: v for k, v in commit.items() if k != "sessions"}, "sessions": sessions}


_CURSOR = Param("cursor", "string", "next_cursor from the previous page")
_FILTERS = (
    Param("agent", "string", "only this agent, e.g. claude-code"),
    Param("project", "string", "only this project"),
    Param("since", "string", "sessions started at or after this ISO 8601 time"),
    Param("until", "string", "sessions started at or before this ISO 8601 time"),
    Param("tool", "string", "only sessions that called this tool, e.g. Bash"),
)

TOOLS: tuple[tuple[str, str, tuple[Param, ...], Callable[..., Any]], ...] = (
    (
        "search",
        "Full-text search of the archive's sessions, ranked as the site's search page ranks them: "
        "sessions matching every word first (every_word: how many; each result says), then those with "
        "some of the words; each result names the session, the event it is found at (anchor and site "
        "URL) and a snippet",
        (
            Param(
                "query",
                "string",
                'words to find, as in the site\'s search box: "a phrase" (its words required; the '
                "sessions where they are found side by side come first, each result's phrase says), -word or "
                '-"a phrase" (left out), agent:NAME, project:NAME, model:NAME, tool:NAME (a part of the '
                "name will do), after:DAY, before:DAY (YYYY, YYYY-MM or YYYY-MM-DD)",
                required=True,
            ),
            *_FILTERS,
            Param("limit", "integer", "results per page", default=10, minimum=1, maximum=50),
            _CURSOR,
        ),
        search,
    ),
    (
        "list_sessions",
        "List the archive's sessions, newest first, with title, agent, project, times, models and counts",
        (*_FILTERS, Param("limit", "integer", "sessions per page", default=20, minimum=1, maximum=100), _CURSOR),
        list_sessions,
    ),
    (
        "read_session",
        "Read a session's events in order, a page at a time (the first page also has its summary and "
        "git refs); start at an event anchor from search, continue with next_cursor",
        (
            Param("id", "string", "session id (from list_sessions or search)", required=True),
            Param("event", "string", "start at this event anchor, e.g. e12"),
            Param("limit", "integer", "events per page", default=50, minimum=1, maximum=200),
            Param("max_chars", "integer", "characters of text per event", default=2000, minimum=50, maximum=20000),
            _CURSOR,
        ),
        read_session,
    ),
    (
        "problems",
        "The problems the build found in the archive (unreadable lines, unknown records), one line each",
        (Param("limit", "integer", "lines per page", default=100, minimum=1, maximum=500), _CURSOR),
        problems,
    ),
    (
        "list_refs",
        "Git refs the sessions mention or worked on (commits, branches, issues/PRs, tags), by repository",
        (
            Param("kind", "string", "commit, branch, issue, mr or tag"),
            Param("repo", "string", "part of the repository name"),
            Param("limit", "integer", "refs per page", default=50, minimum=1, maximum=500),
            _CURSOR,
        ),
        list_refs,
    ),
    (
        "get_ref",
        "One git ref (e.g. a commit) and the sessions that mention or worked on it, with snippets",
        (
            Param("id", "string", "ref id from list_refs", required=True),
            Param("max_mentions", "integer", "mentions per session", default=5, minimum=0, maximum=50),
            Param("limit", "integer", "sessions per page", default=20, minimum=1, maximum=100),
            _CURSOR,
        ),
        get_ref,
    ),
    (
        "session_commits",
        "The commits a session made (needs --repo): each with its subject, page URL, the agent-written "
        "share and the evidence for the link (kinds, confidence, the turn that made it)",
        (
            Param("id", "string", "session id (from list_sessions or search)", required=True),
            Param("limit", "integer", "commits per page", default=20, minimum=1, maximum=100),
            _CURSOR,
        ),
        session_commits,
    ),
    (
        "commit_sessions",
        "The sessions that made a commit (needs --repo), with the evidence for each link",
        (Param("sha", "string", "the commit's sha, or 7 or more of its first digits", required=True),),
        commit_sessions,
    ),
)


def make_tools(archive: Archive) -> Registry:
    """The MCP tools, validated and called through the same registry as the JSON-RPC tools."""
    reg = Registry()
    for name, description, params, function in TOOLS:
        reg.add(Tool(name, description, params, partial(function, archive)))
    return reg


def input_schema(tool: Tool) -> dict[str, Any]:
    """A tool's parameters as the JSON Schema MCP declares them with."""
    props: dict[str, Any] = {}
    for p in tool.params:
        prop: dict[str, Any] = {"type": p.type, "description": p.description}
        if p.default is not None:
            prop["default"] = p.default
        if p.minimum is not None:
            prop["minimum"] = p.minimum
        if p.maximum is not None:
            prop["maximum"] = p.maximum
        props[p.name] = prop
    return {
        "type": "object",
        "properties": props,
        "required": [p.name for p in tool.params if p.required],
        "additionalProperties": False,
    }
