"""Factory Droid: ``~/.factory/sessions/<folder>/<id>.jsonl`` (and ``<id>.settings.json``), and the
output of ``droid exec --output-format stream-json``.

Modules by job: ``vocabulary`` (tool categories and diffs, the environment report's lines),
``content`` (message blocks; what Droid adds before the user's words), ``state`` (one
session's events and facts), ``store`` (the session store and its settings), ``stream``
(``droid exec`` output), ``reader`` (the Reader).
"""

from __future__ import annotations

from sessite.readers.formats.factory_droid.reader import READER, FactoryDroidReader

__all__ = ["READER", "FactoryDroidReader"]
