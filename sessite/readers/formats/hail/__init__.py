"""HAIL 1.0 (Human AI Interaction Log, hwisu/opensession): JSONL and HAIL JSON.

JSONL: a ``header`` line, ``event`` lines, an optional ``stats`` line last.
HAIL JSON: one object ``{version, session_id, agent, context, events[], stats}``.

``event_type`` is adjacently tagged (``{"type": "ToolCall", "data": {"name": …}}``),
content blocks are internally tagged (``{"type": "Text", "text": …}``). All 21
event types (the spec says 22; the enum in opensession's trace.rs has 21) and
8 block types map onto the model; anything else becomes an
UNKNOWN event or a JSON block, with a problem. Sub-agents merged inline (events
sharing a ``task_id``, bracketed by TaskStart/TaskEnd) are nested under a
SUBAGENT event placed where the task started. Codex-derived files put
``task_id`` only on TaskStart/TaskEnd turn markers: those stay flat markers.

Codex-derived files report tokens as content-less ``Custom{kind: token_count}``
events: their counts become the usage of the response before them
(``token_counts``), never empty events.

Modules by job: ``detect`` (sniffing), ``vocabulary`` (HAIL's types and
attribute tables), ``state`` (what a file's reading keeps), ``blocks`` and
``events`` and ``event_types`` (one record into a model event),
``token_counts`` (token counts folded into responses), ``assemble``
(the session from its records), ``reader`` (the Reader).
"""

from __future__ import annotations

from sessite.readers.formats.hail.reader import READER, HailReader
from sessite.readers.formats.hail.vocabulary import KNOWN_BLOCK_TYPES, KNOWN_EVENT_TYPES

__all__ = ["KNOWN_BLOCK_TYPES", "KNOWN_EVENT_TYPES", "READER", "HailReader"]
