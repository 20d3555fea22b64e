"""A team config: the team (name, description, lead, the lead's session) and its members.

``config.json`` is ``{name, description, createdAt, leadAgentId, leadSessionId, members: [...]}``;
each member ``{agentId, name, agentType, model, prompt?, color?, planModeRequired?, joinedAt,
tmuxPaneId, cwd, subscriptions, backendType?}``. Records, for the fidelity ledger: 1 is the team,
1 + n its n-th member. A copy of the config (a later snapshot) adds the members it alone has.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sessite.model import Event, Kind
from sessite.readers._util import named, shown
from sessite.readers.formats.claude_teams.state import TeamBuilder
from sessite.readers.formats.claude_teams.vocabulary import (
    LEAD_SESSION_PREFIX,
    LEAD_TYPES,
    MEMBER_SHOWN,
    NOT_OBJECT_MEMBER,
    SAME_MEMBER,
    SAME_TEAM,
)

_TEAM_KEYS = frozenset({"name", "description", "createdAt", "leadAgentId", "leadSessionId", "members"})


def read_config(b: TeamBuilder, path: Path, doc: dict[str, Any], first: bool) -> None:
    """The team's facts (the first copy's win) and each member not seen in an earlier copy."""
    _facts(b, path, doc)
    if not first:
        b.merge_at(path, 1, SAME_TEAM)
    members = doc.get("members")
    if members is None:
        return
    if not isinstance(members, list):
        b.problem(path, 1, f"members is not a list ({shown(members)}); no member is shown")
        return
    for index, member in enumerate(members, start=2):
        _member(b, path, index, member)


def team_note(b: TeamBuilder, path: Path) -> Event:
    """The team's first line: what it is for, who leads it, and the lead's own session."""
    facts = b.facts
    lines = [f"Agent team {facts.name}" + (f": {facts.description}" if facts.description else "")]
    if facts.lead_agent_id:
        lines.append(f"Lead: {facts.lead_agent_id}")
    if facts.lead_session_id:
        lines.append(
            f"The lead's Claude Code session: {facts.lead_session_id}"
            f" (session `{LEAD_SESSION_PREFIX}{facts.lead_session_id}` in this archive, when it is here)"
        )
    meta = {"team": facts.name, **facts.extra}
    return b.put(
        path,
        1,
        "team",
        kind=Kind.SYSTEM,
        timestamp=facts.created,
        title=f"Agent team {facts.name}",
        text="\n\n".join(lines),
        meta=meta,
    )


def _facts(b: TeamBuilder, path: Path, doc: dict[str, Any]) -> None:
    facts = b.facts
    facts.name = facts.name or b.text(path, 1, doc, "name", "team") or ""
    facts.description = facts.description or b.text(path, 1, doc, "description", "team")
    facts.created = facts.created or b.time(path, 1, doc.get("createdAt"), "createdAt")
    facts.lead_agent_id = facts.lead_agent_id or b.text(path, 1, doc, "leadAgentId", "team")
    facts.lead_session_id = facts.lead_session_id or b.text(path, 1, doc, "leadSessionId", "team")
    for key, value in doc.items():
        if key not in _TEAM_KEYS:
            facts.extra.setdefault(key, value)


def _member(b: TeamBuilder, path: Path, line: int, member: Any) -> None:
    facts = b.facts
    if not isinstance(member, dict):
        b.problem(path, line, f"team member is not an object ({shown(member)}); left out")
        b.skip_at(path, line, NOT_OBJECT_MEMBER)
        return
    name = b.text(path, line, member, "name", "member")
    agent_id = b.text(path, line, member, "agentId", "member")
    key = agent_id or name or f"{path}#{line}"
    if key in facts.members:
        b.merge_at(path, line, SAME_MEMBER)
        return
    facts.members.add(key)
    name = name or (agent_id.split("@", 1)[0] if agent_id else "member")
    kind_of = b.text(path, line, member, "agentType", "member")
    model = b.text(path, line, member, "model", "member")
    prompt = b.text(path, line, member, "prompt", "member")
    cwd = b.text(path, line, member, "cwd", "member")
    joined = b.time(path, line, member.get("joinedAt"), "joinedAt")
    lead = bool(agent_id and agent_id == facts.lead_agent_id) or named(kind_of, LEAD_TYPES)
    if model:
        b.model(model)
        facts.models.setdefault(name, model)
    if cwd and (lead or facts.cwd is None):
        facts.cwd = cwd  # the lead's folder, else the first member's
    head = " · ".join([name, *(part for part in (kind_of, model) if part)])
    lines = [head] + ([f"Working folder: `{cwd}`"] if cwd else []) + ([prompt] if prompt else [])
    meta = {k: v for k, v in member.items() if k not in MEMBER_SHOWN}
    b.put(
        path,
        line,
        f"member-{name}",
        kind=Kind.SYSTEM,
        timestamp=joined,
        title=f"Team lead: {name}" if lead else f"Teammate joined: {name}",
        text="\n\n".join(lines),
        model=model,
        meta=meta,
    )
