"""ChatGPT data export: ``conversations.json`` (or its ``conversations-NNN.json`` parts).

Each conversation keeps every message ever written as a tree (``mapping``); the
conversation ChatGPT shows is the branch from the root to ``current_node``. That
branch is the session; where it branched (an edited prompt, a regenerated reply) a
note holds the other versions and what followed them, so nothing written is lost.
Replies addressed to a tool (the code interpreter, the browser, DALL·E, a plugin)
are calls, and the tool's messages after them their results.

Records are the nodes of ``mapping``, numbered 1, 2 … across the whole export in the
order the file lists them (``Event.line``).

Modules by job: ``vocabulary`` (tool names, reasons), ``content`` (a message's content
of any type), ``tree`` (the kept branch and the others), ``state`` (one conversation's
reading), ``messages`` (a kept message's events), ``results`` (tool results),
``versions`` (the notes for other versions), ``conversation`` (a conversation as a
Session), ``reader`` (detection, the export read conversation by conversation).
"""

from __future__ import annotations

from sessite.readers.formats.chatgpt.reader import READER, ChatGptReader

__all__ = ["READER", "ChatGptReader"]
