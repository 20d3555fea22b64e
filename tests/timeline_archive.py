"""A generated Claude Code archive for the compact timeline's tests: one long session of many
turns (a prompt, a thought, a run of tool calls with edits, shell commands with descriptions,
reads and searches, a sub-agent now and then, an answer), and short sessions beside it in the
same project and in another, so a session page has neighbours."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

LONG = "7e1e0000-0000-4000-8000-000000000001"
PROJECT = "-home-dev-shop"
CWD = "/home/dev/shop"
FILLER = "The parser keeps the trailing field, the cache is warmed once, and the renderer escapes every value. "
SECRET_WORDS = "zebra-quartz-{turn}"  # words only a folded tool output holds, for the find tests


class Transcript:
    """JSONL records of one transcript, chained by parentUuid, ``step`` apart."""

    def __init__(
        self, sid: str, start: datetime, agent: str | None = None, step: timedelta | None = None, cwd: str = CWD
    ) -> None:
        self.sid = sid
        self.cwd = cwd
        self.records: list[dict] = []
        self.clock = start
        self.agent = agent
        self.step = step or timedelta(seconds=20)

    def add(self, rec: dict) -> None:
        n = len(self.records)
        prefix = (self.agent or self.sid)[:8]
        env = {
            "sessionId": self.sid,
            "cwd": self.cwd,
            "gitBranch": "main",
            "version": "2.1.39",
            "userType": "external",
            "isSidechain": self.agent is not None,
            **({"agentId": self.agent} if self.agent else {}),
        }
        uuid = f"{prefix}-0000-4000-8000-{n:012d}"
        parent = self.records[-1]["uuid"] if self.records else None
        stamp = self.clock.strftime("%Y-%m-%dT%H:%M:%SZ")
        self.records.append({**env, "uuid": uuid, "parentUuid": parent, "timestamp": stamp, **rec})
        self.clock += self.step

    def user(self, text: str) -> None:
        self.add({"type": "user", "message": {"role": "user", "content": text}})

    def assistant(self, key: str, content: list[dict]) -> None:
        usage = {"input_tokens": 10, "output_tokens": 5}
        message = {"id": f"msg_{key}", "model": "claude-test", "role": "assistant", "content": content, "usage": usage}
        self.add({"type": "assistant", "message": message})

    def call(self, key: str, tool_id: str, name: str, args: dict) -> None:
        self.assistant(key, [{"type": "tool_use", "id": tool_id, "name": name, "input": args}])

    def result(self, tool_id: str, output: str, extra: dict | None = None, error: bool = False) -> None:
        block = {"type": "tool_result", "tool_use_id": tool_id, "content": output, "is_error": error}
        rec: dict = {"type": "user", "message": {"role": "user", "content": [block]}}
        if extra:
            rec["toolUseResult"] = extra
        self.add(rec)

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(r) + "\n" for r in self.records))


def _edit(t: Transcript, turn: int, k: int) -> None:
    """An Edit whose result repeats the change as a whole-hunk patch at line 40 (as Claude Code's
    ``structuredPatch`` may), and echoes the file with ``cat -n``."""
    path = f"{CWD}/src/module_{k}.py"
    old = f"def handler_{turn}_{k}(value):\n    return value\n"
    new = f"def handler_{turn}_{k}(value):\n    return value.strip()\n"
    tool_id = f"toolu_edit_{turn}_{k}"
    t.call(f"{turn}e{k}", tool_id, "Edit", {"file_path": path, "old_string": old, "new_string": new})
    echo = (
        f"The file {path} has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n"
        f"    40\tdef handler_{turn}_{k}(value):\n    41\t    return value.strip()\n"
    )
    patch = [
        {
            "oldStart": 40,
            "oldLines": 2,
            "newStart": 40,
            "newLines": 2,
            "lines": [
                f"-def handler_{turn}_{k}(value):",
                "-    return value",
                f"+def handler_{turn}_{k}(value):",
                "+    return value.strip()",
            ],
        }
    ]
    t.result(tool_id, echo, {"filePath": path, "structuredPatch": patch, "originalFile": old})


def write_long_session(folder: Path, turns: int, start: datetime) -> None:
    """The long session: ``turns`` turns of 8 tool calls each, a sub-agent every fifth turn."""
    t = Transcript(LONG, start)
    for turn in range(turns):
        t.user(f"Turn {turn}: please fix the handlers in module {turn}. " + FILLER)
        t.assistant(f"{turn}th", [{"type": "thinking", "thinking": f"Turn {turn} thinking. " + FILLER * 3}])
        t.assistant(f"{turn}a", [{"type": "text", "text": f"Looking at module {turn}."}])
        for k in range(3):
            tool_id = f"toolu_read_{turn}_{k}"
            t.call(f"{turn}r{k}", tool_id, "Read", {"file_path": f"{CWD}/src/module_{k}.py"})
            body = "".join(f"{n:6d}\tline {n} of module {k} {SECRET_WORDS.format(turn=turn)}\n" for n in range(1, 60))
            t.result(tool_id, body)
        for k in range(2):
            _edit(t, turn, k)
        tool_id = f"toolu_bash_{turn}"
        args = {"command": f"pytest -q tests/test_turn_{turn}.py", "description": "Run the turn's tests"}
        t.call(f"{turn}b", tool_id, "Bash", args)
        failed = turn % 4 == 1
        t.result(tool_id, ("Exit code 1\n" if failed else "") + "." * 40 + "\n40 passed", error=failed)
        tool_id = f"toolu_grep_{turn}"
        t.call(f"{turn}g", tool_id, "Grep", {"pattern": f"handler_{turn}", "path": f"{CWD}/src"})
        t.result(tool_id, "Found 2 files\nsrc/module_0.py\nsrc/module_1.py")
        tool_id = f"toolu_bash2_{turn}"
        t.call(f"{turn}c", tool_id, "Bash", {"command": "git status --short", "description": "Show changed files"})
        t.result(tool_id, " M src/module_0.py\n M src/module_1.py")
        if turn % 5 == 2:
            _subagent(t, folder, turn)
        answer = (
            f"## Turn {turn} done\n\n"
            + (FILLER * 3 + "\n\n") * 2
            + f"- handler_{turn}_0 strips\n- handler_{turn}_1 strips\n"
        )
        t.assistant(f"{turn}z", [{"type": "text", "text": answer}])
    t.write(folder / f"{LONG}.jsonl")


def _subagent(t: Transcript, folder: Path, turn: int) -> None:
    aid = f"a{turn:07d}"
    tool_id = f"toolu_task_{turn}"
    t.call(
        f"{turn}task", tool_id, "Task", {"description": f"Survey module {turn}", "prompt": "Look around the module."}
    )
    sub = Transcript(LONG, t.clock, agent=aid)
    sub.user("Look around the module.")
    for k in range(4):
        sub.call(f"{turn}s{k}", f"toolu_sub_{turn}_{k}", "Read", {"file_path": f"{CWD}/src/module_{k}.py"})
        sub.result(f"toolu_sub_{turn}_{k}", "def handler(value):\n    return value\n")
    sub.assistant(f"{turn}sz", [{"type": "text", "text": f"Module {turn} has four handlers."}])
    sub.write(folder / LONG / "subagents" / f"agent-{aid}.jsonl")
    meta = {"agentType": "general-purpose", "description": f"Survey module {turn}", "toolUseId": tool_id}
    (folder / LONG / "subagents" / f"agent-{aid}.meta.json").write_text(json.dumps(meta))
    t.clock = sub.clock
    t.result(tool_id, f"Module {turn} has four handlers.", {"agentId": aid, "status": "completed"})


def write_short_session(folder: Path, sid: str, start: datetime, title: str, cwd: str = CWD) -> None:
    t = Transcript(sid, start, cwd=cwd)
    t.user(title)
    t.assistant(f"{sid[:4]}a", [{"type": "text", "text": "Done."}])
    t.write(folder / f"{sid}.jsonl")


def write_archive(root: Path, turns: int = 30) -> Path:
    """The archive: the long session between two short ones of its project, and one elsewhere."""
    start = datetime(2026, 2, 1, 23, 30, tzinfo=UTC)  # the long session runs past midnight
    folder = root / PROJECT
    write_short_session(folder, "7e1e0000-0000-4000-8000-00000000000a", start - timedelta(days=1), "Set up the shop")
    write_long_session(folder, turns, start)
    write_short_session(folder, "7e1e0000-0000-4000-8000-00000000000b", start + timedelta(days=2), "Tidy the shop")
    other = root / "-home-dev-other"
    write_short_session(other, "7e1e0000-0000-4000-8000-00000000000c", start, "Elsewhere", "/home/dev/other")
    return root
