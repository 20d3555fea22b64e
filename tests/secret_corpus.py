"""Secrets people really paste into agent sessions, each in its natural place.

Every value is fake (random, from a fixed seed) but shaped like the real thing
(``secret_fakes``). Each ``Planted`` says where it goes in a Claude Code session
(a pasted prompt, a shell command, a command's output, a file read or written, a
tool's JSON input, or split across two events) and which ``cores`` must never
reach a built site. ``write`` puts every entry in its own Claude Code session and
every text in one AICS file too, so two readers carry them into pages, search and
exports.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from secret_corpus_more import MORE
from secret_corpus_services import SERVICES
from secret_fakes import Planted

CORPUS: list[Planted] = [*SERVICES, *MORE]

# ---------------------------------------------------------------------------------------------- writing


def _records(entry: Planted, sid: str) -> list[dict[str, Any]]:
    """The Claude Code records that put ``entry`` in its place."""
    env = {"sessionId": sid, "cwd": "/srv/shop", "gitBranch": "main", "version": "2.1.39", "isSidechain": False}
    out: list[dict[str, Any]] = []

    def add(kind: str, content: Any) -> None:
        n = len(out) + 1
        role = "user" if kind == "user" else "assistant"
        message: dict[str, Any] = {"role": role, "content": content}
        if role == "assistant":
            message |= {"id": f"msg_{n}", "model": "claude-opus-4-6", "usage": {"input_tokens": 1, "output_tokens": 1}}
        out.append(
            {
                **env,
                "type": kind,
                "uuid": f"{sid[:8]}-{n}",
                "parentUuid": out[-1]["uuid"] if out else None,
                "timestamp": f"2026-01-01T00:00:{n:02d}Z",
                "message": message,
            }
        )

    def call(name: str, args: dict[str, Any], result: str) -> None:
        add("assistant", [{"type": "tool_use", "id": f"toolu_{sid[:8]}", "name": name, "input": args}])
        add("user", [{"type": "tool_result", "tool_use_id": f"toolu_{sid[:8]}", "content": result}])

    add("user", f"help me with {entry.label.replace('-', ' ')}")
    p = entry.payload
    if entry.place == "prompt":
        add("user", p)
    elif entry.place == "bash":
        call("Bash", {"command": p, "description": "Run it"}, "done")
    elif entry.place == "output":
        call("Bash", {"command": entry.source, "description": "Show it"}, p)
    elif entry.place == "read":
        numbered = "\n".join(f"{i:>6}\u2192{line}" for i, line in enumerate(p.split("\n"), 1))
        call("Read", {"file_path": entry.source}, numbered)
    elif entry.place == "write":
        call("Write", {"file_path": entry.source, "content": p}, f"File created successfully at: {entry.source}")
    elif entry.place == "input":
        call("mcp__payments__charge", p, '{"ok": true}')
    elif entry.place == "split":
        first, second = p
        add("assistant", [{"type": "text", "text": first}])
        add("assistant", [{"type": "text", "text": second}])
    else:
        raise ValueError(entry.place)
    return out


def _aics(entries: list[Planted]) -> dict[str, Any]:
    texts: list[str] = []
    for entry in entries:
        payload = entry.payload
        texts.extend(
            payload if isinstance(payload, tuple) else [payload if isinstance(payload, str) else json.dumps(payload)]
        )
    messages = [{"id": str(i), "role": "user", "content": [{"type": "text", "text": t}]} for i, t in enumerate(texts)]
    session = {"id": "natural-places", "title": "pasted secrets", "messages": messages}
    log = {"version": "1.0", "creator": {"name": "t"}, "sessions": [session]}
    return {"version": "1.0", "creator": {"name": "t"}, "log": log}


def write(root: Path) -> Path:
    """An archive holding every entry of the corpus (Claude Code sessions plus one AICS file)."""
    project = root / "claude" / "-srv-shop"
    project.mkdir(parents=True, exist_ok=True)
    for i, entry in enumerate(CORPUS):
        sid = f"{i:08d}-0000-4000-8000-000000000000"
        records = _records(entry, sid)
        (project / f"{sid}.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n", "utf-8")
    (root / "pasted.aics.json").write_text(json.dumps(_aics(CORPUS)), "utf-8")
    return root
