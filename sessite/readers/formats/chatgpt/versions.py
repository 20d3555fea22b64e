"""The versions ChatGPT did not keep: one note where the conversation branched, their messages in it.

Editing a prompt or regenerating a reply leaves the older version in the tree, with
everything that followed it. The page shows the kept branch as the conversation, and
where it branched a note ("2 other versions of this reply") holding each other
version's messages as text, in order, so nothing written is lost. The note carries its
first message's record; the other messages of its branches are merged into it.
"""

from __future__ import annotations

from typing import Any

from sessite.model import Block, Kind
from sessite.readers.base import as_text
from sessite.readers.formats.chatgpt.content import Shown, read_content
from sessite.readers.formats.chatgpt.messages import stamp
from sessite.readers.formats.chatgpt.state import Conversation
from sessite.readers.formats.chatgpt.tree import role_of
from sessite.readers.formats.chatgpt.vocabulary import BRANCH_EMPTY, MERGED_VERSION, ROOT, TO_USER

_WHAT = {"user": "prompt", "assistant": "reply"}
_HOW = {"user": "edited", "assistant": "regenerated"}


def branch_note(c: Conversation, anchor: str, kept_child: str | None) -> None:
    """The note for the branches off the kept node ``anchor`` (before ``kept_child``, if any)."""
    branches = c.tree.branches.get(anchor, [])
    role = role_of(c.tree.message(kept_child)) if kept_child else ""
    what = _WHAT.get(role, "message")
    count = len(branches)
    if kept_child:
        title = f"{count} other version{'s' if count > 1 else ''} of this {what}"
        how = _HOW.get(role, "rewritten")
        text = (
            f"This {what} was {how}: ChatGPT kept the version that follows. The other"
            f" version{'s' if count > 1 else ''}, with what followed, {'are' if count > 1 else 'is'} below."
        )
    else:
        title = f"{count} branch{'es' if count > 1 else ''} after the last message kept"
        text = "ChatGPT kept the conversation ending above; these messages were written after it on other branches."
    _note(c, [(f"Version {i + 1}", nodes) for i, nodes in enumerate(branches)], title, text)


def detached_note(c: Conversation) -> None:
    """Nodes no chain of parents joins to the conversation (a damaged tree): kept in one note at the end."""
    if not c.tree.detached:
        return
    count = len(c.tree.detached)
    c.problem(f"{count} message node(s) are joined to the conversation by no chain of parents; shown in a note")
    title = f"{count} message{'s' if count > 1 else ''} outside the conversation's tree"
    _note(
        c, [("Detached", c.tree.detached)], title, "The export joins these messages to no branch of the conversation."
    )


def _note(c: Conversation, versions: list[tuple[str, list[str]]], title: str, text: str) -> None:
    blocks: list[Block] = []
    first: tuple[int, Any, str] | None = None
    merged: list[int] = []
    for label, nodes in versions:
        for node_id in nodes:
            line = c.line_of(node_id)
            shown = _blocks(c, node_id, label)
            if not shown:
                c.skip(ROOT if c.tree.nodes[node_id].get("message") is None else BRANCH_EMPTY, line=line)
                continue
            blocks.extend(shown)
            if first is None:
                first = (line, stamp(c.tree.message(node_id)), node_id)
            else:
                merged.append(line)
    if first is None:
        return
    c.emit(
        f"versions-{first[2]}",  # named by its first node, as stable as the export's ids
        kind=Kind.SYSTEM,
        title=title,
        text=text,
        blocks=tuple(blocks),
        timestamp=first[1],
        line=first[0],
    )
    for line in merged:
        c.merged(line, MERGED_VERSION)


def _blocks(c: Conversation, node_id: str, label: str) -> list[Block]:
    """One message of another version as blocks: its text (code as code) and its media, titled by who wrote it."""
    raw = c.tree.nodes[node_id].get("message")
    if raw is None:
        return []
    if not isinstance(raw, dict):
        c.report(
            c.line_of(node_id), f"node {node_id!r}: message is a {type(raw).__name__}, not an object; shown as JSON"
        )
        return [Block("json", data=raw, title=f"{label} · message")]
    shown: Shown = read_content(raw.get("content"))
    if shown.empty:
        return []
    head = [label, role_of(raw)]
    recipient = raw.get("recipient")
    if recipient not in TO_USER:
        head.append(f"to {as_text(recipient)}")
    when = stamp(raw)
    if when is not None:
        head.append(when.strftime("%Y-%m-%d %H:%M"))
    title = " · ".join(head)
    if shown.code is not None and shown.code.strip():
        main = Block("code", text=shown.code, language=shown.language or "text", title=title)
    else:
        main = Block(
            "code", text=shown.text if shown.text.strip() else "(attachments only)", language="text", title=title
        )
    return [main, *shown.blocks]
