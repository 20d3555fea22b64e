"""``Custom{kind: token_count}`` events: HAIL files converted from Codex report a response's
tokens as a content-less event after it. Shown as such they would be empty system events, so
their counts are folded into the response they count (the last model event before them of
the same task); a repeated report is counted as not shown, and a count no response precedes
is shown as a short note of its own."""

from __future__ import annotations

from dataclasses import replace

from sessite.model import Event, Kind, Usage
from sessite.readers.builder import MODEL_KINDS
from sessite.readers.formats.hail.events import EventRecord

TOKEN_COUNT = "token_count"
MERGED = "token count (shown as the usage of the response it counts)"
REPEATED = "repeated token count (already counted)"
EMPTY = "token count with no counts"
REPEATED_NOTE = "repeated report, not counted again"  # what events._usage notes in meta


def is_token_count(record: EventRecord) -> bool:
    """A Custom token_count event with nothing to show but its counts."""
    event, _, hail_type = record
    return (
        hail_type == "Custom"
        and event.meta.get("custom.kind") == TOKEN_COUNT
        and not event.text.strip()
        and not event.blocks
    )


def fold_token_count(records: list[EventRecord], record: EventRecord) -> tuple[str, str] | None:
    """Fold a token_count record into ``records``: ("merged" | "not shown", reason), or None
    when it stays an event of its own (then ``records[-1]`` is the note made of it)."""
    event, task_id, hail_type = record
    if event.usage is None:
        return "not shown", REPEATED if event.meta.get("usage") == REPEATED_NOTE else EMPTY
    for index in range(len(records) - 1, -1, -1):
        target, target_task, _ = records[index]
        if target_task == task_id and target.kind in MODEL_KINDS:
            usage = (target.usage or Usage()) + event.usage
            records[index] = (replace(target, usage=usage), target_task, records[index][2])
            return "merged", MERGED
    records.append((_note(event), task_id, hail_type))
    return None


def _note(event: Event) -> Event:
    """A count no response precedes: a system note that says what it counts."""
    usage = event.usage or Usage()
    text = f"{usage.input_tokens:,} input and {usage.output_tokens:,} output tokens reported before any response"
    return replace(event, kind=Kind.SYSTEM, title="token count", text=text)
