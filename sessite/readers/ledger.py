"""Where each record of a source went: shown, merged into another event, or not shown (why).

A normal build only counts what it leaves out (``Session.skipped``, on the page). The
fidelity check (``benchmarks/fidelity``) needs more: every record of every real file
mapped to its fate, so that a record no reader accounts for shows up as a number
instead of vanishing. Readers note each record here; while no ledger is being kept
(every build) a note costs one context-variable lookup.

Records are named by ``(path, line)``: the 1-based line of a JSONL file, or the
1-based record index the reader gives events of a JSON document (``Event.line``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path


class Fate(StrEnum):
    SHOWN = "shown"  # an event on the page carries it
    MERGED = "merged"  # its content is shown as part of another record's event
    NOT_SHOWN = "not shown"  # left out on purpose, with the reason the page lists


@dataclass
class Ledger:
    """(path, line) → fate and reason; the first fate a record is given that says more wins."""

    fates: dict[tuple[str, int], tuple[Fate, str]] = field(default_factory=dict)

    def note(self, path: Path | str, line: int, fate: Fate, reason: str) -> None:
        key = (str(path), line)
        known = self.fates.get(key)
        if known is None or (known[0] != Fate.SHOWN and fate == Fate.SHOWN):
            self.fates[key] = (fate, reason)


_CURRENT: ContextVar[Ledger | None] = ContextVar("sessite_ledger", default=None)


@contextmanager
def keeping_ledger() -> Iterator[Ledger]:
    """Keep a ledger of every record the readers see within this block."""
    ledger = Ledger()
    token = _CURRENT.set(ledger)
    try:
        yield ledger
    finally:
        _CURRENT.reset(token)


def note(path: Path | str, line: int | None, fate: Fate, reason: str = "") -> None:
    """Say what became of the record at ``path:line`` (nothing happens outside a ledger)."""
    ledger = _CURRENT.get()
    if ledger is not None and line is not None:
        ledger.note(path, line, fate, reason)


def shown(path: Path | str, line: int | None) -> None:
    note(path, line, Fate.SHOWN)


def merged(path: Path | str, line: int | None, reason: str) -> None:
    note(path, line, Fate.MERGED, reason)


def not_shown(path: Path | str, line: int | None, reason: str) -> None:
    note(path, line, Fate.NOT_SHOWN, reason)


def active() -> bool:
    """True while a ledger is kept (a reader may skip work that only feeds it)."""
    return _CURRENT.get() is not None
