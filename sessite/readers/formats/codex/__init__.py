"""OpenAI Codex CLI rollouts: ``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl``.

Every line is ``{timestamp, type, payload}``: one ``session_meta`` first, then
``turn_context`` (model and policies, repeated every turn), ``response_item``
(what went to and came from the model: messages, reasoning, tool calls and
their outputs) and ``event_msg`` (what the UI showed: user and agent messages,
token counts, turn markers, command/patch/MCP completion notices). The older
record-style format (a bare ``{id, timestamp, instructions, git}`` first line,
bare response items, ``{"record_type":"state"}`` lines) is read too.

Things the format does that the reader undoes, and where:

- User text, assistant text and reasoning summaries are written twice, once
  as an ``event_msg`` and once as a ``response_item`` (in either order). Each
  is shown once; the echo is counted in ``Session.skipped`` (``messages``).
- ``token_count`` repeats cumulative totals; the usage of each changed total
  goes on the turn's last model event, so event usage sums to the final total (``usage``).
- A tool call and its output are paired by ``call_id``; an ``exec_command_end``
  / ``patch_apply_end`` / ``mcp_tool_call_end`` notice for the same call is
  merged into that one result, never shown twice (``completions``).
- Shell calls come in three generations (``shell``, ``shell_command``,
  ``exec_command``); all become SHELL calls with a readable command line and an
  exit code on the result (``shell``).
- ``apply_patch`` (custom tool, function call, or a shell heredoc) is turned
  from the ``*** Begin Patch`` format into a unified-style diff (``patch``).
- ``<environment_context>``, AGENTS.md instructions, ``<recommended_plugins>``
  and the like arrive as role=user messages (several as items of one message);
  each becomes a SYSTEM event and never the title (``content``).
- A web search or image generation is written as an item and a notice with one
  id, in either order: one call and one result (``hosted``).
- A sub-agent runs in a rollout of its own that names its parent thread: the
  family is read together and each sub-agent nests under the call that spawned
  it (``family``, ``nest``); inter-agent messages and collaboration notices are
  read in ``agents``; world state, thread settings and guardian reviews in ``context``.
- Every record gets a fate in the fidelity ledger, and event ids come from the
  record itself, so snapshots of one rollout merge event by event (``assembly``).

The other modules: ``reader`` (detection, companions, session key), ``layout``
(record shapes), ``records`` (routing each line), ``items`` (response items),
``notices`` (event messages), ``calls`` (what a call shows, code-mode scripts
included), ``assembly`` (state and the Session).
"""

from __future__ import annotations

from sessite.readers.formats.codex.calls import tool_fields
from sessite.readers.formats.codex.content import classify_user_text
from sessite.readers.formats.codex.patch import changes_to_diff, patch_to_diff
from sessite.readers.formats.codex.reader import CodexReader
from sessite.readers.formats.codex.shell import command_line, parse_output

__all__ = [
    "READER",
    "CodexReader",
    "changes_to_diff",
    "classify_user_text",
    "command_line",
    "parse_output",
    "patch_to_diff",
    "tool_fields",
]

READER = CodexReader()
