"""The team's tasks: ``tasks/<team>/<n>.json``, one task each, as the task list last stood.

A task is ``{id, subject, description, activeForm?, status, owner?, blocks, blockedBy,
metadata?, createdAt?, updatedAt?}``; ``metadata._internal`` marks the tracker Claude Code
keeps for each teammate. A consolidated ``tasks.json`` (``{"tasks": [...]}``, ``title`` for
``subject``) holds several. Record n, for the fidelity ledger, is the n-th task of a file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sessite.model import Kind
from sessite.readers._util import obj, shown
from sessite.readers.files import load_json
from sessite.readers.formats.claude_teams.state import TeamBuilder
from sessite.readers.formats.claude_teams.vocabulary import NOT_OBJECT_TASK, TASK_SHOWN
from sessite.readers.safejson import as_text


def read_task_file(b: TeamBuilder, path: Path) -> None:
    """Each task of one file."""
    doc = load_json(path, b.problems)
    if doc is None:
        return
    listed = doc.get("tasks") if isinstance(doc, dict) else None
    tasks = listed if isinstance(listed, list) else [doc]
    for index, task in enumerate(tasks, start=1):
        _task(b, path, index, task)


def _task(b: TeamBuilder, path: Path, index: int, task: Any) -> None:
    if not isinstance(task, dict):
        b.problem(path, index, f"task is not an object ({shown(task)}); left out")
        b.skip_at(path, index, NOT_OBJECT_TASK)
        return
    number = as_text(task.get("id")) or path.stem
    subject = b.text(path, index, task, "subject", "task") or b.text(path, index, task, "title", "task") or ""
    description = b.text(path, index, task, "description", "task")
    status = b.text(path, index, task, "status", "task")
    owner = b.text(path, index, task, "owner", "task")
    internal = obj(task.get("metadata")).get("_internal") is True
    facts = [f"**{status}**" if status else None, f"owner {owner}" if owner else None]
    for key, words in (("blockedBy", "blocked by"), ("blocks", "blocks")):
        ids = task.get(key)
        if isinstance(ids, list) and ids:
            facts.append(f"{words} " + ", ".join(f"#{as_text(i)}" for i in ids))
    head = " · ".join(f for f in facts if f)
    what = "Teammate tracker" if internal else "Task"
    b.put(
        path,
        index,
        f"task-{number}",
        kind=Kind.SYSTEM,
        timestamp=b.time(path, index, task.get("createdAt"), "createdAt"),
        title=f"{what} #{number}: {subject}" if subject else f"{what} #{number}",
        text="\n\n".join(x for x in (head, description) if x),
        meta={k: v for k, v in task.items() if k not in TASK_SHOWN},
    )
