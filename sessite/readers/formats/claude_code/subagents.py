"""Sub-agents: read their transcripts and nest each one under the call that spawned it.

Sub-agents live in ``<sessionId>/subagents/agent-<id>.jsonl`` (2.1.x) or beside the
main file as flat sidechains (2.0.x). Each becomes a SUBAGENT event placed after the
result of the Task/Agent call that spawned it, found by the agent id the result names,
by the Task prompt the sub-agent starts with, or else by time (it started while the
call ran). A sub-agent no call claims (2.0.x's start-up "Warmup" runs) is placed by
its start time. When only ``agent_progress`` records remain (no sub-agent file), the
sub-agent is rebuilt from the messages they embed. Sub-agents can spawn sub-agents:
the nesting is a tree, guarded against cycles.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple

from sessite.model import Event, Kind, Problems
from sessite.readers import ledger
from sessite.readers._util import Ids, obj, text_of
from sessite.readers.files import iter_jsonl, load_json
from sessite.readers.formats.claude_code.compaction import (
    COMPACTION_AGENT_TITLE,
    compaction_position,
    is_compaction_agent,
)
from sessite.readers.formats.claude_code.flat import agent_id_of
from sessite.readers.formats.claude_code.layout import agent_meta_path
from sessite.readers.formats.claude_code.records import read_stream
from sessite.readers.formats.claude_code.state import Transcript
from sessite.readers.formats.claude_code.vocabulary import TASK_TOOLS

_MAX_DEPTH = 20  # deeper sub-agents are shown flat
_NEVER = datetime.max.replace(tzinfo=UTC)  # a sub-agent without stamps goes last among its ties
_SLACK = timedelta(seconds=2)  # a sub-agent's first record may be stamped a little before its call's
SIDECAR_SHOWN = "sub-agent details (agent-<id>.meta.json, shown with the sub-agent)"
SIDECAR_UNREAD = "sub-agent details file that is not a JSON object"


class SubAgent(NamedTuple):
    transcript: Transcript
    info: dict[str, Any]  # where it came from: "source" and "meta.json", or "rebuilt_from"


class _Slot(NamedTuple):
    """Where a sub-agent goes in its parent's events."""

    position: int  # inserted before the parent's event at this index
    order: int  # ties go by start time, then by the sub-agents' reading order
    agent: SubAgent
    call_id: str | None


def read_agent_files(
    main_path: Path, files: list[Path], file_ids: set[str], problems: Problems, ids: Ids
) -> list[SubAgent]:
    """The sub-agent files of a session, each with its ``.meta.json`` sidecar when there is one."""
    agents: list[SubAgent] = []
    for agent_path in files:
        aid = agent_id_of(agent_path)
        transcript = read_stream(
            Transcript(agent_path, problems, ids, prefix=f"{aid}-", agent_id=aid, agent_files=file_ids),
            iter_jsonl(agent_path, problems),
        )
        info: dict[str, Any] = {
            "source": str(agent_path.relative_to(main_path.parent))
            if agent_path.is_relative_to(main_path.parent)
            else str(agent_path)
        }
        meta_path = agent_meta_path(agent_path)
        if meta_path.is_file():
            meta = load_json(meta_path, problems)
            if isinstance(meta, dict):
                info["meta.json"] = meta
                ledger.merged(meta_path, 1, SIDECAR_SHOWN)
            else:
                transcript.skipped[SIDECAR_UNREAD] += 1
                ledger.not_shown(meta_path, 1, SIDECAR_UNREAD)
        agents.append(SubAgent(transcript, info))
    return agents


def rebuild_from_progress(
    main: Transcript, agents: list[SubAgent], file_ids: set[str], problems: Problems, ids: Ids
) -> None:
    """Append the sub-agents known only from the ``agent_progress`` records that embed their messages.

    A rebuilt sub-agent's own progress records can name further sub-agents: those are rebuilt too.
    """
    pending = [main] + [a.transcript for a in agents]
    rebuilt: set[str] = set()
    while pending:
        holder = pending.pop(0)
        for aid, records in holder.progress.items():
            if aid in file_ids or aid in rebuilt:
                for lineno, _ in records:  # a second copy of a sub-agent already rebuilt
                    holder.merge(lineno, "progress record (a repeat of a sub-agent message shown once)")
                continue
            rebuilt.add(aid)
            transcript = read_stream(
                Transcript(main.path, problems, ids, prefix=f"{aid}-", agent_id=aid, agent_files=file_ids), records
            )
            agents.append(SubAgent(transcript, {"rebuilt_from": "agent_progress records"}))
            pending.append(transcript)
        holder.progress = {}


def assemble(main: Transcript, agents: list[SubAgent], ids: Ids) -> list[Event]:
    """Main events with every sub-agent inserted where it was spawned."""
    return _nest(main, _place(main, agents), 0, ids)


