"""Claude Code transcripts: ``~/.claude/projects/<encoded-cwd>/<sessionId>.jsonl``.

One JSON object per line. ``user``/``assistant``/``system`` records carry the
conversation; ``progress``, ``file-history-snapshot`` and ``queue-operation``
records are bookkeeping and are only counted (``Session.skipped``); title
records (``summary``, ``custom-title``, ``ai-title``) feed the session title.

Things the format does that the reader undoes:

- One API response is split over several ``assistant`` lines (one content
  block each) that share ``message.id`` and repeat a growing ``usage``. Each
  block becomes its own event; the usage of the *last* line of a message is
  attached once, to the last event of that message.
- Sub-agents live next to the main file in ``<sessionId>/subagents/agent-<id>.jsonl``
  (their companions). Each becomes a SUBAGENT event placed after the result of
  the Task/Agent call that spawned it. When only ``agent_progress`` records
  remain (no sub-agent file), the sub-agent is rebuilt from the messages they
  embed. A sub-agent file whose parent file is missing is a session of its own.

Modules, in the order a file flows through them: ``reader`` (the Reader:
detection, companions) and ``layout`` (main file vs ``subagents/agent-*.jsonl``);
``records`` routes each line of a stream into a ``state.Transcript``, through
``assistant``, ``user``, ``system`` (with ``content`` for message content,
``tools`` for calls and results, ``compaction`` for compaction); ``subagents``
reads the sub-agent files and nests them; ``session`` makes the Session.
``vocabulary`` holds the format's tables.
"""

from sitegen.readers.claude_code.reader import READER, ClaudeCodeReader

__all__ = ["READER", "ClaudeCodeReader"]
