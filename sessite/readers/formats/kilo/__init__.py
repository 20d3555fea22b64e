"""Kilo CLI (``kilo``, Kilo Code's terminal agent): a fork of OpenCode that keeps OpenCode's store
under its own name, ``~/.local/share/kilo/kilo.db`` (and an older ``storage/`` tree).

The OpenCode reader reads the store; this package only names the agent and its folder, so
sessions say they are Kilo's. Module: ``reader``.
"""

from __future__ import annotations

from sessite.readers.formats.kilo.reader import READER, KiloReader

__all__ = ["READER", "KiloReader"]
