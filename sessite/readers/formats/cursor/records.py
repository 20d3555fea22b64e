"""Record numbers in a Cursor store file, for ``Event.line`` and the fidelity ledger.

A store is key/value pairs, not lines, so its records (one per bubble) are numbered in an
order the file itself gives, 1-based, per file:

1. every ``bubbleId:`` key (a database: the distinct keys, table by table in key order; a
   JSON dump: in the document's order);
2. the bubbles kept inline in ``composerData:<id>.conversation``, composer after composer
   (the distinct composer keys in the same order), each list in its order;
3. (a database) the composers the ``composer.composerData`` index keeps inline
   (``allComposers[i].conversation``), then the old chat tabs' bubbles
   (``workbench.panel.aichat.view.aichat.chatdata``: ``tabs[i].bubbles``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from sessite.readers import ledger

COPY = "copy of a bubble read from another file"


class Records:
    """The numbers of one store's records, file by file; which bubble keys were read."""

    def __init__(self) -> None:
        self._bubbles: dict[str, tuple[Path, int]] = {}
        self._next: dict[Path, int] = {}
        self._used: set[str] = set()

    def add_bubble_keys(self, path: Path, keys: Iterable[str]) -> None:
        """Number a file's bubble keys (part 1); a key an earlier file holds is a copy of it."""
        number = self._next.get(path, 1)
        for key in keys:
            if key in self._bubbles:
                ledger.merged(path, number, COPY)
            else:
                self._bubbles[key] = (path, number)
            number += 1
        self._next[path] = number

    def bubble(self, key: str) -> tuple[Path, int] | None:
        """Where a bubble key's record is; noted as read."""
        self._used.add(key)
        return self._bubbles.get(key)

    def block(self, path: Path, count: int) -> int:
        """The first of the next ``count`` record numbers of ``path`` (a list kept inline)."""
        first = self._next.get(path, 1)
        self._next[path] = first + count
        return first

    def unread(self) -> Iterator[tuple[str, Path, int]]:
        """The bubble keys no composer read: (key, file, number)."""
        for key, (path, number) in self._bubbles.items():
            if key not in self._used:
                yield key, path, number
