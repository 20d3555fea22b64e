"""The OpenHands reader: V1 conversation folders, legacy event folders and trajectories.

- ``~/.openhands/conversations/<id>/`` (the CLI and SDK, V1): ``base_state.json`` (the
  agent's model, the workspace, usage and cost) and ``events/event-<NNNNN>-<uuid>.json``;
- ``~/.openhands/sessions/<id>/events/<n>.json`` (the older local server): one legacy event
  per file;
- a trajectory (``save_trajectory_path``, the test suites' ``trajs``): the legacy events as
  one JSON array.

A folder's event files are its records (one each, line 1); a trajectory's records are its
array's elements (1-based). A ``base_state.json`` alone is a session without events.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sessite.model import Problems, Session, Usage
from sessite.readers._util import obj, text_of, to_float, to_int
from sessite.readers.base import Reader, Sniff
from sessite.readers.files import iter_json_array, load_json
from sessite.readers.formats.openhands import legacy, sdk
from sessite.readers.formats.openhands.state import OpenHandsBuilder
from sessite.readers.formats.openhands.vocabulary import AGENT, NAME
from sessite.readers.platform import Platform

_EVENT_FILE = re.compile(r"^(?:event-\d+-[\w-]+|\d+)\.json$")
_TRAJECTORY = re.compile(
    r'^\[\s*\{\s*"id"\s*:\s*\d+\s*,\s*"timestamp"\s*:\s*"[^"]*"\s*,\s*"source"\s*:\s*"(?:user|agent|environment)"'
)
_STATE = re.compile(r'"kind"\s*:\s*"(?:Agent|LocalWorkspace|RemoteWorkspace)"')
STATE_FILE = "base_state.json"


def event_files(folder: Path) -> list[Path]:
    """A conversation folder's event files, in order."""
    try:
        found = [p for p in (folder / "events").iterdir() if _EVENT_FILE.match(p.name) and p.is_file()]
    except OSError:
        return []
    return sorted(found, key=lambda p: (int(p.stem) if p.stem.isdigit() else -1, p.name))


class OpenHandsReader(Reader):
    name = NAME
    agent = AGENT
    claims_directories = True
    claims_files = True

    def detect(self, sniffed: Sniff) -> bool:
        path = sniffed.path
        if sniffed.is_dir:
            files = event_files(path)
            return bool(files) and '"source"' in Sniff(files[0]).text(4096)
        if path.suffix.lower() != ".json":
            return False
        head = sniffed.text().lstrip()
        if head.startswith("["):
            return _TRAJECTORY.match(head) is not None
        return head.startswith("{") and '"persistence_dir"' in head and _STATE.search(head) is not None

    def companions(self, path: Path) -> list[Path]:
        if not path.is_dir():
            return []
        extra = [path / name for name in (STATE_FILE, "TASKS.json") if (path / name).is_file()]
        return [*event_files(path), *extra]

    def default_folders(self, plat: Platform) -> list[Path]:
        home = plat.var("OPENHANDS_HOME") or plat.home / ".openhands"
        return [home / "conversations", home / "sessions"]

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        if path.is_dir():
            yield from _folder(path, problems)
        elif Sniff(path).text().lstrip().startswith("["):  # as ``detect`` saw it: a BOM or blanks first
            yield from _trajectory(path, problems)
        else:
            b = OpenHandsBuilder(path, problems)
            state = obj(load_json(path, problems))
            if state:
                yield _finish(b, path.stem, state, {"events": "none stored beside this state"})


def _folder(path: Path, problems: Problems) -> Iterator[Session]:
    b = OpenHandsBuilder(path, problems)
    state = obj(load_json(path / STATE_FILE, problems)) if (path / STATE_FILE).is_file() else {}
    for file in event_files(path):
        b.path = file
        event = load_json(file, problems)
        if not isinstance(event, dict):
            if event is not None:
                b.report(1, f"expected an event object, got {type(event).__name__}")
            continue
        _event(b, 1, event)
    b.path = path
    yield _finish(b, path.name, state, {})


def _trajectory(path: Path, problems: Problems) -> Iterator[Session]:
    b = OpenHandsBuilder(path, problems)
    index = 0
    for _, item in iter_json_array(path, problems):
        index += 1
        if not isinstance(item, dict):
            b.unknown(f"e{index}", "event that is not an object", item, index)
            continue
        _event(b, index, item)
    if index:
        yield _finish(b, path.stem, {}, {})


def _event(b: OpenHandsBuilder, line: int, event: dict[str, Any]) -> None:
    try:
        if isinstance(event.get("kind"), str):  # V1 events name their kind; legacy ones never do
            sdk.read_event(b, line, event)
        else:
            legacy.read_event(b, line, event)
    except Exception as exc:  # noqa: BLE001 - one odd event costs that event, never the conversation
        b.unreadable(line, "event", event, exc)


def _finish(b: OpenHandsBuilder, fallback_id: str, state: dict[str, Any], meta: dict[str, Any]) -> Session:
    agent = obj(state.get("agent"))
    b.model(text_of(obj(agent.get("llm")).get("model")))
    facts = dict(meta)
    if text_of(state.get("execution_status")):
        facts["status"] = state["execution_status"]
    usage, cost = _totals(obj(obj(state.get("stats")).get("usage_to_metrics")))
    cost = cost if cost is not None else b.cost
    if cost is not None:
        facts["cost"] = cost
    return b.finish(
        text_of(state.get("id")) or fallback_id,
        cwd=text_of(obj(state.get("workspace")).get("working_dir")) or b.cwd,
        title=b.title,
        usage=usage,
        meta=facts,
    )


def _totals(metrics: dict[str, Any]) -> tuple[Usage | None, float | None]:
    """The session's token and cost totals from ``base_state.json`` (one entry per LLM it used)."""
    usage = Usage()
    cost: float | None = None
    for entry in metrics.values():
        entry = obj(entry)
        tokens = obj(entry.get("accumulated_token_usage"))
        read, write = to_int(tokens.get("cache_read_tokens")), to_int(tokens.get("cache_write_tokens"))
        fresh = max(to_int(tokens.get("prompt_tokens")) - read - write, 0)  # prompt tokens count the cached ones
        usage += Usage(
            fresh, to_int(tokens.get("completion_tokens")), read, write, to_int(tokens.get("reasoning_tokens"))
        )
        spent = to_float(entry.get("accumulated_cost"))
        if spent is not None:
            cost = (cost or 0.0) + spent
    return (usage or None), cost


READER = OpenHandsReader()
