"""Which files and folders hold a team, and which of their files belong to which team and member.

Claude Code keeps a team in ``teams/<team>/`` (``config.json`` and ``inboxes/<agent>.json``) and
its tasks in ``tasks/<team>/``. The config is claimed (its folder's inboxes come with it); a walk
of ``~/.claude`` meets ``tasks/`` first, so each task file is claimed too, under the same session
key (the team's folder), and discovery reads them with the config as one source.

Copies keep a team otherwise: several configs in ``team/`` beside one ``inboxes/`` folder, an
inbox per team folder or flattened to ``<team>-<copy>-<agent>.json``, or ``inbox-<agent>.json``
beside the config. The folder that holds such a copy is claimed, so the walk (top-down) meets it
before any of its files.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessite.readers.base import Sniff
from sessite.readers.formats.claude_teams.vocabulary import CONFIG, COPY_FOLDER, INBOX_PREFIX, INBOXES, TASKS, TEAMS

# A team config opens with its name and description, then these keys (before the long prompts).
_LEAD_KEY = re.compile(r'"leadAgentId"\s*:')
_MEMBERS_KEY = re.compile(r'"members"\s*:\s*\[')
_HEAD = 16 * 1024


def is_team_config(path: Path, sniffed: Sniff | None = None) -> bool:
    """A JSON object naming its lead (``leadAgentId``) and listing its ``members``."""
    if path.suffix.lower() != ".json" or (sniffed is None and not path.is_file()):
        return False
    head = (sniffed or Sniff(path)).text(_HEAD).lstrip()
    return head.startswith("{") and bool(_LEAD_KEY.search(head)) and bool(_MEMBERS_KEY.search(head))


def is_team_folder(folder: Path) -> bool:
    """A copy of teams: configs in ``team/`` (or ``config-*.json``) beside an ``inboxes/`` folder."""
    if not (folder / INBOXES).is_dir():
        return False
    return any(is_team_config(p) for p in _listed(folder / COPY_FOLDER, "config*.json")) or any(
        is_team_config(p) for p in _listed(folder, "config-*.json")
    )


def team_folder_of(path: Path) -> Path:
    """The folder a config or a native task file is read from: the config's own, the task's team's."""
    return team_of_task(path) if path.parent.parent.name == TASKS else path.parent


def is_lone_inbox(sniffed: Sniff) -> bool:
    """An inbox whose team folder is not in the archive: a JSON array of ``{from, text, …}`` in an
    ``inboxes`` folder (or named ``inbox-<agent>.json``)."""
    path = sniffed.path
    if path.suffix.lower() != ".json":
        return False
    in_inboxes = INBOXES in (path.parent.name, path.parent.parent.name)
    if not (in_inboxes or path.name.startswith(INBOX_PREFIX)):
        return False
    head = sniffed.text(4096).lstrip()
    return head.startswith("[") and re.match(r"\[\s*\{", head) is not None and '"from"' in head and '"text"' in head


def config_files(folder: Path) -> list[Path]:
    """The team configs of a claimed folder."""
    found = [folder / CONFIG, *_listed(folder, "config-*.json"), *_listed(folder / COPY_FOLDER, "config*.json")]
    return [p for p in dict.fromkeys(found) if is_team_config(p)]


def inbox_files(folder: Path) -> list[Path]:
    """Every inbox file of a claimed folder (its own and its ``team/`` folder's)."""
    found: list[Path] = []
    for base in (folder, folder / COPY_FOLDER):
        found += _listed(base / INBOXES, "*.json")
        found += _listed(base / INBOXES, "*/*.json")
        found += _listed(base, f"{INBOX_PREFIX}*.json")
    return list(dict.fromkeys(found))


def task_folders(folder: Path) -> list[tuple[Path, str | None]]:
    """(tasks folder, the team it is named for): ``tasks/<team>/`` in a copy, and Claude Code's
    own ``~/.claude/tasks/<team>/`` beside ``~/.claude/teams/<team>/`` (None: this folder's team)."""
    found: list[tuple[Path, str | None]] = [(p, p.name) for p in _listed(folder / TASKS, "*") if p.is_dir()]
    if folder.parent.name == TEAMS:
        own = folder.parent.parent / TASKS / folder.name
        if own.is_dir():
            found.append((own, None))
    return found


