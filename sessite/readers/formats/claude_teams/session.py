"""A claimed folder's teams, each one session: configs, then inboxes, then tasks, in time order."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from sessite.model import Problems, Session
from sessite.readers._util import text_of
from sessite.readers.files import load_json
from sessite.readers.formats.claude_teams import layout
from sessite.readers.formats.claude_teams.layout import Inbox, TeamFiles
from sessite.readers.formats.claude_teams.messages import read_inbox
from sessite.readers.formats.claude_teams.state import TeamBuilder
from sessite.readers.formats.claude_teams.tasks import read_task_file
from sessite.readers.formats.claude_teams.team import read_config, team_note
from sessite.readers.formats.claude_teams.vocabulary import (
    CONFIG,
    INBOX_PREFIX,
    LEAD_SESSION_PREFIX,
    NAME,
    UNKNOWN_TEAM_TASKS,
)
from sessite.readers.ledger import not_shown


def folder_sessions(folder: Path, problems: Problems) -> Iterator[Session]:
    """Every team whose config is in ``folder``, and every inbox no team of it owns."""
    teams = _teams(folder, problems)
    lone: list[Path] = []
    for path in layout.inbox_files(folder):
        found = layout.assign_inbox(path, teams)
        if found is None:
            lone.append(path)
        else:
            found[0].inboxes.append(found[1])
    for tasks, named in layout.task_folders(folder):
        team = teams.get(named) if named else _team_of(folder, teams)
        files = layout.task_files(tasks)
        if team is None:
            for path in files:
                problems.add(path, None, f"{NAME}: the tasks of team {tasks.name}, whose config is not here; not read")
                not_shown(path, 1, UNKNOWN_TEAM_TASKS)
            continue
        team.tasks += files
    for team in teams.values():
        yield team_session(folder, team, problems)
    for path in lone:
        session = inbox_session(path, problems)
        if session is not None:
            yield session


def team_session(folder: Path, team: TeamFiles, problems: Problems) -> Session:
    b = TeamBuilder(folder, problems)
    for number, (path, doc) in enumerate(team.configs):
        read_config(b, path, doc, first=number == 0)
    b.facts.name = b.facts.name or team.name
    for inbox in team.inboxes:
        read_inbox(b, inbox)
    for path in team.tasks:
        read_task_file(b, path)
    source = team.configs[0][0]
    note = team_note(b, source)
    facts = b.facts
    meta: dict[str, object] = {"team": facts.name}
    if facts.lead_session_id:
        meta["lead session"] = f"{LEAD_SESSION_PREFIX}{facts.lead_session_id}"
        meta["leadSessionId"] = facts.lead_session_id
    if facts.lead_agent_id:
        meta["leadAgentId"] = facts.lead_agent_id
    raw_id = facts.name + (f"-{facts.lead_session_id[:8]}" if facts.lead_session_id else "")
    return b.finish(
        raw_id,
        events=b.in_time_order(note),
        source=source,
        started=facts.created,
        cwd=facts.cwd,
        title=facts.description or f"Agent team {facts.name}",
        meta=meta,
    )


def inbox_session(path: Path, problems: Problems) -> Session | None:
    """An inbox read without its team: the messages its owner was sent."""
    recipient = path.stem[len(INBOX_PREFIX) :] if path.name.startswith(INBOX_PREFIX) else path.stem
    b = TeamBuilder(path, problems)
    read_inbox(b, Inbox(path, recipient))
    if not b.events:
        return None
    return b.finish(
        f"inbox-{path.parent.name}-{recipient}",
        events=b.in_time_order(None),
        source=path,
        title=f"Messages to {recipient}",
        meta={"inbox of": recipient},
    )


def task_team(path: Path, problems: Problems) -> Iterator[Session]:
    """A file of Claude Code's own ``tasks/<team>/``, claimed on its own: its team, read from the
    team's folder; when that folder lies outside the archive, a problem line says so."""
    team, root = layout.team_of_task(path), problems.root
    if root is not None and not _below(team, root):
        message = f"{NAME}: a task of team {path.parent.name}, whose folder is not in the archive; not read"
        problems.add(path, None, message)
        not_shown(path, 1, UNKNOWN_TEAM_TASKS)
        return
    yield from folder_sessions(team, problems)


def _below(path: Path, root: Path) -> bool:
    inside, top = os.path.abspath(path), os.path.abspath(root)
    return inside == top or inside.startswith(top.rstrip(os.sep) + os.sep)


def _teams(folder: Path, problems: Problems) -> dict[str, TeamFiles]:
    """The folder's configs, by team name (copies of one team's config together)."""
    teams: dict[str, TeamFiles] = {}
    for path in layout.config_files(folder):
        doc = load_json(path, problems)
        if not isinstance(doc, dict):
            if doc is not None:
                problems.add(path, None, f"{NAME}: the team config is not a JSON object; not read")
            continue
        name = text_of(doc.get("name")) or (path.parent.name if path.name == CONFIG else path.stem)
        teams.setdefault(name, TeamFiles(name)).configs.append((path, doc))
    return teams


def _team_of(folder: Path, teams: dict[str, TeamFiles]) -> TeamFiles | None:
    """The team of Claude Code's own ``<team>/config.json`` (its tasks folder is named for the folder)."""
    for team in teams.values():
        if any(p == folder / CONFIG for p, _ in team.configs):
            return team
    return next(iter(teams.values())) if len(teams) == 1 else None
