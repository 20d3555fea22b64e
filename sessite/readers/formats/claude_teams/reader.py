"""The Claude Code agent teams reader: which files and folders are teams, what each consumes, where teams live."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from sessite.model import Problems, Session
from sessite.readers.base import Reader, Sniff
from sessite.readers.formats.claude_teams import layout
from sessite.readers.formats.claude_teams.session import folder_sessions, inbox_session, task_team
from sessite.readers.formats.claude_teams.vocabulary import AGENT, NAME, TEAMS
from sessite.readers.merge import distinct_ids
from sessite.readers.platform import Platform, unique


class ClaudeTeamsReader(Reader):
    name = NAME
    agent = AGENT
    claims_directories = True  # a copy of teams (configs in team/ beside inboxes/) ...
    claims_files = True  # ... a team's config, a file of ~/.claude/tasks/<team>/, an inbox without its team

    def detect(self, sniffed: Sniff) -> bool:
        path = sniffed.path
        if sniffed.is_dir:
            return layout.is_team_folder(path)
        return layout.is_team_config(path, sniffed) or layout.is_native_task(path) or layout.is_lone_inbox(sniffed)

    def session_key(self, sniffed: Sniff) -> str | None:
        """The team's folder, for its config and for each of its task files (which a walk of
        ``~/.claude`` meets first): discovery reads them together, as one source."""
        path = sniffed.path
        if sniffed.is_dir or not (layout.is_native_task(path) or layout.is_team_config(path, sniffed)):
            return None
        return f"{NAME}:{layout.team_folder_of(path)}"

    def companions(self, path: Path) -> list[Path]:
        """A team's configs, inboxes and (in a copy) task files."""
        if path.is_dir():
            return layout.companions(path)
        if layout.is_native_task(path) or not layout.is_team_config(path):
            return []
        return [p for p in layout.companions(path.parent) if p != path]

    def read_group(self, paths: Sequence[Path], problems: Problems) -> Iterator[Session]:
        """A team's config and its task files: the team, read once from its config (task files
        alone are each read, the copies of their team merged)."""
        config = next((p for p in paths if not layout.is_native_task(p)), None)
        if config is None or len(paths) == 1:
            yield from super().read_group(paths, problems)
            return
        yield from distinct_ids(self.read(config, problems), problems)

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        if path.is_dir():
            yield from folder_sessions(path, problems)
        elif layout.is_native_task(path):
            yield from task_team(path, problems)
        elif layout.is_team_config(path):
            yield from folder_sessions(path.parent, problems)
        else:
            session = inbox_session(path, problems)
            if session is not None:
                yield session

    def default_folders(self, plat: Platform) -> list[Path]:
        """``~/.claude/teams`` on every system (``$CLAUDE_CONFIG_DIR/teams`` when that is set);
        each team's tasks are read from the ``tasks`` folder beside it."""
        claude = plat.var("CLAUDE_CONFIG_DIR")
        return unique([*([claude / TEAMS] if claude else []), plat.home / ".claude" / TEAMS])


READER = ClaudeTeamsReader()
