"""The Claude Code Reader: detection, companions, and which kind of file a path is."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from sessite.model import Problems, Session
from sessite.readers.base import Reader, Sniff
from sessite.readers.files import decode_bytes
from sessite.readers.formats.claude_code.flat import (
    flat_agents_of_main,
    flat_session,
    flat_sidechains,
    group_members,
    leads_sidechains,
    main_of,
)
from sessite.readers.formats.claude_code.layout import agent_meta_path, main_file_of_agent, nested_files
from sessite.readers.formats.claude_code.session import read_flat_group, read_main, read_standalone_agent
from sessite.readers.formats.claude_code.vocabulary import AGENT, INJECTED_TAGS, NAME, UUID_LIKE
from sessite.readers.platform import Platform
from sessite.readers.regular import read_regular
from sessite.readers.safejson import loads

_SNIFF_LINES = 400
_BOOKKEEPING = {"file-history-snapshot"}  # records that are no part of a conversation
_BOOKKEEPING_MAX = 16 * 1024 * 1024  # a bigger file is not read through to say it holds nothing


class ClaudeCodeReader(Reader):
    name = NAME
    claims_directories = False
    agent = AGENT
    injected_tags = Reader.injected_tags | INJECTED_TAGS

    def default_folders(self, plat: Platform) -> list[Path]:
        """``projects`` in ``$CLAUDE_CONFIG_DIR`` (when set) and in ``~/.claude``."""
        config = plat.var("CLAUDE_CONFIG_DIR")
        return [*([config / "projects"] if config else []), plat.home / ".claude" / "projects"]

    def detect(self, sniffed: Sniff) -> bool:
        path = sniffed.path
        if path.suffix.lower() != ".jsonl":
            return False
        main = main_file_of_agent(path)
        if main is not None and main.is_file():
            return False  # read as a companion of its parent session
        sid = flat_session(path, sniffed.raw()) if main is None else None
        if sid is not None:
            # A flat sidechain: its session's group (main file and sidechains) is read by its first file.
            members = group_members(path.parent, sid)
            return bool(members) and members[0] == path
        verdict = _judge_records(sniffed)
        if verdict is None:
            verdict = _has_claude_code_opening(sniffed) or leads_sidechains(path)
        return verdict

    def holds_nothing(self, sniffed: Sniff) -> str | None:
        """A file of ``file-history-snapshot`` records only (Claude Code's editor backups of a
        session that never had a turn, or whose turns were removed): recognised, but empty."""
        if sniffed.path.suffix.lower() != ".jsonl" or sniffed.path.stat().st_size > _BOOKKEEPING_MAX:
            return None
        kinds: set[object] = set()
        for line in decode_bytes(read_regular(sniffed.path))[0].splitlines():
            if not line.strip():
                continue
            try:
                obj = loads(line)
            except ValueError:
                return None
            if not isinstance(obj, dict):
                return None
            kinds.add(obj.get("type"))
        if kinds and kinds <= _BOOKKEEPING:
            return "a Claude Code file of file-history-snapshot records only: it holds no conversation; skipped"
        return None

    def companions(self, path: Path) -> list[Path]:
        """A main file's sub-agent files (nested and flat); for the leading file of a flat group,
        the group's other files; for a nested sub-agent read alone, its ``.meta.json``."""
        if main_file_of_agent(path) is not None:
            meta = agent_meta_path(path)
            return [meta] if meta.is_file() else []
        sid = flat_session(path)
        if sid is None:
            return nested_files(path) + flat_agents_of_main(path)
        main = main_of(path.parent, sid)
        others = [p for p in group_members(path.parent, sid) if p != path]
        return others + (nested_files(main) if main is not None else [])

    def session_key(self, sniffed: Sniff) -> str | None:
        """A main file's session id (its name, or its records' ``sessionId``): snapshots of one
        session (a checkpointing tool's copies) share it. A flat sidechain gives its session's
        id (the group's leading file reads that session); a nested sub-agent file has none."""
        path = sniffed.path
        if path.suffix.lower() != ".jsonl" or main_file_of_agent(path) is not None:
            return None
        sid = flat_session(path, sniffed.raw())
        if sid is not None:
            return sid  # the leading file of a flat group reads its session
        if UUID_LIKE.match(path.stem):
            return path.stem
        for record in sniffed.json_lines(_SNIFF_LINES):
            sid = record.get("sessionId")
            if isinstance(sid, str) and sid and record.get("isSidechain") is not True:
                return sid
        return None

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        if main_file_of_agent(path) is not None:
            session = read_standalone_agent(path, problems)
        elif (sid := flat_session(path)) is not None:
            main = main_of(path.parent, sid)
            session = read_main(main, problems) if main else read_flat_group(flat_sidechains(path), problems)
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
        if "systemPayload" in obj or (isinstance(obj.get("message"), dict) and "parts" in obj["message"]):
            return False  # Qwen Code: Gemini-style parts, its own system payloads
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
