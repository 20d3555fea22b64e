"""Cline task folders: ``…/saoudrizwan.claude-dev/tasks/<taskId ms>/`` (and ``~/.cline/data/tasks``).

A task folder is one session:

* ``api_conversation_history.json``: the Anthropic-style messages sent to the
  model (``{role, content:[…]}``; assistant messages may carry
  ``metrics:{tokens:{prompt, completion, cached}, cost}`` and ``modelInfo``).
  Tool calls are ``tool_use`` blocks, or, in the older XML style, tags in the
  assistant text (``<read_file><path>…</path></read_file>``). Tool results
  are plain text blocks in the next user message,
  ``"[read_file for 'x'] Result:"`` followed by the output (in the same block
  or the next ones); they are paired with the preceding call of that name.
  ``<environment_details>`` blocks are context Cline adds, shown as SYSTEM.
* ``ui_messages.json``: what the chat panel showed, with ``ts`` (ms): the
  source of timestamps (``conversationHistoryIndex`` links a panel message to
  the history) and of token counts (``api_req_started``). When the history
  file is missing the session is rebuilt from the panel messages alone.
* ``task_metadata.json``: ``model_usage`` (models), ``environment_history``,
  ``files_in_context``.

Each file's messages are records numbered by their 1-based index (``Event.line``).
Beside a history, a panel message is a copy (merged), bookkeeping (counted as not
shown), or what only the panel kept (an interrupted response, an error), shown where
it happened. ``metrics.tokens.cached`` adds cache reads and writes: the panel's
request for the same response keeps them apart and records its cost.

Modules by job: ``task`` (what one task's reading keeps), ``ui`` (the panel's
messages: times and requests), ``panel`` (panel messages as events: a session
rebuilt from them alone, or what only the panel kept), ``copies`` (which panel
messages the history already holds), ``history`` (the history's messages,
assistant side), ``usage`` (a response's tokens and recorded cost), ``user`` (a
user message: words, tool results, added context), ``calls`` (calls in
either style, and their diffs), ``reader`` (the Reader and the session).
"""

from __future__ import annotations

from sessite.readers.formats.cline.reader import READER, ClineReader

__all__ = ["READER", "ClineReader"]
