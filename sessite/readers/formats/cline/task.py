"""What reading one Cline task keeps besides its events: calls awaiting a result, cwd, cost."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sessite.model import Block, Problems
from sessite.readers._util import obj, text_of
from sessite.readers.builder import SessionBuilder
from sessite.readers.regular import open_regular

NAME = "cline"
AGENT = "cline"
API_HISTORY = "api_conversation_history.json"
UI_MESSAGES = "ui_messages.json"
TASK_METADATA = "task_metadata.json"

# The start of a task file: a JSON array whose first object is a message ({"role": …}) or
# a panel entry ({"ts": …, "type": "say" | "ask"}).
_TASK_FILE_HEAD = re.compile(rb'^\s*(?:\xef\xbb\xbf)?\[\s*\{[^\[]*?"(?:role|ts)"\s*:')


def looks_like_task_file(path: Path) -> bool:
    """Whether ``path`` starts like Cline's ``api_conversation_history.json`` or ``ui_messages.json``."""
    try:
        with open_regular(path) as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return bool(_TASK_FILE_HEAD.match(head))


class Task(SessionBuilder):
    """One task folder's session as it is read (problems point at the file being read)."""

    def __init__(self, path: Path, problems: Problems) -> None:
        super().__init__(NAME, path, problems, agent=AGENT, label=NAME)
        self.open_calls: list[tuple[str, str]] = []  # (tool name, call id) awaiting a result
        self.cwd: str | None = None
        self.cost: float = 0.0

    def take_call(self, name: str) -> str | None:
        """The id of the oldest open call of tool ``name`` (its result has just come), if any."""
        for index, (call_name, call_id) in enumerate(self.open_calls):
            if call_name == name:
                del self.open_calls[index]
                return call_id
        return None


def image(block: dict[str, Any]) -> Block:
    """An Anthropic-style image block: inline base64 data or a URL."""
    source = obj(block.get("source"))
    mime = text_of(source.get("media_type"))
    uri = None
    if source.get("type") == "base64" and isinstance(source.get("data"), str):
        uri = f"data:{mime or 'image/png'};base64,{source['data']}"
    elif isinstance(source.get("url"), str):
        uri = source["url"]
    return Block("image", uri=uri, mime=mime)
