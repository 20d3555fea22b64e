"""One module per format: ``records(path)`` yields the ``Record``s of one file of that format.

A module is named after the reader whose files it enumerates; ``enumerator(reader)`` gives its ``records``.
"""

from __future__ import annotations

import importlib
import pkgutil

from ..records import Enumerate

_COVERED = frozenset(module.name for module in pkgutil.iter_modules(__path__))


def enumerator(reader: str) -> Enumerate | None:
    """The ``records`` function for a reader's files, None for a format not covered yet."""
    if reader not in _COVERED:
        return None
    result: Enumerate = importlib.import_module(f"{__package__}.{reader}").records
    return result
