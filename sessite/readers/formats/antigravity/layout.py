"""Which folders and files are Antigravity's, and which files one conversation is made of.

A brain folder is known by what Antigravity writes into it: ``.system_generated/logs/transcript*.jsonl``,
``.system_generated/messages/*.json``, or an artifact's ``<name>.md.metadata.json`` (with its
``artifactType``). The conversation's other files sit beside ``brain/``, named by its id.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from sessite.readers.base import Sniff
from sessite.readers.formats.antigravity.vocabulary import (
    ANNOTATIONS,
    BRAIN,
    CONVERSATION_DB,
    SIDE_FOLDERS,
    SYSTEM_GENERATED,
    TRANSCRIPT,
    TRANSCRIPT_FULL,
)
from sessite.readers.walk import walk

_METADATA = ".metadata.json"
_ARTIFACT_TYPE = re.compile(r'"artifactType"\s*:')


def is_brain_folder(folder: Path) -> bool:
    generated = folder / SYSTEM_GENERATED
    if generated.is_dir():
        logs = generated / "logs"
        if (logs / TRANSCRIPT).is_file() or (logs / TRANSCRIPT_FULL).is_file():
            return True
        if any(p.suffix == ".json" for p in _files(generated / "messages")):
            return True
    if BRAIN not in f"{folder.parent.name}/{folder.name}".lower():
        return False  # only a brain folder (or a copy named for one) is listed for artifacts
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.endswith(_METADATA) and entry.is_file() and _is_artifact_metadata(Path(entry.path)):
                    return True
    except OSError:
        return False
    return False


def _is_artifact_metadata(path: Path) -> bool:
    head = Sniff(path).text(4096).lstrip()
    return head.startswith("{") and _ARTIFACT_TYPE.search(head) is not None


def is_step_log(sniffed: Sniff) -> bool:
    """A transcript on its own: JSON lines of ``{step_index, source, type, …}``."""
    if sniffed.path.suffix.lower() != ".jsonl":
        return False
    first = next(sniffed.json_lines(1), None)
    return (
        first is not None
        and isinstance(first.get("type"), str)
        and isinstance(first.get("source"), str)
        and ("step_index" in first or "status" in first)
    )


def is_encrypted(path: Path) -> bool:
    """``conversations/<id>.pb`` or ``implicit/<id>.pb`` under an Antigravity folder (or a copy
    whose name says it is Antigravity's)."""
    return path.suffix.lower() == ".pb" and _antigravity_named(path)


def is_annotations(path: Path) -> bool:
    """``annotations/<id>.pbtxt`` under an Antigravity folder (or a copy whose name says so). A walk
    meets it before ``brain/``, so it is claimed on its own; the brain folder's read shows it."""
    return path.suffix.lower() == ".pbtxt" and _antigravity_named(path)


def brain_of_annotations(path: Path) -> Path:
    return path.parent.parent / BRAIN / path.stem


def _antigravity_named(path: Path) -> bool:
    names = (path.name, path.parent.name, path.parent.parent.name)
    return any("antigravity" in name.lower() for name in names)


def brain_files(folder: Path) -> list[Path]:
    """Every file of a brain folder, ``.system_generated`` included."""
    found: list[Path] = []
    for listing in walk(folder, onerror=lambda _: None, too_deep=lambda _: None):
        listing.dirs.sort()
        found += [Path(listing.path) / name for name in sorted(listing.files)]
    return found


def side_files(folder: Path) -> dict[str, Path]:
    """The conversation's files beside ``brain/`` (``conversations/<id>.pb``, its ``.db``,
    ``implicit/<id>.pb``, ``annotations/<id>.pbtxt``), by kind."""
    if folder.parent.name != BRAIN:
        return {}
    home, name = folder.parent.parent, folder.name
    found = {
        "conversation": home / "conversations" / f"{name}{SIDE_FOLDERS['conversations']}",
        "database": home / "conversations" / f"{name}{CONVERSATION_DB}",
        "implicit": home / "implicit" / f"{name}{SIDE_FOLDERS['implicit']}",
        "annotations": annotations_of(home, name),
    }
    return {kind: path for kind, path in found.items() if path.is_file()}


def annotations_of(home: Path, name: str) -> Path:
    return home / ANNOTATIONS / f"{name}.pbtxt"


def _files(folder: Path) -> list[Path]:
    try:
        return [p for p in folder.iterdir() if p.is_file()]
    except OSError:
        return []
