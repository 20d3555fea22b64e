"""One conversation's reading state: its tree, where each node is in the export, the calls made so far."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from sessite.model import Problems
from sessite.readers.builder import SessionBuilder
from sessite.readers.formats.chatgpt.tree import Tree
from sessite.readers.formats.chatgpt.vocabulary import AGENT, NAME


class Conversation(SessionBuilder):
    """The events of one conversation, with what a message needs to know of those before it."""

    def __init__(
        self,
        path: Path,
        problems: Problems,
        tree: Tree,
        keys: list[str],
        first_record: int,
        reported: Counter[str],
        where: int,
    ) -> None:
        super().__init__(NAME, path, problems, agent=AGENT, label="ChatGPT")
        self.tree = tree
        self.lines = {node_id: first_record + i for i, node_id in enumerate(keys)}  # every node, in file order
        self.reported = reported  # unknown content types already reported in this export
        self.where = where  # the conversation's line in the file, where its problems point
        self.calls: list[tuple[str, str]] = []  # (call id, tool) of the calls on the kept path, in order
        self.textdoc: str | None = None  # the canvas document the last ``canmore`` call named

    def line_of(self, node_id: str) -> int:
        return self.lines[node_id]

    def call_for(self, tool: str | None) -> str | None:
        """The call a tool's message answers: the latest call to that tool (``browser`` answers
        ``browser.search``), or the latest call when the message names no tool."""
        if not tool:
            return self.calls[-1][0] if self.calls else None
        family = tool.split(".", 1)[0]
        for call_id, name in reversed(self.calls):
            if name == tool or name.split(".", 1)[0] == family:
                return call_id
        return None

    def unknown_type(self, kind: str, line: int) -> None:
        """Say once per export that a content type is new to this reader."""
        self.reported[kind] += 1
        if self.reported[kind] == 1:
            self.report(line, f"unknown content type {kind!r}; its text is shown (further ones not reported)")

    def problem(self, message: str) -> None:
        self.report(self.where, message)


def message_meta(message: dict[str, Any]) -> dict[str, Any]:
    """A message's facts worth its details box: an unfinished status, why it stopped, who wrote it."""
    meta: dict[str, Any] = {}
    status = message.get("status")
    if isinstance(status, str) and status not in ("finished_successfully", ""):
        meta["status"] = status
    metadata = message.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    finish = metadata.get("finish_details")
    reason = finish.get("type") if isinstance(finish, dict) else None
    if isinstance(reason, str) and reason not in ("stop", ""):
        meta["finish"] = reason
    author = message.get("author")
    name = author.get("name") if isinstance(author, dict) else None
    if isinstance(name, str) and name:
        meta["author"] = name
    channel = message.get("channel")
    if isinstance(channel, str) and channel not in ("", "final"):
        meta["channel"] = channel
    for key in ("gizmo_id", "voice_mode_message", "is_complete"):
        value = metadata.get(key)
        if key == "is_complete" and value is not False:
            continue
        if isinstance(value, (str, bool)) and value != "":
            meta[key] = value
    return meta
