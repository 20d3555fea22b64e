"""The Claude Code Reader: detection, companions, and which kind of file a path is."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from sitegen.model import Problems, Session
from sitegen.readers.base import Reader, Sniff
from sitegen.readers.claude_code.layout import companion_files, main_file_of_agent
from sitegen.readers.claude_code.session import read_main, read_standalone_agent
from sitegen.readers.claude_code.vocabulary import NAME

_SNIFF_LINES = 400


class ClaudeCodeReader(Reader):
    name = NAME
    claims_directories = False

    def detect(self, sniffed: Sniff) -> bool:
        path = sniffed.path
        if path.suffix.lower() != ".jsonl":
            return False
        main = main_file_of_agent(path)
        if main is not None and main.is_file():
            return False  # read as a companion of its parent session
        verdict = _judge_records(sniffed)
        return verdict if verdict is not None else _has_claude_code_opening(sniffed)

    def companions(self, path: Path) -> list[Path]:
        return companion_files(path)

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        if main_file_of_agent(path) is not None:
            session = read_standalone_agent(path, problems)
        else:
            session = read_main(path, problems)
        if session is not None:
            yield session


def _judge_records(sniffed: Sniff) -> bool | None:
    """True for a conversation record (or a leading summary record) among the first lines,
    False for another format's header, None when the parsed lines do not tell."""
    for index, obj in enumerate(sniffed.json_lines(_SNIFF_LINES)):
        kind = obj.get("type")
        if index == 0:
            if kind in ("header", "session_meta"):
                return False  # HAIL, Codex rollout
            if kind == "summary" and isinstance(obj.get("summary"), str) and "leafUuid" in obj:
                return True
        if "sessionId" not in obj or "uuid" not in obj:
            continue
        if kind in ("user", "assistant") and isinstance(obj.get("message"), dict):
            return True
        if kind in ("system", "progress") and "parentUuid" in obj:
            return True
    return None


def _has_claude_code_opening(sniffed: Sniff) -> bool:
    """A record cut by the sniff window (a huge pasted prompt) is judged by its
    opening, whose key order Claude Code keeps fixed."""
    for line in sniffed.text().split("\n", _SNIFF_LINES)[:_SNIFF_LINES]:
        head = line[:4096]
        if (
            head.startswith('{"parentUuid":')
            and '"sessionId":"' in head
            and ('"type":"user"' in head or '"type":"assistant"' in head)
            and '"message":{' in head
        ):
            return True
    return False


READER = ClaudeCodeReader()
