"""Claude Code agent teams: ``~/.claude/teams/<team>/config.json`` with ``inboxes/<agent>.json``,
and the team's tasks in ``~/.claude/tasks/<team>/<n>.json``.

A team is one session: its lead and teammates (type, model, working folder, the prompt each
was spawned with), every message between them in time order (``from`` → the inbox's owner;
the protocol messages Claude Code double-encodes in ``text``, such as idle notices, shutdown
requests and task assignments, decoded and shown as what they are) and its tasks. The lead's
own Claude Code session (``leadSessionId``) is named in the session's metadata and its first note.

Copies of a team folder are read too: hive's snapshots keep configs in ``team/config-<team>.json``
beside ``inboxes/<team>/<agent>.json`` and ``inboxes/<team>-<copy>-<agent>.json``; the same
message in several copies is shown once.

Modules by job: ``vocabulary`` (names and reasons), ``layout`` (which folders are teams and
which files belong to which team), ``state`` (one session's bookkeeping), ``team`` (config:
the team and its members), ``messages`` and ``protocol`` (inboxes), ``tasks``, ``reader``.
"""

from __future__ import annotations

from sessite.readers.formats.claude_teams.reader import READER, ClaudeTeamsReader

__all__ = ["READER", "ClaudeTeamsReader"]
