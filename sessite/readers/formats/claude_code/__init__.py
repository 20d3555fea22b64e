"""Claude Code transcripts: ``~/.claude/projects/<encoded-cwd>/<sessionId>.jsonl``.

One JSON object per line. ``user``/``assistant``/``system`` records carry the
conversation, and 2.1.x's ``attachment`` records what Claude Code attached to a turn
(a prompt queued while the agent worked, hook output, listings, reminders);
``progress``, ``file-history-snapshot``/``-delta``, ``queue-operation`` and
``atis-latch`` records are bookkeeping and are only counted (``Session.skipped``);
title records (``summary``, ``custom-title``, ``ai-title``) feed the session title.
Every record gets a fate in the fidelity ledger (``readers.ledger``).

Things the format does that the reader undoes:

- A prompt typed while the agent worked is a ``queue-operation`` record, and usually a
  later ``user`` record or ``queued_command`` attachment; 2.1.1x kept a prompt folded
  into a running turn only in the queue record, which then becomes the USER message.
- One API response is split over several ``assistant`` lines (one content
  block each) that share ``message.id`` and repeat a growing ``usage``. Each
  block becomes its own event; the usage of the *last* line of a message is
  attached once, to the last event of that message.
- Sub-agents live in ``<sessionId>/subagents/agent-<id>.jsonl`` (2.1.x) or beside
  the main file as ``agent-<id>.jsonl`` carrying the parent's ``sessionId`` (2.0.x's
  flat sidechains); either way they are the main file's companions. Each becomes a
  SUBAGENT event placed after the result of the Task/Agent call that spawned it (by
  agent id, prompt or time); one no call claims is placed by its start time. When only
  ``agent_progress`` records remain (no sub-agent file), the sub-agent is rebuilt from
  the messages they embed. The flat sidechains of a session whose main file is missing
  or empty are one session of that id; a nested sub-agent file whose parent file is
  missing is a session of its own.

Modules, in the order a file flows through them: ``reader`` (the Reader:
detection, companions, session key) and ``layout`` (main file, nested and flat
sub-agent files); ``records`` routes each line of a stream into a
``state.Transcript``, through ``assistant``, ``user``, ``system``, ``attachments``
(with ``context`` for folded context), ``queue`` for prompts typed while the agent
worked, ``content`` for message content, ``calls`` for calls and results,
``compaction`` for compaction; ``subagents`` reads the sub-agent files (``flat``
finds 2.0.x's) and nests them; ``session`` makes the Session.
``vocabulary`` holds the format's tables.
"""

from sessite.readers.formats.claude_code.reader import READER, ClaudeCodeReader

__all__ = ["READER", "ClaudeCodeReader"]
