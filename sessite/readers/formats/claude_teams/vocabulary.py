"""The names and words of Claude Code's agent teams: where their files sit, what is left out and why."""

from __future__ import annotations

NAME = "claude_teams"
AGENT = "claude-teams"
# The reader that reads the lead's own transcript names its sessions ``claude_code-<sessionId>``.
LEAD_SESSION_PREFIX = "claude_code-"

CONFIG = "config.json"  # ~/.claude/teams/<team>/config.json
INBOXES = "inboxes"  # ~/.claude/teams/<team>/inboxes/<agent>.json: what each member was sent
TASKS = "tasks"  # ~/.claude/tasks/<team>/<n>.json
TEAMS = "teams"
COPY_FOLDER = "team"  # a copy that keeps the configs in team/ beside inboxes/ (hive's snapshots)
INBOX_PREFIX = "inbox-"  # a copied inbox named for its recipient beside the config

# Agent types of the lead (older teams said "coordinator").
LEAD_TYPES = frozenset({"team-lead", "coordinator"})

# Member fields shown in the member's line (the rest go to its details).
MEMBER_SHOWN = frozenset({"name", "agentType", "model", "prompt", "cwd", "joinedAt"})
# Inbox message fields the event shows (the rest go to its details).
MESSAGE_SHOWN = frozenset({"from", "text", "timestamp"})
# Task fields the event shows.
TASK_SHOWN = frozenset({"id", "subject", "title", "description", "status", "owner", "createdAt"})

NOT_OBJECT_MEMBER = "team member that is not a JSON object"
NOT_OBJECT_MESSAGE = "inbox entry that is not a JSON object"
NOT_OBJECT_TASK = "task that is not a JSON object"
UNKNOWN_TEAM_TASKS = "task of a team whose config is not here"
SAME_TEAM = "the team, as the first copy of its config gives it"
SAME_MEMBER = "the same member in another copy of the team's config"
SAME_MESSAGE = "the same message in another copy of this inbox"