def _place(main: Transcript, agents: list[SubAgent]) -> dict[int, list[_Slot]]:
    """For each parent transcript (by ``id()``), the slots of its sub-agents."""
    everyone = [main] + [a.transcript for a in agents]
    found = [_find_parent(a.transcript, everyone) for a in agents]
    claimed = {call_id for _, call_id in found if call_id}
    for index, sub in enumerate(agents):
        if found[index][0] is None:
            found[index] = _spawned_while(sub.transcript, everyone, claimed)
    slots: dict[int, list[_Slot]] = {}
    parent_of: dict[int, int] = {}
    for order, sub in enumerate(agents):
        agent = sub.transcript
        parent, call_id = found[order]
        if parent is not None and _creates_cycle(id(agent), id(parent), parent_of):
            parent, call_id = None, None
        if parent is None:
            parent = main
            position = (
                compaction_position(main, agent) if is_compaction_agent(agent.agent_id) else _by_time(main, agent)
            )
        elif call_id in parent.results:
            position = parent.results[call_id] + 1
        elif call_id in parent.calls:
            position = parent.calls[call_id].position + 1
        else:
            position = len(parent.events)
        parent_of[id(agent)] = id(parent)
        slots.setdefault(id(parent), []).append(_Slot(position, order, sub, call_id))
    return slots


def _by_time(main: Transcript, agent: Transcript) -> int:
    """Where a sub-agent no call claims goes: before the first main event stamped after its start."""
    if agent.started is None:
        return len(main.events)
    for index, event in enumerate(main.events):
        if event.timestamp is not None and event.timestamp > agent.started:
            return index
    return len(main.events)


def _spawned_while(
    agent: Transcript, everyone: list[Transcript], claimed: set[str]
) -> tuple[Transcript | None, str | None]:
    """The Task call (no other sub-agent claims) that was running when the agent started: the
    latest one begun before it whose result, if any, came after it."""
    if agent.started is None:
        return None, None
    best: tuple[datetime, Transcript, str] | None = None
    for t in everyone:
        if t is agent:
            continue
        for call_id, call in t.calls.items():
            if call.name not in TASK_TOOLS or call_id in claimed:
                continue
            began = t.events[call.position].timestamp
            done = t.events[t.results[call_id]].timestamp if call_id in t.results else None
            if began is None or began - _SLACK > agent.started or (done is not None and done < agent.started):
                continue
            if best is None or began > best[0]:
                best = (began, t, call_id)
    if best is None:
        return None, None
    claimed.add(best[2])
    return best[1], best[2]


def _nest(t: Transcript, slots: dict[int, list[_Slot]], depth: int, ids: Ids) -> list[Event]:
    """A transcript's events with its sub-agents' SUBAGENT events (and theirs, recursively) in place."""
    mine = sorted(slots.get(id(t), []), key=lambda s: (s.position, s.agent.transcript.started or _NEVER, s.order))
    if not mine:
        return t.events
    out: list[Event] = []
    cursor = 0
    for slot in mine:
        out.extend(t.events[cursor : slot.position])
        cursor = max(cursor, slot.position)
        agent = slot.agent.transcript
        children = _nest(agent, slots, depth + 1, ids) if depth < _MAX_DEPTH else agent.events
        out.append(_subagent_event(slot.agent, t, slot.call_id, children, ids))
    out.extend(t.events[cursor:])
    return out


def _creates_cycle(child: int, parent: int, parent_of: dict[int, int]) -> bool:
    seen = set()
    node: int | None = parent
    while node is not None and node not in seen:
        if node == child:
            return True
        seen.add(node)
        node = parent_of.get(node)
    return False


def _find_parent(agent: Transcript, everyone: list[Transcript]) -> tuple[Transcript | None, str | None]:
    """The transcript whose call spawned the agent, and that call's id (None, None when unknown)."""
    aid = agent.agent_id
    if aid:
        for t in everyone:
            if t is not agent and aid in t.agent_links:
                return t, t.agent_links[aid]
    if agent.first_prompt:
        for t in everyone:
            if t is not agent and agent.first_prompt in t.task_prompts:
                return t, t.task_prompts[agent.first_prompt]
    return None, None


def _subagent_event(sub: SubAgent, parent: Transcript, call_id: str | None, children: list[Event], ids: Ids) -> Event:
    """The SUBAGENT event: titled by the Task call's description, facts from the call and the sidecar."""
    agent, info = sub
    aid = agent.agent_id or "agent"
    meta: dict[str, Any] = {"agent_id": aid}
    call = parent.calls.get(call_id or "")
    args = obj(call.args) if call else {}
    sidecar = obj(info.get("meta.json"))
    agent_type = text_of(args.get("subagent_type")) or text_of(sidecar.get("agentType"))
    if agent_type:
        meta["agent_type"] = agent_type
    for key in ("source", "rebuilt_from"):
        if info.get(key):
            meta[key] = info[key]
    for key, value in sidecar.items():
        if key != "agentType" and isinstance(value, (str, int, float, bool)):
            meta[key] = value
    if is_compaction_agent(aid):
        title = COMPACTION_AGENT_TITLE
    else:
        described = text_of(args.get("description")) or text_of(sidecar.get("description")) or agent_type
        title = described or (agent.prompt_title if call_id is None else None) or f"Sub-agent {aid}"
    return Event(
        id=ids.take(f"agent-{aid}"),
        kind=Kind.SUBAGENT,
        timestamp=agent.started,
        title=title,
        children=tuple(children),
        call_id=call_id,
        model=next(iter(agent.models), None),
        meta=meta,
    )
