"""Compaction: the boundary marker, the summary that replaces the history, and the agent that wrote it.

When Claude Code compacts a conversation it writes a ``system`` record
(``compact_boundary`` or ``microcompact_boundary``), then a ``user`` record flagged
``isCompactSummary`` that carries the summary. The summary is written by a
sub-agent whose id starts with ``acompact``; it has no spawning tool call, so it
is placed just before the boundary it produced.
"""

from __future__ import annotations

from typing import Any

from sessite.model import Kind
from sessite.readers._util import text_of
from sessite.readers.formats.claude_code.state import EventSpec, Transcript

BOUNDARY_SUBTYPES = ("compact_boundary", "microcompact_boundary")
_COMPACTED = "Conversation compacted"
COMPACTION_AGENT_TITLE = "Compaction agent"


def is_compaction_agent(agent_id: str | None) -> bool:
    return (agent_id or "").startswith("acompact")


def summary_spec(text: str) -> EventSpec:
    """The ``isCompactSummary`` user record: the summary the model continues from."""
    return {"kind": Kind.COMPACTION, "title": "Compaction summary", "text": text, "meta": {"summary": True}}


def boundary_spec(rec: dict[str, Any], subtype: str, text: str, meta: dict[str, Any]) -> EventSpec:
    """A compact boundary, with the scalars of its ``compactMetadata`` in meta."""
    data = rec.get("compactMetadata") or rec.get("microcompactMetadata")
    if isinstance(data, dict):
        meta.update({k: v for k, v in data.items() if isinstance(v, (str, int, float, bool))})
    if text_of(rec.get("logicalParentUuid")):
        meta["logicalParentUuid"] = rec["logicalParentUuid"]
    title = _COMPACTED if subtype == "compact_boundary" else "Context micro-compacted"
    return {"kind": Kind.COMPACTION, "title": title, "text": text if text and text != title else "", "meta": meta}


def compaction_position(main: Transcript, agent: Transcript) -> int:
    """A compaction agent goes just before the compact boundary it produced."""
    for index, event in enumerate(main.events):
        if event.kind != Kind.COMPACTION or event.title != _COMPACTED:
            continue
        if agent.ended is None or event.timestamp is None or event.timestamp >= agent.ended:
            return index
    return len(main.events)
