"""The Trae reader: Trae Agent's trajectory files (``bytedance/trae-agent``).

A trajectory is written wherever ``--trajectory-file`` points (by default
``trajectories/trajectory_<time>.json`` in the working folder), so discovery has no folder
of its own for it. The TRAE CLI (``~/.trae/cli/sessions``) writes Codex rollouts: those
files are the ``codex`` reader's, and this reader only names the folders so ``sessite
discover`` finds them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from sessite.model import Kind, Problems, Session
from sessite.readers._util import obj, text_of
from sessite.readers.base import Reader, Sniff
from sessite.readers.files import load_json
from sessite.readers.formats.trae.trajectory import AGENT, NAME, TraeBuilder, interaction, stamp, step
from sessite.readers.platform import Platform


class TraeReader(Reader):
    name = NAME
    agent = AGENT

    def detect(self, sniffed: Sniff) -> bool:
        if sniffed.path.suffix.lower() != ".json":
            return False
        head = sniffed.text().lstrip()
        return (
            head.startswith("{")
            and '"task"' in head
            and '"start_time"' in head
            and any(key in head for key in ('"llm_interactions"', '"llm_interaction"', '"agent_steps"'))
        )

    def default_folders(self, plat: Platform) -> list[Path]:
        trae = plat.home / ".trae" / "cli"
        return [trae / "sessions", trae / "archived_sessions"]

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        doc = load_json(path, problems)
        if not isinstance(doc, dict):
            if doc is not None:
                problems.add(path, None, f"{NAME}: expected a trajectory object, got {type(doc).__name__}")
            return
        b = TraeBuilder(path, problems, text_of(doc.get("provider")))
        b.model(text_of(doc.get("model")))
        started = stamp(doc.get("start_time"))
        task = text_of(doc.get("task"))
        if task:
            b.emit("task", kind=Kind.USER, text=task, timestamp=started, line=1)
        else:
            b.skip("trajectory without a task", line=1)
        line = 1
        rust = doc.get("llm_interaction")
        steps = doc.get("agent_steps")
        for item in steps if isinstance(steps, list) else (rust if isinstance(rust, list) else ()):
            line += 1
            _each(b, line, item, _step)
        interactions = doc.get("llm_interactions")
        for item in interactions if isinstance(interactions, list) else ():
            line += 1
            _each(b, line, item, interaction)
        final = text_of(doc.get("final_result"))
        if final:
            line += 1
            title = "Result" if doc.get("success") is not False else "Result (task not completed)"
            b.emit("result", kind=Kind.SYSTEM, title=title, text=final, timestamp=stamp(doc.get("end_time")), line=line)
        meta = {k: doc[k] for k in ("provider", "success", "execution_time", "max_steps", "max_step") if k in doc}
        yield b.finish(path.stem, started=started, ended=stamp(doc.get("end_time")), title=None, meta=meta)


def _step(b: TraeBuilder, line: int, item: dict[str, Any]) -> None:
    """A Python step, or a Rust interaction holding its step (and perhaps an error of its own)."""
    step(b, line, obj(item.get("steps")) or item, stamp(item.get("timestamp")))
    error = text_of(item.get("error_message"))
    if error and "steps" in item:
        b.emit(f"step-{line}-failed", kind=Kind.SYSTEM, title="Error", text=error, is_error=True, line=line)


def _each(b: TraeBuilder, line: int, item: object, read: Callable[[TraeBuilder, int, dict[str, Any]], None]) -> None:
    if not isinstance(item, dict):
        b.report(line, f"record {line} is {type(item).__name__}, not an object; shown as raw JSON")
        b.emit(f"record-{line}", kind=Kind.UNKNOWN, title="trajectory record", raw=item, line=line)
        return
    try:
        read(b, line, item)
    except Exception as exc:  # noqa: BLE001 - one odd record costs that record, never the trajectory
        b.unreadable(line, "trajectory record", item, exc)


READER = TraeReader()
