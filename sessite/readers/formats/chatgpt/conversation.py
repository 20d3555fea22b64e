"""One ChatGPT conversation as a Session: the kept branch in order, a note wherever it branched."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sessite.model import Problems, Session
from sessite.readers._util import text_of
from sessite.readers.base import parse_time
from sessite.readers.formats.chatgpt.messages import kept_message
from sessite.readers.formats.chatgpt.state import Conversation
from sessite.readers.formats.chatgpt.tree import build_tree
from sessite.readers.formats.chatgpt.versions import branch_note, detached_note
from sessite.readers.formats.chatgpt.vocabulary import CONVERSATION_FACTS


def record_count(conv: Any) -> int:
    """How many records (nodes of ``mapping``) a conversation holds: its share of the export's numbering."""
    mapping = conv.get("mapping") if isinstance(conv, dict) else None
    return len(mapping) if isinstance(mapping, dict) else 0


def conversation_session(
    conv: dict[str, Any], index: int, line: int, path: Path, problems: Problems, first: int, reported: Counter[str]
) -> Session:
    """The Session of ``conv``, the ``index``-th conversation of the export (found at ``line``),
    whose nodes are records ``first``, ``first + 1`` … in the order the file lists them."""
    mapping = conv.get("mapping")
    raw_id = text_of(conv.get("conversation_id")) or text_of(conv.get("id")) or f"{path.stem}-{index + 1}"
    if not isinstance(mapping, dict):
        problems.add(path, line, f"ChatGPT: conversation {raw_id}: 'mapping' is not an object; no messages read")
        mapping = {}
    tree = build_tree(mapping, conv.get("current_node"))
    c = Conversation(path, problems, tree, list(mapping), first, reported, line)
    for key, node in mapping.items():
        if not isinstance(node, dict):
            c.report(c.line_of(key), f"node {key!r} is a {type(node).__name__}, not an object; skipped")
            c.skip("tree node that is not an object", line=c.line_of(key))
    for step, node_id in enumerate(tree.kept):
        kept_message(c, node_id)
        if node_id in tree.branches:
            branch_note(c, node_id, tree.kept[step + 1] if step + 1 < len(tree.kept) else None)
    detached_note(c)
    return _session(c, conv, raw_id)


def _session(c: Conversation, conv: dict[str, Any], raw_id: str) -> Session:
    meta: dict[str, Any] = {}
    for key, label in CONVERSATION_FACTS:
        value = conv.get(key)
        if isinstance(value, (str, int, float)) and value not in ("", None) and value is not False:
            meta[label] = value
    plugins = conv.get("plugin_ids")
    if isinstance(plugins, list) and plugins:
        meta["plugins"] = [p for p in plugins if isinstance(p, str)]
    updated = parse_time(conv.get("update_time"))
    if updated is not None:
        meta["updated"] = updated.astimezone(UTC).isoformat()
    if c.tree.fallback:
        meta["branch shown"] = "the export names no current message; the most recent branch is shown"
    default = text_of(conv.get("default_model_slug")) or text_of(conv.get("model_slug"))
    title = text_of(conv.get("title"))
    started: datetime | None = parse_time(conv.get("create_time"))
    return c.finish(
        raw_id,
        started=started,
        title=title.strip() if title and title.strip() else None,
        models=tuple(c.models) or ((default,) if default else ()),
        meta=meta,
    )
