"""Keys cut in two: the first part ends one event's (or block's) text, the rest starts the next.

Each string is redacted alone, and the first part is recognisable there (a known
prefix cut short at the very end: see ``scanners.partial_key_at_end``). The rest
is only recognisable next to it: the run of key characters the next text starts
with. This pass walks a session's texts in reading order and redacts that run.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from sitegen.analyze.redact.scanners import continued_key_head, partial_key_kind
from sitegen.model import Block, Event


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
