"""Claude Code's record types, tool names and injected-text tags, as tables the other modules look up."""

from __future__ import annotations

import re

from sessite.model import ToolCategory

NAME = "claude_code"
AGENT = "claude-code"

# Blocks Claude Code (and its IDE extensions) put into a user's turn: context, not the user's words.
INJECTED_TAGS = frozenset(
    {
        "ide_opened_file",
        "ide_selection",
        "ide_diagnostics",
        "local-command-caveat",
        "local-command-stdout",
        "local-command-stderr",
        "command-name",
        "command-message",
        "command-args",
        "command-contents",
        "system-reminder",
        "system_reminder",
        "user-prompt-submit-hook",
        "bash-stdout",
        "bash-stderr",
        "task-notification",
        "git-context",
        "app-context",
    }
)

# Claude Code's own tool names; the names it shares with other agents are in readers.tools.
OWN_TOOL_CATEGORIES = {"NotebookRead": ToolCategory.READ}
TASK_TOOLS = {"Task", "Agent"}  # the calls that spawn a sub-agent
# Claude Code 2.0.x sends this prompt to its sub-agent types when a session starts (to warm
# the prompt cache): a sidechain no call spawned, which says nothing about the session.
WARMUP_PROMPT = "Warmup"
EDIT_TOOLS = {"Edit", "MultiEdit", "Write", "NotebookEdit"}

# Progress records are bookkeeping: counted in Session.skipped under these reasons.
SKIP_PROGRESS = {
    "hook_progress": "progress record (hook run notices)",
    "bash_progress": "progress record (streaming shell output; the final output is in the tool result)",
    "agent_progress": "progress record (sub-agent messages; shown from the sub-agent transcript)",
    "waiting_for_task": "progress record (waiting for a background task)",
    "mcp_progress": "progress record (MCP tool progress)",
    "query_update": "progress record (web search progress)",
    "search_results_received": "progress record (web search progress)",
}
SKIP_TYPES = {
    "file-history-snapshot": "file-history-snapshot (editor backup bookkeeping)",
    "file-history-delta": "file-history-delta (editor backup bookkeeping)",
    "queue-operation": "queue-operation (prompt queue bookkeeping)",
    "atis-latch": "atis-latch (client state bookkeeping)",
    "cost-state": "cost-state (cost tracking bookkeeping)",
}
# Records that describe the session rather than happen in it.
META_TYPES = {
    "summary",
    "custom-title",
    "ai-title",
    "agent-name",
    "last-prompt",
    "mode",
    "permission-mode",
    "worktree-state",
    "bridge-session",
    "tag",
}
# The field that holds the title in each title record.
TITLE_FIELDS = {
    "summary": "summary",
    "custom-title": "customTitle",
    "ai-title": "aiTitle",
    "agent-name": "agentName",
}
TITLE_PREFERENCE = ("custom-title", "ai-title", "summary")

# Tags Claude Code wraps around text it injects into the user channel.
SYSTEM_TAGS = (
    ("<command-name>", "Slash command"),
    ("<command-message>", "Slash command"),
    ("<local-command-stdout>", "Command output"),
    ("<local-command-stderr>", "Command error output"),
    ("<local-command-caveat>", "Local command caveat"),
    ("<bash-input>", "Shell command (run by the user)"),
    ("<bash-stdout>", "Shell output"),
    ("<bash-stderr>", "Shell output"),
    ("<system-reminder>", "System reminder"),
    ("<user-prompt-submit-hook>", "Prompt hook output"),
    ("<task-notification>", "Background task notification"),
    ("<agent-notification>", "Background agent notification"),
)
OUTPUT_TAGS = ("local-command-stdout", "local-command-stderr", "bash-stdout", "bash-stderr")

ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# The project folder name: the launch directory with every non-alphanumeric character turned into "-".
ENCODED_PATH_CHAR = re.compile(r"[^A-Za-z0-9]")
UUID_LIKE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")

# toolUseResult fields worth showing next to a result (small scalars only).
RESULT_META = (
    "durationMs",
    "durationSeconds",
    "numFiles",
    "numLines",
    "totalLines",
    "startLine",
    "truncated",
    "interrupted",
    "backgroundTaskId",
    "status",
    "totalDurationMs",
    "totalTokens",
    "totalToolUseCount",
    "agentId",
    "code",
    "codeText",
    "bytes",
    "mode",
    "retrieval_status",
    "isImage",
    "replaceAll",
    "userModified",
    "appliedLimit",
    "isAsync",
)
