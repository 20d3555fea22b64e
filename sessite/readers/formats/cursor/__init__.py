"""Cursor: the editor's ``state.vscdb`` SQLite stores (and JSON dumps of them).

``…/Cursor/User/globalStorage/state.vscdb`` holds the chats ("composers") in
table ``cursorDiskKV`` (older builds: ``ItemTable``), as JSON values:

* ``composerData:<composerId>`` → ``{composerId, name, createdAt,
  lastUpdatedAt, fullConversationHeadersOnly:[{bubbleId, type}], …}``; older
  builds keep the bubbles inline in ``conversation:[…]``.
* ``bubbleId:<composerId>:<bubbleId>`` → a bubble: ``type`` 1 (user) or 2
  (assistant), ``text``, ``thinking:{text}``, ``toolFormerData:{name, status,
  rawArgs, result}`` (JSON strings), ``timingInfo``, ``tokenCount``, ``createdAt``.

Each composer with at least one bubble is one session. Each
``workspaceStorage/<hash>/state.vscdb`` lists the composers of one workspace
(``ItemTable`` key ``composer.composerData``) next to a ``workspace.json``
naming its folder: that is where a session's working folder comes from. Old
Cursor builds kept chats per workspace under ``ItemTable`` key
``workbench.panel.aichat.view.aichat.chatdata``; those tabs are sessions too.

Databases are opened read-only and immutable (no lock, no journal), so a
running Cursor is neither touched nor blocked; changes it still holds in a
``-wal`` file are not seen (a problem says so).

A JSON file holding one ``composerData`` object or a ``{key: value}`` dump of
the store is read the same way; the Cursor JSON files of one folder are read
together as one store (the first claims the others as companions).

Older builds keep whole composers in the workspace index itself
(``composer.composerData`` → ``allComposers[i].conversation``): those are sessions too.
A store that yields no session says why, in one problem.

Records (one per bubble) are numbered per file for ``Event.line`` and the fidelity
ledger (``records``): bubble keys first, then the inline lists in the order they are read.

Modules: ``keys`` (names in the store), ``store`` (the store interface and
JSON dumps), ``database`` (SQLite stores and the workspace folders),
``records`` (record numbers), ``sessions`` (composers → Sessions),
``conversation`` (a composer's bubbles in order, and what it leaves out),
``bubbles`` (one bubble → events), ``tools`` (tool calls and results),
``legacy`` (old chat tabs), ``reader``.
"""

from sessite.readers.formats.cursor.reader import READER, CursorReader

__all__ = ["READER", "CursorReader"]
