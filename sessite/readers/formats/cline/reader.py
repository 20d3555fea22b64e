"""The Cline Reader: a task folder in, one session out."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sessite.model import Problems, Session
from sessite.readers import ledger
from sessite.readers._util import obj, opt_int, text_of
from sessite.readers.base import Reader, Sniff, parse_time
from sessite.readers.files import iter_json_array, load_json
from sessite.readers.formats.cline.copies import sort_panel
from sessite.readers.formats.cline.history import history_events
from sessite.readers.formats.cline.panel import ui_events
from sessite.readers.formats.cline.task import (
    AGENT,
    API_HISTORY,
    NAME,
    TASK_METADATA,
    UI_MESSAGES,
    Task,
    looks_like_task_file,
)
from sessite.readers.formats.cline.ui import ui_summary
from sessite.readers.platform import Platform
from sessite.readers.walk import files_below

# environment_history keys -> the label a session page shows
_ENVIRONMENT = (
    ("cline_version", "cline version"),
    ("host_name", "editor"),
    ("host_version", "editor version"),
    ("os_name", "os"),
)


# Editors built on VS Code whose globalStorage may hold Cline's tasks.
VSCODE_VARIANTS = ("Code", "Code - Insiders", "Cursor", "VSCodium", "Windsurf")
EXTENSION = "saoudrizwan.claude-dev"


class ClineReader(Reader):
    name = NAME
    claims_directories = True
    agent = AGENT

    def detect(self, sniffed: Sniff) -> bool:
        path = sniffed.path
        if not sniffed.is_dir:
            return False
        has_api = (path / API_HISTORY).is_file()
        has_ui = (path / UI_MESSAGES).is_file()
        if has_api and has_ui:
            return True
        if not (has_api or has_ui):
            return False
        # One of the two files: a task folder when named by its id, or when the file is shaped
        # like Cline's (a folder renamed, even to bytes that are not UTF-8, is still a task).
        return path.name.isdigit() or looks_like_task_file(path / (API_HISTORY if has_api else UI_MESSAGES))

    def companions(self, path: Path) -> list[Path]:
        try:
            return files_below(path)
        except OSError:
            return []

    def session_key(self, sniffed: Sniff) -> str | None:
        """The task id (its folder's name): copies of one task folder (an exported task, a
        snapshot taken while it ran) are read together and merged message by message."""
        name = sniffed.path.name
        return f"cline:{name}" if sniffed.is_dir and name.isdigit() else None

    def default_folders(self, plat: Platform) -> list[Path]:
        """The extension's ``tasks`` in each VS Code editor's globalStorage (local and remote), and the
        ``cline`` command's."""
        storages = [
            config / variant / "User" / "globalStorage" for config in plat.config_dirs for variant in VSCODE_VARIANTS
        ]
        storages.append(plat.home / ".vscode-server" / "data" / "User" / "globalStorage")
        return [*(s / EXTENSION / "tasks" for s in storages), plat.home / ".cline" / "data" / "tasks"]

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        yield _read_task(path, problems)


READER = ClineReader()


_NOT_AN_OBJECT = "message that is not an object"


def _load_array(path: Path, problems: Problems, what: str, task: Task) -> list[tuple[int, dict[str, Any]]]:
    """The file's messages, each with its record number (its 1-based index in the array)."""
    if not path.is_file():
        return []
    items = []
    for number, (line, item) in enumerate(iter_json_array(path, problems), 1):
        if isinstance(item, dict):
            items.append((number, item))
        else:
            problems.add(path, line, f"cline: {what} {number} is a {type(item).__name__}, not an object; skipped")
            task.skipped[_NOT_AN_OBJECT] += 1
            ledger.not_shown(path, number, _NOT_AN_OBJECT)
    return items


def _load_metadata(path: Path, problems: Problems) -> dict[str, Any]:
    if not path.is_file():
        return {}
    doc = load_json(path, problems)
    if isinstance(doc, dict):
        return doc
    if doc is not None:
        problems.add(path, None, f"cline: task_metadata.json is a {type(doc).__name__}, not an object; ignored")
    return {}


def _read_task(path: Path, problems: Problems) -> Session:
    api_path, ui_path = path / API_HISTORY, path / UI_MESSAGES
    task = Task(api_path, problems)
    api = _load_array(api_path, problems, "history message", task)
    ui = _load_array(ui_path, problems, "panel message", task)
    metadata = _load_metadata(path / TASK_METADATA, problems)
    summary = ui_summary(ui, ui_path, problems)
    models = _models(metadata, api)
    if api:
        history_events(api, summary, metadata, task, sort_panel(ui, api, task, ui_path), ui_path)
    elif ui:
        task.path = ui_path
        ui_events(ui, task)
    else:
        problems.add(path, None, "cline: task folder has no readable messages")
    stamp = opt_int(path.name)
    started = parse_time(stamp) if stamp and stamp > 0 else None
    times = summary.times + [e.timestamp for e in task.events if e.timestamp]
    source = api_path if api_path.is_file() else ui_path if ui_path.is_file() else path
    return task.finish(
        path.name,
        source=source,
        title=None,
        started=min([t for t in (started, *times) if t], default=None),
        ended=max(times, default=None),
        cwd=task.cwd,
        models=models or list(task.models),
        meta=_task_meta(metadata, task, rebuilt=not api and bool(ui)),
    )


def _task_meta(metadata: dict[str, Any], task: Task, rebuilt: bool) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    history = metadata.get("environment_history")
    env = [e for e in history or [] if isinstance(e, dict)] if isinstance(history, list) else []
    if env:
        last = env[-1]
        for key, label in _ENVIRONMENT:
            if last.get(key):
                meta[label] = last[key]
    files = metadata.get("files_in_context")
    if isinstance(files, list) and files:
        meta["files in context"] = len(files)
    if task.cost:
        meta["cost"] = round(task.cost, 6)
    if rebuilt:
        meta["rebuilt from"] = UI_MESSAGES
    return meta


def _models(metadata: dict[str, Any], api: list[tuple[int, dict[str, Any]]]) -> list[str]:
    """The models task_metadata.json lists, then those the history names."""
    models: list[str] = []
    usage = metadata.get("model_usage")
    for entry in usage if isinstance(usage, list) else []:
        model = text_of(obj(entry).get("model_id"))
        if model and model not in models:
            models.append(model)
    for _, message in api:
        model = text_of(obj(message.get("modelInfo")).get("modelId"))
        if model and model not in models:
            models.append(model)
    return models
