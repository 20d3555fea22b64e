"""Keys cut in two: the first part ends one event's (or block's) text, the rest starts the next.

Each string is redacted alone, and the first part is recognisable there (a known
prefix cut short at the very end: see ``scanners.partial_key_at_end``). The rest
is only recognisable next to it: the run of key characters the next text starts
with. This pass walks a session's texts in reading order and redacts that run.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from sessite.analyze.redact.markers import MARKER, secret_spans
from sessite.analyze.redact.scanners import continued_key_head, partial_key_kind
from sessite.model import Block, Event


def join_split_keys(
    original: tuple[Event, ...], redacted: tuple[Event, ...], counts: Counter[str]
) -> tuple[Event, ...]:
    """``redacted`` (the redacted ``original``) with the rest of every cut key redacted too."""
    pending: list[str | None] = [None]  # the kind of key the previous text ended with the first part of
    return _events(original, redacted, pending, counts)


def _events(
    original: tuple[Event, ...], redacted: tuple[Event, ...], pending: list[str | None], counts: Counter[str]
) -> tuple[Event, ...]:
    out: list[Event] | None = None
    for index, (before, after) in enumerate(zip(original, redacted)):
        new = _event(before, after, pending, counts)
        if new is not after:
            if out is None:
                out = list(redacted)
            out[index] = new
    return tuple(out) if out is not None else redacted


def _event(before: Event, after: Event, pending: list[str | None], counts: Counter[str]) -> Event:
    text = _text(before.text, after.text, pending, counts)
    blocks = _blocks(before.blocks, after.blocks, pending, counts) if after.blocks else after.blocks
    children = _events(before.children, after.children, pending, counts) if after.children else after.children
    if text is after.text and blocks is after.blocks and children is after.children:
        return after
    return replace(after, text=text, blocks=blocks, children=children)


def _blocks(
    original: tuple[Block, ...], redacted: tuple[Block, ...], pending: list[str | None], counts: Counter[str]
) -> tuple[Block, ...]:
    out: list[Block] | None = None
    for index, (before, after) in enumerate(zip(original, redacted)):
        text = _text(before.text, after.text, pending, counts)
        if text is not after.text:
            if out is None:
                out = list(redacted)
            out[index] = replace(after, text=text)
    return tuple(out) if out is not None else redacted


def _text(before: str, after: str, pending: list[str | None], counts: Counter[str]) -> str:
    if not after or not isinstance(after, str):
        return after
    new = after
    kind = pending[0]
    if kind is not None:
        span = continued_key_head(after)
        if span is not None:
            new = f"{after[: span[0]]}[REDACTED:{kind}]{after[span[1] :]}"
            counts[kind] += 1
    # The first part was redacted where it stood; the original says which kind of key it began.
    pending[0] = partial_key_kind(before) if "[REDACTED:" in after[-80:] and isinstance(before, str) else None
    return new


# What a key (or a name and its value) is made of where a split cuts it: no space, no closing mark.
_SEAM_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/=.:")
# A capitalised word (Dockerfile, Thanks) starts a text anew; not a run of key characters as long as
# a key's rest that happens to start like one (PadPB2NwUxzxtjhaPnt9…).
_WORD_START = re.compile(r"[A-Z][a-z]{2,}(?![A-Za-z0-9_\-+/=]{13})")
_SEAM_REACH = 300  # characters of each side a seam holds: longer than any credential rule's match


@dataclass
class _Slot:
    """One text of a session in reading order: an event's text or one of its blocks'."""

    path: tuple[int, ...]  # the event's place (indices through children)
    block: int | None  # None: the event's own text
    before: str
    after: str


def join_seams(
    original: tuple[Event, ...],
    redacted: tuple[Event, ...],
    redact: Callable[[str], str],
    counts: Counter[str],
    note: Callable[[str, str], None],
) -> tuple[Event, ...]:
    """``redacted`` with what a rule finds only across the seam of two texts replaced on both sides:
    any credential cut in two (``SLACK_BOT_TOKEN=xoxb-12…`` | ``…34-abc``), or a name that ends one
    text and its value that starts the next (``DB_PASSWORD=`` | ``hunter2…``). Only seams where
    neither side has a space or a closing mark at the cut are read; ``redact`` reads them."""
    slots = list(_slots(original, redacted))
    changed: dict[int, str] = {}
    for i in range(len(slots) - 1):
        a, b = slots[i], slots[i + 1]
        if a.before[-1] not in _SEAM_CHARS or b.before[0] not in _SEAM_CHARS:
            continue
        head, tail = a.before[-_SEAM_REACH:], b.before[:_SEAM_REACH]
        seam = head + tail
        found = redact(seam)
        if found == seam:
            continue
        pieces = MARKER.split(found)
        spans = secret_spans(seam, pieces[::2])  # (a key block leaves its line breaks after its marker)
        if spans is None:
            continue
        cut = len(head)
        head_alone: str | None = None
        for (start, end), kind in zip(spans, pieces[1::2]):
            if end <= cut or start >= cut + len(tail):
                continue  # (wholly on one side: that side's own redaction saw it)
            if start < cut and _WORD_START.match(tail):
                head_alone = redact(head) if head_alone is None else head_alone
                if head_alone.endswith(f"[REDACTED:{kind}]") and partial_key_kind(head) is None:
                    continue  # (a whole key ends the first text, a word starts the next: not its rest)
            marker = f"[REDACTED:{kind}]"
            left, right = seam[start:cut] if start < cut else "", seam[max(start, cut) : end]
            a_text, b_text = changed.get(i, a.after), changed.get(i + 1, b.after)
            hit = False
            if left and a_text.endswith(left):
                changed[i] = a_text[: len(a_text) - len(left)] + marker
                hit = True
            offset = max(start, cut) - cut
            if right and b_text[offset : offset + len(right)] == right:
                changed[i + 1] = b_text[:offset] + ("" if left and hit else marker) + b_text[offset + len(right) :]
                hit = True
            if hit:
                counts[kind] += 1
                note(kind, seam[start:end])
    if not changed:
        return redacted
    return _rebuilt(redacted, {(slots[i].path, slots[i].block): text for i, text in changed.items()})


def _slots(original: tuple[Event, ...], redacted: tuple[Event, ...], path: tuple[int, ...] = ()) -> Iterator[_Slot]:
    """The session's texts in reading order (only those that have a first and a last character)."""
    for index, (before, after) in enumerate(zip(original, redacted)):
        if before.text and isinstance(before.text, str) and isinstance(after.text, str):
            yield _Slot((*path, index), None, before.text, after.text)
        for k, (a, b) in enumerate(zip(before.blocks, after.blocks)) if before.blocks else ():
            if a.text and isinstance(a.text, str) and isinstance(b.text, str):
                yield _Slot((*path, index), k, a.text, b.text)
        if before.children:
            yield from _slots(before.children, after.children, (*path, index))


def _rebuilt(
    events: tuple[Event, ...], texts: dict[tuple[tuple[int, ...], int | None], str], path: tuple[int, ...] = ()
) -> tuple[Event, ...]:
    out = list(events)
    for index, event in enumerate(events):
        here = (*path, index)
        changes: dict[str, object] = {}
        if (here, None) in texts:
            changes["text"] = texts[(here, None)]
        blocks = [replace(b, text=texts[(here, k)]) if (here, k) in texts else b for k, b in enumerate(event.blocks)]
        if any(a is not b for a, b in zip(blocks, event.blocks)):
            changes["blocks"] = tuple(blocks)
        if event.children:
            children = _rebuilt(event.children, texts, here)
            if children is not event.children:
                changes["children"] = children
        if changes:
            out[index] = replace(event, **changes)  # type: ignore[arg-type]
    return tuple(out) if any(a is not b for a, b in zip(out, events)) else events