def task_files(tasks: Path) -> list[Path]:
    """The task files of a tasks folder (``<n>.json``, ``tasks.json``), in task order."""
    return sorted(
        _listed(tasks, "*.json"), key=lambda p: (not p.stem.isdigit(), int(p.stem) if _small(p.stem) else 0, p.name)
    )


def companions(folder: Path) -> list[Path]:
    """The files a read of ``folder`` consumes: its configs, inboxes and (in a copy) task files.
    Claude Code's own ``tasks/<team>/`` is not among them: each of its files is claimed on its own
    (``is_native_task``) under the team's session key, and read with the team."""
    found = [*config_files(folder), *inbox_files(folder)]
    for tasks, named in task_folders(folder):
        if named is not None:
            found += task_files(tasks)
    return list(dict.fromkeys(found))


def is_native_task(path: Path) -> bool:
    """``~/.claude/tasks/<team>/<n>.json`` of a team whose ``~/.claude/teams/<team>/config.json`` is there."""
    if path.suffix.lower() != ".json" or path.parent.parent.name != TASKS:
        return False
    return is_team_config(team_of_task(path) / CONFIG)


def team_of_task(path: Path) -> Path:
    """The team folder a native task file belongs to."""
    return path.parent.parent.parent / TEAMS / path.parent.name


# ---------------------------------------------------------------- which team, which member


@dataclass
class Inbox:
    """An inbox file, its owner (the recipient of every message in it) and the copy it comes from."""

    path: Path
    recipient: str
    copy: str | None = None


@dataclass
class TeamFiles:
    """One team's files: its configs (loaded), inboxes and task files."""

    name: str
    configs: list[tuple[Path, dict[str, Any]]] = field(default_factory=list)
    inboxes: list[Inbox] = field(default_factory=list)
    tasks: list[Path] = field(default_factory=list)

    def member_names(self) -> set[str]:
        names = set()
        for _, doc in self.configs:
            members = doc.get("members")
            for member in members if isinstance(members, list) else ():
                name = member.get("name") if isinstance(member, dict) else None
                if isinstance(name, str) and name:
                    names.add(name)
        return names


def assign_inbox(path: Path, teams: dict[str, TeamFiles]) -> tuple[TeamFiles, Inbox] | None:
    """The team an inbox file belongs to and whose it is; None when no team of the folder fits."""
    stem = path.stem
    if path.name.startswith(INBOX_PREFIX):  # inbox-<agent>.json beside its team's config
        team = _only_team_of(path.parent, teams)
        if team is not None:
            return team, Inbox(path, stem[len(INBOX_PREFIX) :])
    if path.parent.name == INBOXES:  # <team>/inboxes/<agent>.json beside the config
        team = _only_team_of(path.parent.parent, teams)
        if team is not None:
            return team, Inbox(path, stem)
    if path.parent.parent.name == INBOXES:  # inboxes/<team>/<agent>.json
        team = teams.get(path.parent.name)
        if team is None and len(teams) == 1:
            team = next(iter(teams.values()))
        return (team, Inbox(path, stem)) if team else None
    return _flattened(path, teams)


def _flattened(path: Path, teams: dict[str, TeamFiles]) -> tuple[TeamFiles, Inbox] | None:
    """``<team>-<copy>-<agent>.json`` (or ``<team>-<agent>.json``): the longest team name it starts
    with, the longest member name it ends with; with one team, any other name is its member's."""
    stem = path.stem
    for name in sorted(teams, key=len, reverse=True):
        if stem.startswith(name + "-"):
            team, rest = teams[name], stem[len(name) + 1 :]
            for member in sorted(team.member_names(), key=len, reverse=True):
                if rest == member:
                    return team, Inbox(path, member)
                if rest.endswith("-" + member):
                    return team, Inbox(path, member, rest[: -len(member) - 1])
            return team, Inbox(path, rest)
    if len(teams) == 1:
        return next(iter(teams.values())), Inbox(path, stem)
    return None


def _only_team_of(folder: Path, teams: dict[str, TeamFiles]) -> TeamFiles | None:
    """The team whose config is in ``folder``, when only one is."""
    found = [t for t in teams.values() if any(p.parent == folder for p, _ in t.configs)]
    return found[0] if len(found) == 1 else None


def _listed(folder: Path, pattern: str) -> Iterable[Path]:
    try:
        return sorted(p for p in folder.glob(pattern) if not p.name.startswith("."))
    except OSError:
        return []


def _small(text: str) -> bool:
    return text.isascii() and text.isdigit() and len(text) < 10
