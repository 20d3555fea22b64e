"""Google Antigravity: ``~/.gemini/antigravity/brain/<conversation>/`` (and ``antigravity-cli``).

A brain folder is one session. ``.system_generated/logs/transcript.jsonl`` (and
``transcript_full.jsonl``, the same steps uncut) holds the steps: the user's input, the
planner's thinking, answers and tool calls, each tool step with its output (an edit's diff, a
command's exit status); ``.system_generated/messages/*.json`` the system's messages;
``.system_generated/tasks/*.log`` background commands' logs. The artifacts (``task.md``,
``implementation_plan.md``, ``walkthrough.md``, …) are shown as written, each earlier revision
(``<name>.resolved.N``) as a diff from the one before, with their ``.metadata.json``.

``conversations/<id>.pb`` (and ``implicit/<id>.pb``) are AES-encrypted: they are counted as
not shown, one problem line each, never decrypted. ``annotations/<id>.pbtxt`` (last viewed,
archived) goes into the session's metadata. A transcript file on its own (Antigravity CLI) is
a session too.

Modules by job: ``vocabulary``, ``layout`` (which folders and files are Antigravity's),
``steps`` (transcript steps), ``calls`` (a tool call's input, output, diff and exit status),
``artifacts``, ``extras`` (messages, task logs, annotations, encrypted files),
``session`` (one session, events in time order), ``reader``.
"""

from __future__ import annotations

from sessite.readers.formats.antigravity.reader import READER, AntigravityReader

__all__ = ["READER", "AntigravityReader"]
