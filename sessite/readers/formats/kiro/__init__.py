"""Kiro CLI: saved conversations (``{conversation_id, history}`` JSON) and ``data.sqlite3``.

Modules by job: ``vocabulary`` (tool categories and diffs), ``conversation`` (a
conversation's entries as events), ``database`` (the store's conversation rows), ``reader``
(the Reader).
"""

from __future__ import annotations

from sessite.readers.formats.kiro.reader import READER, KiroReader

__all__ = ["READER", "KiroReader"]
