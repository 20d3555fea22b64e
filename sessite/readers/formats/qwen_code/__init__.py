"""Qwen Code: ``~/.qwen/projects/<folder>/chats/<id>.jsonl``, and the older ``~/.qwen/tmp/<hash>/chats/session-*.json``.

Modules by job: ``vocabulary`` (tool categories, what is left out and why, note titles),
``detect`` (is a file a Qwen Code chat), ``index`` (the first pass: records and the links
between them), ``state`` (one file's reading: events placed on the timeline or in a
sub-agent, session facts), ``parts`` (Gemini-style content and token counts), ``messages``
(user, assistant and tool result records), ``calls`` (tool calls and results), ``system``
(the CLI's own records), ``telemetry`` (UI telemetry: durations, approvals, a sub-agent's
work), ``legacy`` (the older JSON chats), ``reader`` (the Reader).
"""

from __future__ import annotations

from sessite.readers.formats.qwen_code.reader import READER, QwenCodeReader

__all__ = ["READER", "QwenCodeReader"]
