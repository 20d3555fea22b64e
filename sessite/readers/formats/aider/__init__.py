"""Aider: ``.aider.chat.history.md`` in the project's root, with ``.aider.input.history`` and
``.aider.llm.history`` beside it.

The transcript is Markdown that aider appends to as it works: a header per run, the
user's prompts (``#### …``), aider's own messages (``> …``) and the model's replies.
Each run is a Session. Edits the replies write (SEARCH/REPLACE blocks, whole files,
unified diffs) are calls with their diff, answered by aider's ``Applied edit to …``;
shell commands aider ran are calls too. The input history gives prompts their times and
the model history gives replies theirs. The records are the transcript's chunks and the
companions' entries, each named by its first line.

Modules by job: ``vocabulary`` (aider's lines, reasons), ``transcript`` (the transcript
cut into records), ``edits`` (a reply's prose and edits), ``history`` (the two other
files), ``state`` (one run's reading), ``turns`` (prompts and replies), ``output``
(aider's messages), ``reader`` (the Reader, runs as Sessions).
"""

from __future__ import annotations

from sessite.readers.formats.aider.reader import READER, AiderReader

__all__ = ["READER", "AiderReader"]
