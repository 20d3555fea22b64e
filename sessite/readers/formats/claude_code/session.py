"""Sessions: a main file with its sub-agents (nested or flat), the flat sidechains of a session
whose main file is missing, or a nested sub-agent file whose parent file is missing."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sessite.model import Event, GitRefs, Problems, Session, SourceRef, make_session_id
from sessite.readers import ledger
from sessite.readers._util import Ids, project_of, text_of
from sessite.readers.files import iter_jsonl, load_json
from sessite.readers.formats.claude_code.compaction import COMPACTION_AGENT_TITLE, is_compaction_agent
from sessite.readers.formats.claude_code.flat import agent_id_of, flat_agents_of_main, flat_session
from sessite.readers.formats.claude_code.layout import agent_files, agent_id_from_name, agent_meta_path, nested_files
from sessite.readers.formats.claude_code.records import read_stream
from sessite.readers.formats.claude_code.state import Transcript
from sessite.readers.formats.claude_code.subagents import (
    SIDECAR_SHOWN,
    SIDECAR_UNREAD,
    SubAgent,
    assemble,
    read_agent_files,
    rebuild_from_progress,
)
from sessite.readers.formats.claude_code.vocabulary import AGENT, ENCODED_PATH_CHAR, NAME, UUID_LIKE, WARMUP_PROMPT

_NOTHING_FOUND = "no Claude Code conversation events found; skipped"
_JOURNAL = "workflow journal record (each agent's run is shown from its own transcript)"
_NEVER = datetime.max.replace(tzinfo=UTC)  # sorts a sub-agent without stamps last


def read_main(path: Path, problems: Problems) -> Session | None:
    """A main session file, every sub-agent (nested or flat beside it) under the call that spawned it."""
    ids = Ids()
    files = agent_files(path) + flat_agents_of_main(path)
    file_ids = {agent_id_of(p) for p in files}
    main = read_stream(Transcript(path, problems, ids, agent_files=file_ids), iter_jsonl(path, problems))
    if not main.events and not files and not main.progress:
        if main.records:
            problems.add(path, None, _NOTHING_FOUND)
        return None
    raw_id = path.stem if UUID_LIKE.match(path.stem) else next(iter(main.session_ids), path.stem)
    return _with_agents(path, raw_id, main, files, file_ids, ids)


def read_flat_group(files: list[Path], problems: Problems) -> Session | None:
    """The flat sidechains of one session whose main file is missing: one session of that id,
    each sidechain a sub-agent of it (the first file named stands for the session)."""
    ids = Ids()
    primary = files[0]
    file_ids = {agent_id_of(p) for p in files}
    main = Transcript(primary, problems, ids, agent_files=file_ids)
    raw_id = flat_session(primary) or primary.stem
    return _with_agents(primary, raw_id, main, files, file_ids, ids)


def _with_agents(
    path: Path, raw_id: str, main: Transcript, files: list[Path], file_ids: set[str], ids: Ids
) -> Session | None:
    """The session of a main transcript (possibly empty) and its sub-agent files."""
    agents = read_agent_files(path, files, file_ids, main.problems, ids)
    rebuild_from_progress(main, agents, file_ids, main.problems, ids)
    _count_journals(main, nested_files(main.path))
    everything = [main] + [a.transcript for a in agents]
    if not any(t.events for t in everything):
        if any(t.records for t in everything):
            main.problems.add(path, None, _NOTHING_FOUND)
        return None
    events = assemble(main, agents, ids)
    if not main.events:
        _borrow_envelope(main, [a.transcript for a in agents])
    meta = session_meta(main, raw_id)
    if agents:
        meta["subagents"] = len(agents)
    if not main.records:
        meta["main_file"] = "empty" if main.path.name.endswith(f"{raw_id}.jsonl") else "missing"
    cwd = launch_cwd(main.cwds, path.parent.name)
    title = main.title or _agents_title(agents, raw_id)
    session = _session(path, raw_id, main=main, events=events, title=title, cwd=cwd, meta=meta, everything=everything)
    # no transcript of its own, only its sub-agents' (a warm-up, or the main file lost): not an index row
    return replace(session, subagent_log=not main.events)


def _count_journals(main: Transcript, nested: list[Path]) -> None:
    """A workflow's ``journal.jsonl`` under ``subagents/`` logs when each of its agents started and
    what it returned: bookkeeping beside the agents' own transcripts, which are shown."""
    for path in nested:
        if path.suffix == ".jsonl" and not path.name.startswith("agent-"):
            for lineno, _ in iter_jsonl(path, main.problems):
                main.skipped[_JOURNAL] += 1
                ledger.not_shown(path, lineno, _JOURNAL)


def _borrow_envelope(main: Transcript, agents: list[Transcript]) -> None:
    """A session known only from its sub-agents takes its cwd, branch and version from theirs."""
    for agent in sorted(agents, key=lambda a: a.started or _NEVER):
        for mine, theirs in (
            (main.cwds, agent.cwds),
            (main.branches, agent.branches),
            (main.versions, agent.versions),
            (main.session_ids, agent.session_ids),
        ):
            for value in theirs:
                mine.setdefault(value)
        main.slug = main.slug or agent.slug


