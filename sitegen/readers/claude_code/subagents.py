"""Sub-agents: read their transcripts and nest each one under the call that spawned it.

Sub-agents live next to the main file in ``<sessionId>/subagents/agent-<id>.jsonl``.
Each becomes a SUBAGENT event placed after the result of the Task/Agent call
that spawned it (found by the agent id the result names, or by the Task prompt
the sub-agent starts with). When only ``agent_progress`` records remain (no
sub-agent file), the sub-agent is rebuilt from the messages they embed.
Sub-agents can spawn sub-agents: the nesting is a tree, guarded against cycles.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from sitegen.model import Event, Kind, Problems
from sitegen.readers._util import Ids, obj
from sitegen.readers._util import text_of as _str
from sitegen.readers.claude_code.compaction import (
    COMPACTION_AGENT_TITLE,
    compaction_position,
    is_compaction_agent,
)
from sitegen.readers.claude_code.layout import agent_id_from_name, agent_meta_path
from sitegen.readers.claude_code.records import read_stream
from sitegen.readers.claude_code.state import Transcript
from sitegen.readers.files import iter_jsonl, load_json

_MAX_DEPTH = 20  # deeper sub-agents are shown flat


class SubAgent(NamedTuple):
    transcript: Transcript
    info: dict[str, Any]  # where it came from: "source" and "meta.json", or "rebuilt_from"


class _Slot(NamedTuple):
    """Where a sub-agent goes in its parent's events."""

    position: int  # inserted before the parent's event at this index
    order: int  # ties keep the sub-agents' reading order
    agent: SubAgent
    call_id: str | None


def read_agent_files(
    main_path: Path, files: list[Path], file_ids: set[str], problems: Problems, ids: Ids
) -> list[SubAgent]:
    """The sub-agent files of a session, each with its ``.meta.json`` sidecar when there is one."""
    agents: list[SubAgent] = []
    for agent_path in files:
        aid = agent_id_from_name(agent_path)
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
    slots: dict[int, list[_Slot]] = {}
    parent_of: dict[int, int] = {}
    for order, sub in enumerate(agents):
        agent = sub.transcript
        parent, call_id = _find_parent(agent, everyone)
        if parent is not None and _creates_cycle(id(agent), id(parent), parent_of):
            parent, call_id = None, None
        if parent is None:
            parent = main
            position = compaction_position(main, agent) if is_compaction_agent(agent.agent_id) else len(main.events)
        elif call_id in parent.results:
            position = parent.results[call_id] + 1
        elif call_id in parent.calls:
            position = parent.calls[call_id].position + 1
        else:
            position = len(parent.events)
        parent_of[id(agent)] = id(parent)
        slots.setdefault(id(parent), []).append(_Slot(position, order, sub, call_id))
    return slots


def _nest(t: Transcript, slots: dict[int, list[_Slot]], depth: int, ids: Ids) -> list[Event]:
    """A transcript's events with its sub-agents' SUBAGENT events (and theirs, recursively) in place."""
    mine = sorted(slots.get(id(t), []), key=lambda s: (s.position, s.order))
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
    agent_type = _str(args.get("subagent_type")) or _str(sidecar.get("agentType"))
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
        title = _str(args.get("description")) or _str(sidecar.get("description")) or agent_type or f"Sub-agent {aid}"
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
