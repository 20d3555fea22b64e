"""Artifacts: the documents the agent keeps in its brain folder (``task.md``, ``implementation_plan.md``,
``walkthrough.md``, …), each with ``<name>.metadata.json`` (``{artifactType, summary, updatedAt,
version?}``) and its revisions: ``<name>.resolved.0`` … ``.resolved.N`` and ``<name>.resolved``
(the last, file mentions made links).

An artifact is shown as written (``<name>``), at its ``updatedAt``; before it, each revision as an
edit: the first whole, each later one as a diff from the one before (a revision identical to the
one before is merged into it). The files carry no time of their own but the metadata's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessite.model import Event, Kind, ToolCategory
from sessite.readers._util import shown, text_of, unified_diff
from sessite.readers.files import decode_bytes, load_json, read_bytes
from sessite.readers.formats.antigravity.state import BrainBuilder
from sessite.readers.formats.antigravity.vocabulary import ARTIFACT_META, SAME_REVISION

_METADATA = ".metadata.json"
_RESOLVED = re.compile(r"(?P<base>.+?)\.resolved(?:\.(?P<n>\d{1,9}))?")
_HEADING = re.compile(r"^#\s+(.+)$", re.M)
REVISION_TOOL = "artifact revision"


@dataclass
class Artifact:
    name: str
    source: Path | None = None
    metadata: Path | None = None
    resolved: Path | None = None
    revisions: dict[int, Path] = field(default_factory=dict)
    text: str | None = None  # the artifact's own file (``source``), once read


def artifacts_of(files: list[Path], folder: Path) -> tuple[list[Artifact], list[Path]]:
    """The brain folder's artifacts (from its top-level files), and the files that are none."""
    found: dict[str, Artifact] = {}
    others: list[Path] = []
    for path in files:
        if path.parent != folder:
            continue
        name = path.name
        revision = _RESOLVED.fullmatch(name)
        if name.endswith(_METADATA):
            found.setdefault(name[: -len(_METADATA)], Artifact(name[: -len(_METADATA)])).metadata = path
        elif revision is not None:
            art = found.setdefault(revision["base"], Artifact(revision["base"]))
            if revision["n"] is None:
                art.resolved = path
            else:
                art.revisions[int(revision["n"])] = path
        elif path.suffix.lower() == ".md":
            found.setdefault(name, Artifact(name)).source = path
        else:
            others.append(path)
    return [found[k] for k in sorted(found, key=_order)], others


def read_artifact(b: BrainBuilder, art: Artifact) -> list[Event]:
    """The artifact's revisions (as edits) and the artifact as it now stands."""
    doc = _metadata(b, art.metadata) if art.metadata else {}
    updated = b.time(art.metadata, 1, doc.get("updatedAt"), "updatedAt") if art.metadata else None
    events: list[Event] = []
    chain = [art.revisions[n] for n in sorted(art.revisions)] + ([art.resolved] if art.resolved else [])
    previous: str | None = None
    last: Path | None = None
    for path in chain:
        text = _read(b, path)
        if text is None:
            continue
        if text == previous:
            b.merge_at(path, 1, SAME_REVISION)
            continue
        label = path.name[len(art.name) + 1 :]  # resolved.3
        events.append(
            b.put(
                path,
                1,
                "revision",
                kind=Kind.TOOL_CALL,
                tool_name=REVISION_TOOL,
                category=ToolCategory.EDIT,
                path=art.name,
                diff=unified_diff(art.name, previous or "", text),
                tool_input={"artifact": art.name, "revision": label},
            )
        )
        previous, last = text, path
    art.text = _read(b, art.source) if art.source else None
    current = art.text
    shown_at = art.source if current is not None else last
    if current is None:
        current = previous
    if shown_at is None or current is None:
        if art.metadata and doc:  # nothing but its metadata
            summary = text_of(doc.get("summary")) or ""
            events.append(
                b.put(
                    art.metadata,
                    1,
                    "artifact",
                    kind=Kind.SYSTEM,
                    timestamp=updated,
                    title=art.name,
                    text=summary,
                    meta=doc,
                )
            )
        return events
    if art.metadata:
        b.merge_at(art.metadata, 1, ARTIFACT_META)
    meta = {"artifact": art.name, **doc}
    events.append(
        b.put(shown_at, 1, "artifact", kind=Kind.ASSISTANT, timestamp=updated, title=art.name, text=current, meta=meta)
    )
    return events


def heading(artifacts: list[Artifact]) -> str | None:
    """A title for a conversation with no words from the user: its first artifact's heading
    (from the text ``read_artifact`` read)."""
    for art in artifacts:
        found = _HEADING.search(art.text or "")
        if found:
            return found.group(1).strip()
    return None


def _metadata(b: BrainBuilder, path: Path) -> dict[str, Any]:
    doc = load_json(path, b.problems)
    if doc is None or isinstance(doc, dict):
        return doc or {}
    b.problem(path, 1, f"artifact metadata is not an object ({shown(doc)}); left out")
    return {}


def _read(b: BrainBuilder, path: Path) -> str | None:
    data = read_bytes(path, b.problems)
    if data is None:
        return None
    text, replaced = decode_bytes(data)
    if replaced:
        b.problem(path, None, "invalid UTF-8; undecodable bytes replaced")
    return text


def _order(name: str) -> tuple[int, str]:
    """The task list first, then the plan, the walkthrough, any other."""
    known = ("task.md", "implementation_plan.md", "walkthrough.md")
    return (known.index(name) if name in known else len(known), name)
