"""claude.ai data export: ``conversations.json``, a JSON array of conversations.

Two message shapes are read:

* 2024: ``{uuid, text, sender, created_at, files, attachments}``; thinking and
  artifacts are inline XML in ``text`` (``<antThinking>``, ``<antArtifact>``),
  which becomes a thinking event and a code block, prose kept in order.
* block shape: ``content:[…]`` of ``text``, ``thinking``, ``tool_use``,
  ``tool_result`` (with ``knowledge`` items), ``token_budget``; anything else
  becomes an unknown event. ``text`` duplicates the text blocks and is only
  used when the content has none.

The export is streamed one conversation at a time (``iter_json_array``), so a
truncated file keeps every conversation before the damage.

Messages are records numbered by their 1-based index among all the export's
messages (``Event.line``). Tool blocks carry no ids: ``pairing`` gives each call
a stable one and pairs it with the result that follows.

Modules: ``reader`` (detection, the export streamed into conversations),
``conversation`` (one conversation → a Session), ``messages`` (one message →
its events, attached files), ``builder`` (groups a message's prose and blocks),
``inline`` (2024 inline thinking and artifacts), ``content`` (block-shape
content), ``calls`` (tool calls and results), ``pairing`` (call ids).
"""

from sessite.readers.formats.claude_ai.reader import READER, ClaudeAiReader

__all__ = ["READER", "ClaudeAiReader"]
