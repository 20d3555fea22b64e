"""One Droid session's reading: its events, its calls (for their results) and its facts."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessite.model import Kind, Problems, ToolCategory, Usage
from sessite.readers._util import text_of
from sessite.readers.builder import SessionBuilder
from sessite.readers.formats.factory_droid.vocabulary import AGENT, CATEGORIES, DIFFS, EXIT_CODE, NAME, PATH_KEYS
from sessite.readers.tools import tool_category, tool_input


@dataclass
class Facts:
    session_id: str | None = None
    cwd: str | None = None
    title: str | None = None
    branches: dict[str, None] = field(default_factory=dict)
    commits: dict[str, None] = field(default_factory=dict)
    usage: Usage | None = None
    meta: dict[str, Any] = field(default_factory=dict)


class DroidFile(SessionBuilder):
    def __init__(self, path: Path, problems: Problems) -> None:
        super().__init__(NAME, path, problems, agent=AGENT, label=NAME)
        self.facts = Facts()
        self.calls: dict[str, tuple[str, ToolCategory]] = {}
        self.noted: set[str] = set()

    def call(self, base: str, call_id: str | None, name: str, args: Any, line: int, ts: Any, **extra: Any) -> None:
        category = tool_category(name, CATEGORIES)
        found = tool_input(args, category, DIFFS.get(name.lower()), path_keys=PATH_KEYS)
        if call_id:
            self.calls.setdefault(call_id, (name, category))
        self.emit(
            call_id or base,
            kind=Kind.TOOL_CALL,
            timestamp=ts,
            tool_name=name,
            tool_input=args,
            category=category,
            call_id=call_id,
            line=line,
            **found.fields(),
            **extra,
        )

    def result(
        self,
        call_id: str | None,
        text: str,
        line: int,
        ts: Any,
        failed: bool,
        exit_code: int | None = None,
        **extra: Any,
    ) -> None:
        name, category = self.calls.get(call_id or "", (None, None))
        if exit_code is None and category == ToolCategory.SHELL:
            found = EXIT_CODE.findall(text[:400])
            exit_code = int(found[0]) if found else None
        self.emit(
            f"{call_id}-result" if call_id else f"result-{line}",
            kind=Kind.TOOL_RESULT,
            timestamp=ts,
            text=text,
            call_id=call_id,
            tool_name=name,
            exit_code=exit_code,
            is_error=failed or bool(exit_code),
            line=line,
            **extra,
        )

    def other(self, line: int, kind: str) -> None:
        if kind not in self.noted:
            self.noted.add(kind)
            self.report(line, f"record type {kind!r} is not known; shown as a system note")

    def note_env(self, facts: dict[str, str]) -> None:
        if text_of(facts.get("branch")):
            self.facts.branches.setdefault(facts["branch"])
        if text_of(facts.get("commit")):
            self.facts.commits.setdefault(facts["commit"])
        if text_of(facts.get("model")):
            self.facts.meta.setdefault("model (as Droid names it)", facts["model"])
