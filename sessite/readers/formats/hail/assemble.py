"""One HAIL session assembled from its records: the header's facts, the events (merged
sub-agents folded under a SUBAGENT event), the stats line, git references.

Sub-agents merged inline (events sharing a ``task_id``, bracketed by
TaskStart/TaskEnd) are nested under a SUBAGENT event placed where the task
started. Codex-derived files put ``task_id`` only on TaskStart/TaskEnd turn
markers: those stay flat markers.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

from sessite.model import (
    Event,
    GitRefs,
    Kind,
    Problems,
    Session,
    SourceRef,
    ToolCategory,
    Usage,
    make_session_id,
    user_words,
    walk,
)
from sessite.readers import ledger
from sessite.readers._util import text_of
from sessite.readers.base import as_text, parse_time
from sessite.readers.formats.hail.events import EventRecord, read_event
from sessite.readers.formats.hail.state import ReadState
from sessite.readers.formats.hail.token_counts import fold_token_count, is_token_count
from sessite.readers.formats.hail.vocabulary import TASK_MARKERS

# Context keys the session has a field for (or keeps under their own name in meta).
_CONTEXT_FIELDS = ("title", "description", "tags", "related_session_ids", "created_at", "updated_at", "attributes")
_GIT_KEYS = ("branch", "commit_hash", "commit", "repository_url", "remote_url")


class HailAssembly:
    """Accumulates one HAIL session, record by record, and assembles the Session."""

    def __init__(self, path: Path, problems: Problems, json_mode: bool) -> None:
        self.state = ReadState(path, problems, json_mode)
        self.path = path
        self.header: dict[str, Any] | None = None
        self.stats: dict[str, Any] | None = None
        self.records: list[EventRecord] = []
        self.seen_event = False
        self.skipped: Counter[str] = Counter()
        self.header_line: int | None = None
        self.stats_line: int | None = None

    def report(self, line: int | None, message: str) -> None:
        self.state.report(line, message)

    # -- records ------------------------------------------------------------

    def add_header(self, obj: dict[str, Any], line: int | None) -> None:
        if self.header is not None:
            self.report(line, "a second header line; kept as an unknown record")
            extra = Event(
                id=self.state.unique(f"line-{line}", line),
                kind=Kind.UNKNOWN,
                title="extra HAIL header",
                raw=obj,
                line=line,
            )
            self.records.append((extra, None, "header"))
            return
        if self.seen_event:
            self.report(line, "the header is not the first line")
        self.header = obj
        self.header_line = line
        version = obj.get("version")
        if not isinstance(version, str) or not version.startswith("hail-"):
            self.report(line, f"header has no HAIL version (got {version!r})")
        elif not version.startswith("hail-1."):
            self.report(line, f"unsupported HAIL version {version!r} (read as 1.0)")
        agent = obj.get("agent")
        if isinstance(agent, dict):
            model = text_of(agent.get("model"))
            if model and model != "unknown":
                self.state.header_model = model
                self.state.add_model(model)
        elif agent is not None:
            self.report(line, "header 'agent' is not an object")

    def add_event(self, obj: dict[str, Any], line: int) -> None:
        self.seen_event = True
        record = read_event(self.state, obj, line)
        if not is_token_count(record):
            self.records.append(record)
            return
        folded = fold_token_count(self.records, record)
        if folded is None:
            return
        fate, reason = folded
        if fate == "merged":
            ledger.merged(self.path, line, reason)
        else:
            self.skip(line, reason)

    def merged(self, line: int | None, reason: str) -> None:
        """A record another event shows."""
        ledger.merged(self.path, line, reason)

    def skip(self, line: int | None, reason: str) -> None:
        """A record left out (the page lists the reason)."""
        self.skipped[reason] += 1
        ledger.not_shown(self.path, line, reason)

    def add_stats(self, obj: dict[str, Any], line: int | None) -> None:
        if self.stats is not None:
            self.report(line, "a second stats line; the last one is kept")
            self.skip(self.stats_line, "stats line replaced by a later one")
        self.stats = {k: v for k, v in obj.items() if k != "type"}
        self.stats_line = line

    def add_unknown_line(self, obj: dict[str, Any], line: int) -> None:
        self.report(line, f"unknown line type {obj.get('type')!r}; shown as raw JSON")
        self.seen_event = True
        event = Event(
            id=self.state.unique(f"line-{line}", line),
            kind=Kind.UNKNOWN,
            title=f"HAIL record {obj.get('type')!r}",
            raw=obj,
            line=line,
        )
        self.records.append((event, None, "?"))

    # -- the session ----------------------------------------------------------

    def finish(self) -> Session | None:
        header = self.header
        if header is None:
            if not self.records:
                self.report(None, "no HAIL header and no events")
                return None
            self.report(None, "no header line; session id taken from the file name")
            header = {}
        events = self._nest()
        sid = self._session_id(header)
        agent = header.get("agent")
        agent = agent if isinstance(agent, dict) else {}
        context, attributes = self._context(header)
        meta = _header_meta(header, agent, context)
        cwd = attributes.pop("cwd", None)
        if cwd is not None and not isinstance(cwd, str):
            meta["cwd"] = cwd
            cwd = None
        git = self._git(attributes, meta)
        meta.update(attributes)
        if self.stats is not None:
            meta["hail.stats"] = self.stats
        started, ended = self._times(context, events)
        title = context.get("title")
        tool = agent.get("tool")
        self._note_fates(events)
        return Session(
            id=make_session_id("hail", str(sid)),
            source=SourceRef(str(self.path), "hail"),
            agent=tool if isinstance(tool, str) and tool else "hail",
            events=tuple(events),
            title=(user_words(title) or None) if isinstance(title, str) else None,
            started=started,
            ended=ended,
            cwd=cwd or None,
            project=_project(cwd) if cwd else None,
            models=tuple(self.state.models),
            git=git,
            usage=self._stats_usage(),
            meta=meta,
            skipped=dict(self.skipped),
        )

    def _note_fates(self, events: list[Event]) -> None:
        """The fidelity ledger: every event's record is shown; the header and stats lines are
        shown as the session's title and facts."""
        if not ledger.active():
            return
        for event in walk(tuple(events)):
            ledger.shown(self.path, event.line)
        ledger.merged(self.path, self.header_line, "session header (shown as the session's title and facts)")
        ledger.merged(self.path, self.stats_line, "session stats (shown in the session's facts)")

    def _session_id(self, header: dict[str, Any]) -> str | int:
        sid = header.get("session_id")
        if not isinstance(sid, (str, int)) or isinstance(sid, bool) or not str(sid).strip():
            if self.header is not None:
                self.report(None, "header has no session_id; using the file name")
            return _file_stem(self.path)
        return sid

    def _context(self, header: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """The header's context and (a copy of) its attributes, each an object or empty."""
        context = header.get("context")
        if context is not None and not isinstance(context, dict):
            self.report(None, "header 'context' is not an object")
            context = None
        context = context or {}
        attributes = context.get("attributes")
        if attributes is not None and not isinstance(attributes, dict):
            self.report(None, "context.attributes is not an object")
            attributes = None
        return context, dict(attributes or {})

    def _times(self, context: dict[str, Any], events: list[Event]) -> tuple[datetime | None, datetime | None]:
        """Start and end: the context's, else the first and last event timestamps."""
        stamps = [e.timestamp for e in walk(tuple(events)) if e.timestamp]
        started = parse_time(context.get("created_at"))
        ended = parse_time(context.get("updated_at"))
        for key in ("created_at", "updated_at"):
            if context.get(key) is not None and parse_time(context.get(key)) is None:
                self.report(None, f"context.{key} is not a valid timestamp: {context.get(key)!r}")
        return started or (min(stamps) if stamps else None), ended or (max(stamps) if stamps else None)

    def _stats_usage(self) -> Usage | None:
        """The stats line's token totals, when no event reported its own usage."""
        if self.stats is None or self.state.has_event_usage:
            return None
        tokens_in = _count(self.stats.get("total_input_tokens"))
        tokens_out = _count(self.stats.get("total_output_tokens"))
        if tokens_in is None or tokens_out is None or not (tokens_in or tokens_out):
            return None
        return Usage(input_tokens=tokens_in, output_tokens=tokens_out)

    def _git(self, attributes: dict[str, Any], meta: dict[str, Any]) -> GitRefs:
        branches: list[str] = []
        commits: list[str] = []
        repos: list[str] = []

        def add(bucket: list[str], value: Any) -> None:
            if isinstance(value, str) and value.strip() and value != "HEAD" and value not in bucket:
                bucket.append(value.strip())

        git = attributes.pop("git", None)
        if isinstance(git, dict):
            add(branches, git.get("branch"))
            add(commits, git.get("commit_hash") or git.get("commit"))
            add(repos, git.get("repository_url") or git.get("remote_url"))
            for key, value in git.items():
                if key not in _GIT_KEYS:
                    meta[f"git.{key}"] = value
        elif git is not None:
            self.report(None, "context.attributes.git is not an object")
            meta["git"] = git
        branch = attributes.pop("git_branch", None)
        if isinstance(branch, str):
            add(branches, branch)
            if branch == "HEAD":
                meta["git_branch"] = branch  # a detached HEAD is a fact, not a branch
        elif branch is not None:
            meta["git_branch"] = branch
        return GitRefs(branches=tuple(branches), commits=tuple(commits), repos=tuple(repos))

    def _nest(self) -> list[Event]:
        """Fold merged sub-agents (events sharing a task_id besides its markers) into SUBAGENT events."""
        groups: dict[str, list[tuple[Event, str]]] = {}
        for event, task_id, hail_type in self.records:
            if task_id:
                groups.setdefault(task_id, []).append((event, hail_type))
        nested = {tid for tid, members in groups.items() if any(t not in TASK_MARKERS for _, t in members)}
        out: list[Event] = []
        placed: set[str] = set()
        linked: set[str] = set()
        for event, task_id, _ in self.records:
            if task_id is None or task_id not in nested:
                out.append(event)
                continue
            if task_id in placed:
                continue
            placed.add(task_id)
            subagent = self._subagent(task_id, groups[task_id], out, linked)
            if subagent.call_id is not None:
                linked.add(subagent.call_id)
            out.append(subagent)
        return out

    def _subagent(self, task_id: str, members: list[tuple[Event, str]], before: list[Event], linked: set[str]) -> Event:
        """The SUBAGENT event holding a merged sub-agent's events, linked to the call that spawned it."""
        children = tuple(e for e, _ in members)
        start = next((e for e, t in members if t == "TaskStart"), None)
        end = next((e for e, t in members if t == "TaskEnd"), None)
        meta: dict[str, Any] = {"task_id": task_id, "events": sum(1 for _, t in members if t not in TASK_MARKERS)}
        if end is not None and end.text:
            meta["summary"] = end.text
        model = (start.model if start else None) or next((e.model for e in children if e.model), None)
        return Event(
            id=self.state.unique(f"subagent-{task_id}", None),
            kind=Kind.SUBAGENT,
            timestamp=children[0].timestamp,
            title=(start.title if start else None) or task_id,
            model=model,
            call_id=_spawning_call(before, children, linked),
            children=children,
            line=children[0].line,
            meta=meta,
        )


def _spawning_call(before: list[Event], children: tuple[Event, ...], linked: set[str]) -> str | None:
    """The Task/Agent call that spawned a merged sub-agent: the one whose text holds the
    sub-agent's first prompt, else the only unclaimed one before it. HAIL keeps no link."""
    candidates = [
        e
        for e in before
        if e.kind == Kind.TOOL_CALL and e.category == ToolCategory.TASK and e.call_id and e.call_id not in linked
    ]
    prompt = next((c.text.strip() for c in children if c.kind == Kind.USER and c.text.strip()), "")
    for call in reversed(candidates):
        if prompt and (prompt in call.text or prompt in as_text(call.tool_input)):
            return call.call_id
    return candidates[0].call_id if len(candidates) == 1 else None


def _header_meta(header: dict[str, Any], agent: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    """What the header says that the session has no field for."""
    meta: dict[str, Any] = {}
    if header.get("version"):
        meta["hail.version"] = header["version"]
    for key in ("provider", "tool_version"):
        if agent.get(key):
            meta[key] = agent[key]
    for key, value in agent.items():
        if key not in ("provider", "model", "tool", "tool_version"):
            meta[f"agent.{key}"] = value
    for key in ("description", "tags", "related_session_ids"):
        if context.get(key):
            meta[key] = context[key]
    for key, value in context.items():
        if key not in _CONTEXT_FIELDS:
            meta[f"context.{key}"] = value
    for key, value in header.items():
        if key not in ("type", "version", "session_id", "agent", "context"):
            meta[f"hail.header.{key}"] = value
    return meta


def _count(value: Any) -> int | None:
    """A JSON integer (not a boolean), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _file_stem(path: Path) -> str:
    name = path.name
    for suffix in (".hail.jsonl", ".hail.json", ".jsonl", ".json"):
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return path.stem or name


def _project(cwd: str) -> str | None:
    parts = [p for p in re.split(r"[\\/]+", cwd) if p]
    return parts[-1] if parts else None
