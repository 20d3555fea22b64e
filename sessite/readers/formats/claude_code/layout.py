"""Where a session's files are: the main ``<sid>.jsonl`` and its sub-agent files.

Claude Code 2.1.x nests sub-agents in ``<sid>/subagents/agent-<id>.jsonl`` (this
module); 2.0.x writes them beside the main file (``flat``).
"""

from __future__ import annotations

from pathlib import Path

from sessite.readers.walk import files_below


def main_file_of_agent(path: Path) -> Path | None:
    """For ``<sid>/subagents/[…/]agent-<id>.jsonl``: the ``<sid>.jsonl`` it belongs to."""
    if not path.name.startswith("agent-"):
        return None
    parent = path.parent
    for _ in range(4):
        if parent.name == "subagents":
            sid_dir = parent.parent
            return sid_dir.parent / f"{sid_dir.name}.jsonl"
        if parent.parent == parent:
            break
        parent = parent.parent
    return None


def agent_id_from_name(path: Path) -> str:
    """``agent-<id>.jsonl`` → ``<id>``."""
    name = path.name
    if name.endswith(".jsonl"):
        name = name[: -len(".jsonl")]
    return name[len("agent-") :] if name.startswith("agent-") else name


def agent_meta_path(path: Path) -> Path:
    """The ``agent-<id>.meta.json`` sidecar Claude Code writes next to a sub-agent file."""
    return (
        path.with_name(path.name[: -len(".jsonl")] + ".meta.json")
        if path.name.endswith(".jsonl")
        else path.with_suffix(".meta.json")
    )


def subagents_folder(main: Path) -> Path:
    return main.with_suffix("") / "subagents"


def agent_files(main: Path) -> list[Path]:
    """The sub-agent transcripts of a main session file, in a stable order."""
    folder = subagents_folder(main)
    if not folder.is_dir():
        return []
    try:
        return files_below(folder, "agent-*.jsonl")
    except OSError:
        return []


def nested_files(path: Path) -> list[Path]:
    """Every file under a main file's ``<sid>/subagents/`` folder."""
    nested: list[Path] = []
    folder = subagents_folder(path)
    if folder.is_dir():
        try:
            nested = files_below(folder)
        except OSError:
            nested = []
    return nested
