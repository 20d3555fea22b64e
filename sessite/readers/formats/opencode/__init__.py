"""OpenCode (sst/opencode): the JSON storage tree, the SQLite database, and exports.

Three layouts hold the same records:

* the storage tree ``~/.local/share/opencode/storage/`` (up to v1.1):
  ``session/<projectID>/<sessionID>.json`` (session info),
  ``message/<sessionID>/<messageID>.json`` and ``part/<messageID>/<partID>.json``.
  The folder is claimed as a whole; every file under it is a companion.
* ``opencode.db`` (v1.2+): tables ``session`` (columns), ``message`` and
  ``part`` (a JSON ``data`` column each). Opened read-only and immutable, so a
  running OpenCode is neither touched nor blocked.
* ``opencode export <id>`` JSON: ``{info, messages:[{info, parts}]}``.

A message is ``{id, sessionID, role, time:{created, completed?}, …}``; an
assistant message adds ``modelID, providerID, mode, path:{cwd, root}, cost,
tokens:{input, output, reasoning, cache:{read, write}}, finish, error?``. Its
parts become events: ``text`` (user/assistant), ``reasoning`` (thinking),
``tool`` (a call plus its result from ``state``), ``step-finish`` (the usage of
one model call, attached once), ``patch``, ``file``, ``compaction``,
``subtask``, ``agent``, ``retry``; ``step-start`` and ``snapshot`` are counted
only. Anything else is kept as an UNKNOWN event.

A session whose ``parentID`` names a session that is present (a sub-agent the
``task`` tool started) is nested in its parent as a SUBAGENT event, under the
task call that started it when the call names it (``state.metadata.sessionId``).
A session whose parent is absent is a session of its own.

When a storage tree sits next to an ``opencode.db`` that already holds a
session (OpenCode migrates the tree into the database and keeps the folder),
the database copy is the one read.

Modules by job, in the order a path flows through them: ``detect`` (which
layout), ``sources`` and ``database`` (the layouts' records, alike),
``parts`` (a message and its parts into events), ``calls`` (a tool part's
call and result), ``assemble`` (sessions, sub-agents nested), ``reader`` (the
Reader).
"""

from __future__ import annotations

from sessite.readers.formats.opencode.reader import READER, OpenCodeReader

__all__ = ["READER", "OpenCodeReader"]
