"""The claude.ai project reader: one session per project, in a ``projects/<uuid>.json`` object or a
``projects.json`` list."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from sessite.model import Problems, Session
from sessite.readers.base import Reader, Sniff
from sessite.readers.files import load_json
from sessite.readers.formats.claude_ai_project.project import NAME, project_session

_KEYS = re.compile(r'"(prompt_template|is_starter_project)"\s*:')


class ClaudeAiProjectReader(Reader):
    name = NAME

    def detect(self, sniffed: Sniff) -> bool:
        if sniffed.is_dir or sniffed.path.suffix.lower() != ".json":
            return False
        head = sniffed.text(8192).lstrip()
        if not head.startswith(("{", "[")) or '"chat_messages"' in head:
            return False
        return '"uuid"' in head and _KEYS.search(head) is not None

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        data = load_json(path, problems)
        if data is None:
            return
        projects = data if isinstance(data, list) else [data]
        for index, project in enumerate(projects, 1):
            if not isinstance(project, dict):
                problems.add(path, index, f"claude.ai project #{index} is a {type(project).__name__}; skipped")
                continue
            yield project_session(path, problems, index, project)


READER = ClaudeAiProjectReader()
