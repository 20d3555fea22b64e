"""Gemini CLI chats: ``~/.gemini/tmp/<projectHash>/chats/session-<time>-<id8>.json[l]``.

JSON form: one object ``{sessionId, projectHash, startTime, lastUpdated, messages[], kind}``.
JSONL form (newer CLIs): a header line ``{sessionId, projectHash, startTime,
lastUpdated, kind}``, then message objects, ``{"$set": {…}}`` metadata patches and
``{"$rewindTo": id}`` markers. A message is written again under the same ``id``
when it grows (tool calls added): the last write wins, at the place the message
first appeared. A rewind discards the message it names and everything after
it, as the CLI does when it loads the file; the discarded messages are counted
in ``Session.skipped`` and a marker shows where it happened.

Messages: ``user`` (``content`` parts, and ``displayContent`` when what the user
typed differs from what was sent), ``gemini`` (``thoughts``, ``content``,
``toolCalls`` with their results, ``tokens``, ``model``), ``info`` / ``warning`` /
``error`` notes (SYSTEM). Gemini stores no cwd and no git facts: the project is
the ``projectHash``.

Modules, in the order a file flows through them: ``detect`` (is this a Gemini
chat, and which form), ``records`` (file → the chat's header and message
records, re-writes and rewinds applied), ``parts`` (message content → text and
blocks), ``calls`` (tool calls and their results), ``events`` (records → events),
``session`` (events → the Session), ``reader`` (the Reader).
"""

from sessite.readers.formats.gemini.calls import clean_file_diff
from sessite.readers.formats.gemini.detect import top_level_keys
from sessite.readers.formats.gemini.parts import usage_of
from sessite.readers.formats.gemini.reader import READER, GeminiReader

__all__ = ["READER", "GeminiReader", "clean_file_diff", "top_level_keys", "usage_of"]
