"""A conversation's message tree: the branch ChatGPT kept, and every other version hanging off it.

``mapping`` holds every message ever written in the conversation as a tree (``parent``,
``children``): editing a prompt or regenerating a reply starts a sibling branch. The
conversation as ChatGPT shows it is the path from the root to ``current_node``; each
other branch starts at a sibling of a message on that path (an older version of it) and
carries whatever followed that version. Nodes that reach the kept path by no chain of
parents (a damaged tree) are kept apart as detached.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sessite.readers._util import obj, text_of
from sessite.readers.base import parse_time


@dataclass
class Tree:
    nodes: dict[str, dict[str, Any]]  # node id -> node, in document order
    kept: list[str]  # the kept path, root first
    branches: dict[str, list[list[str]]] = field(default_factory=dict)  # kept node -> its other branches
    detached: list[str] = field(default_factory=list)
    fallback: bool = False  # ``current_node`` named no node: the most recent leaf's path is kept

    def message(self, node_id: str) -> dict[str, Any]:
        return obj(self.nodes[node_id].get("message"))

    def children(self, node_id: str) -> list[str]:
        listed = self.nodes[node_id].get("children")
        return [c for c in listed if isinstance(c, str) and c in self.nodes] if isinstance(listed, list) else []


def build_tree(mapping: dict[str, Any], current: Any) -> Tree:
    """The tree of ``mapping`` (nodes that are not objects are left out by the caller)."""
    nodes = {key: node for key, node in mapping.items() if isinstance(node, dict)}
    tree = Tree(nodes, [])
    start = current if isinstance(current, str) and current in nodes else None
    if start is None and nodes:
        start, tree.fallback = _latest_leaf(tree), True
    tree.kept = _path_to(tree, start)
    _branch(tree)
    return tree


def parent_of(tree: Tree, node_id: str) -> str | None:
    parent = tree.nodes[node_id].get("parent")
    return parent if isinstance(parent, str) and parent in tree.nodes else None


def _path_to(tree: Tree, node_id: str | None) -> list[str]:
    path: list[str] = []
    seen: set[str] = set()
    while node_id is not None and node_id not in seen:
        seen.add(node_id)
        path.append(node_id)
        node_id = parent_of(tree, node_id)
    return path[::-1]


def _latest_leaf(tree: Tree) -> str:
    """The leaf written last (by its message's time; the last in the file when none has one)."""
    leaves = [n for n in tree.nodes if not tree.children(n)] or list(tree.nodes)
    stamped = [(parse_time(tree.message(n).get("create_time")), i, n) for i, n in enumerate(leaves)]
    dated = [(t, i, n) for t, i, n in stamped if t is not None]
    return max(dated)[2] if dated else leaves[-1]


def _branch(tree: Tree) -> None:
    """Give each node off the kept path its branch: the kept node it hangs off and the sibling it starts from."""
    kept = set(tree.kept)
    anchor_of: dict[str, tuple[str, str]] = {}  # node -> (kept node, branch root)
    detached: set[str] = set()
    for node_id in tree.nodes:
        if node_id in kept or node_id in anchor_of or node_id in detached:
            continue
        chain: list[str] = []
        step: str | None = node_id
        found: tuple[str, str] | None = None
        while step is not None and step not in chain:
            if step in kept:
                found = (step, chain[-1])
                break
            if step in anchor_of:
                found = anchor_of[step]
                break
            if step in detached:
                break
            chain.append(step)
            step = parent_of(tree, step)
        for member in chain:
            if found is None:
                detached.add(member)
            else:
                anchor_of[member] = found
    members: dict[tuple[str, str], set[str]] = {}
    for node_id, key in anchor_of.items():
        members.setdefault(key, set()).add(node_id)
    for anchor in tree.kept:
        listed = [c for c in tree.children(anchor) if (anchor, c) in members]
        roots = listed + [r for (a, r) in members if a == anchor and r not in listed]
        if roots:
            tree.branches[anchor] = [_in_order(tree, root, members[(anchor, root)]) for root in roots]
    tree.detached = [n for n in tree.nodes if n in detached]


def _in_order(tree: Tree, root: str, members: set[str]) -> list[str]:
    """A branch's nodes, each after its parent (depth first by ``children``), the unreachable ones last."""
    out: list[str] = []
    stack = [root]
    seen: set[str] = set()
    while stack:
        node_id = stack.pop()
        if node_id in seen or node_id not in members:
            continue
        seen.add(node_id)
        out.append(node_id)
        stack.extend(reversed(tree.children(node_id)))
    out.extend(n for n in tree.nodes if n in members and n not in seen)
    return out


def role_of(message: dict[str, Any]) -> str:
    return text_of(obj(message.get("author")).get("role")) or "unknown"