def _agents_title(agents: list[SubAgent], raw_id: str) -> str | None:
    """A session with no prompt of its own: titled by its first sub-agent's task (a warmup says nothing)."""
    for agent in sorted((a.transcript for a in agents), key=lambda a: a.started or _NEVER):
        if agent.prompt_title and agent.first_prompt != WARMUP_PROMPT:
            return f"Sub-agent: {agent.prompt_title}"
    return f"Sub-agents of session {raw_id[:8]}" if agents else None


def read_standalone_agent(path: Path, problems: Problems) -> Session | None:
    """A sub-agent file whose parent session file is not in the archive."""
    ids = Ids()
    aid = agent_id_from_name(path)
    t = read_stream(Transcript(path, problems, ids, agent_id=aid), iter_jsonl(path, problems))
    if not t.events:
        if t.records:
            problems.add(path, None, _NOTHING_FOUND)
        return None
    aid = t.agent_id or aid
    parent_sid = next(iter(t.session_ids), None) or path.parent.parent.name
    meta = session_meta(t, parent_sid)
    meta.pop("session_id", None)
    meta["parent_session_id"] = parent_sid
    meta["agent_id"] = aid
    meta["subagent"] = True
    sidecar_path = agent_meta_path(path)
    if sidecar_path.is_file():
        sidecar = load_json(sidecar_path, problems)
        if isinstance(sidecar, dict):
            ledger.merged(sidecar_path, 1, SIDECAR_SHOWN)
            if text_of(sidecar.get("agentType")):
                meta["agent_type"] = sidecar["agentType"]
        else:
            t.skipped[SIDECAR_UNREAD] += 1
            ledger.not_shown(sidecar_path, 1, SIDECAR_UNREAD)
    if is_compaction_agent(aid):
        title = COMPACTION_AGENT_TITLE
    else:
        title = f"Sub-agent: {t.title}" if t.title else f"Sub-agent {aid}"
    cwd = launch_cwd(t.cwds, path.parent.parent.parent.name)
    raw_id = f"{parent_sid}-agent-{aid}"
    session = _session(path, raw_id, main=t, events=t.events, title=title, cwd=cwd, meta=meta, everything=[t])
    return replace(session, subagent_log=True)


def _session(
    path: Path,
    raw_id: str,
    *,
    main: Transcript,
    events: list[Event],
    title: str | None,
    cwd: str | None,
    meta: dict[str, Any],
    everything: list[Transcript],
) -> Session:
    """The Session: times, models and skipped counts over every transcript; git refs from ``main``."""
    models: dict[str, None] = {}
    skipped: Counter[str] = Counter()
    started: datetime | None = None
    ended: datetime | None = None
    for t in everything:
        models.update(t.models)
        skipped.update(t.skipped)
        if t.started is not None and (started is None or t.started < started):
            started = t.started
        if t.ended is not None and (ended is None or t.ended > ended):
            ended = t.ended
    return Session(
        id=make_session_id(NAME, raw_id),
        source=SourceRef(str(path), NAME),
        agent=AGENT,
        events=tuple(events),
        title=title,
        started=started,
        ended=ended,
        cwd=cwd,
        project=project_of(cwd),
        models=tuple(models),
        git=GitRefs(branches=tuple(main.branches), issues=tuple(main.issues), repos=tuple(main.repos)),
        meta=meta,
        skipped=dict(skipped),
    )


def launch_cwd(cwds: dict[str, None], folder: str) -> str | None:
    """The directory the session was started in.

    The shell's cwd wanders (``cd assets``); the project folder name under
    ``~/.claude/projects`` is the launch directory with every non-alphanumeric
    character turned into ``-``. Failing that, the first cwd or an ancestor of it.
    """
    if not cwds:
        return None
    for cwd in cwds:
        if ENCODED_PATH_CHAR.sub("-", cwd) == folder:
            return cwd
    first = next(iter(cwds))
    ancestors = [c for c in cwds if first.startswith(c.rstrip("/") + "/")]
    return min(ancestors, key=len) if ancestors else first


def session_meta(t: Transcript, raw_id: str) -> dict[str, Any]:
    """Details of the session from its records' envelopes and metadata records."""
    meta: dict[str, Any] = {"session_id": raw_id}
    if len(t.session_ids) > 1 or (t.session_ids and raw_id not in t.session_ids):
        meta["session_ids"] = list(t.session_ids)
    if t.versions:
        meta["version"] = list(t.versions)[-1]
        if len(t.versions) > 1:
            meta["versions"] = list(t.versions)
    if t.slug:
        meta["slug"] = t.slug
    if len(t.cwds) > 1:
        meta["cwds"] = list(t.cwds)
    if t.pull_requests:
        meta["pull_requests"] = list(t.pull_requests)
    meta.update(t.meta)
    return meta
