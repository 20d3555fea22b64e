"""Entire's checkpoint folders, as copied into an archive from its ``entire/checkpoints/v1`` branch.

Entire (a tool that checkpoints agent sessions into git) keeps each checkpoint as
``<2 hex>/<10 hex>/metadata.json`` and one folder per session in it, ``<N>/``, holding the
agent's own transcript ``full.jsonl`` (Claude Code, Codex, Gemini CLI, … read by their own
readers) beside ``metadata.json``, ``context.md``, ``prompt.txt``, ``content_hash.txt`` and (newer
versions) ``transcript.jsonl``, Entire's own normalized copy of the same turns.

Those beside-files are the checkpoint's, not sessions: the transcript's claim reads them as
companions (``sidecars``), its sessions carry what ``metadata.json`` says (``checkpoint_meta``),
and the checkpoint's own ``metadata.json`` is known and left quietly (``is_checkpoint_file``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sessite.readers.regular import read_regular

TRANSCRIPT = "full.jsonl"
SIDECARS = ("metadata.json", "context.md", "prompt.txt", "content_hash.txt", "transcript.jsonl")
_MAX = 1024 * 1024  # a metadata.json is a few KB


def _metadata(path: Path) -> dict[str, Any] | None:
    try:
        doc = json.loads(read_regular(path, _MAX + 1)) if path.stat().st_size <= _MAX else None
    except (OSError, ValueError):
        return None
    if isinstance(doc, dict) and isinstance(doc.get("checkpoint_id"), str):
        return doc
    return None


def is_checkpoint_file(path: Path) -> bool:
    """A ``metadata.json`` of an Entire checkpoint (or of one of its sessions)."""
    return path.name == "metadata.json" and _metadata(path) is not None


def sidecars(path: Path) -> list[Path]:
    """The files beside an Entire session's ``full.jsonl`` (none for any other file)."""
    if path.name != TRANSCRIPT or _metadata(path.with_name("metadata.json")) is None:
        return []
    return [p for p in (path.with_name(n) for n in SIDECARS) if p.is_file()]


def checkpoint_meta(path: Path) -> dict[str, Any]:
    """What an Entire session's ``metadata.json`` says, for the session page (empty for other files)."""
    if path.name != TRANSCRIPT:
        return {}
    doc = _metadata(path.with_name("metadata.json"))
    if doc is None:
        return {}
    keys = ("checkpoint_id", "session_id", "strategy", "created_at", "agent", "files_touched", "token_usage")
    return {"entire checkpoint": {k: doc[k] for k in keys if k in doc}}
