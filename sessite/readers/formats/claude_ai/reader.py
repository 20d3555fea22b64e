"""The claude.ai export reader: detection, and the export streamed one conversation at a time."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from sessite.model import Problems, Session, make_session_id
from sessite.readers import ledger
from sessite.readers.base import Reader, Sniff
from sessite.readers.files import iter_json_array
from sessite.readers.formats.claude_ai.conversation import NAME, conversation_session
from sessite.readers.safejson import raw_decode

_ACCOUNT = re.compile(r'"account"\s*:\s*\{\s*"uuid"\s*:\s*"([^"\\]{1,100})"')


class ClaudeAiReader(Reader):
    """A claude.ai export: one Session per conversation, a damaged one skipped without losing the rest."""

    name = NAME
    claims_directories = False

    def detect(self, sniffed: Sniff) -> bool:
        path = sniffed.path
        if path.suffix.lower() != ".json":
            return False
        head = sniffed.text()
        stripped = head.lstrip()
        if not stripped.startswith("["):
            return False
        body = stripped[1:].lstrip()
        if body.startswith("]"):
            # An empty export: claim it only under its export name.
            return path.name == "conversations.json"
        try:
            first, _ = raw_decode(body)
        except ValueError:
            first = None  # the first conversation is longer than the sniff window
        if isinstance(first, dict) and "chat_messages" in first and "uuid" in first:
            return True
        # A first conversation too long for the sniff window, or a damaged one: look for the
        # keys by name (they come before a conversation's long message list; a damaged first
        # conversation is followed by sound ones).
        return re.search(r'"chat_messages"\s*:\s*\[', body) is not None and re.search(r'"uuid"\s*:', body) is not None

    def session_key(self, sniffed: Sniff) -> str | None:
        """The account the export is of (its first conversation's ``account.uuid``): exports
        of one account taken at different times are read together, each conversation merged
        message by message, so the later, fuller copy is never dropped."""
        if sniffed.path.suffix.lower() != ".json":
            return None
        match = _ACCOUNT.search(sniffed.text())
        return f"claude_ai:{match.group(1)}" if match else None

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        reported: dict[str, int] = {}
        seen: set[str] = set()
        records = 0  # messages of the conversations before this one: records are numbered across the export
        for index, (line, conv) in enumerate(iter_json_array(path, problems)):
            first_record = records + 1
            messages = conv.get("chat_messages") if isinstance(conv, dict) else None
            records += len(messages) if isinstance(messages, list) else 0
            if not isinstance(conv, dict):
                problems.add(
                    path,
                    line,
                    f"claude.ai: conversation #{index + 1} is a {type(conv).__name__}, not an object; skipped",
                )
                continue
            try:
                session = conversation_session(conv, index, line, path, problems, reported, first_record)
                if session.id in seen:
                    problems.add(
                        path,
                        line,
                        f"claude.ai: conversation #{index + 1} repeats the uuid of an earlier one; given a distinct id",
                    )
                    session = replace(session, id=make_session_id(NAME, f"{conv.get('uuid')}#{index + 1}"))
                seen.add(session.id)
                for event in session.events:
                    ledger.shown(path, event.line)
                yield session
            except Exception as exc:  # a reader bug must not lose the rest of the export
                problems.add(
                    path,
                    line,
                    f"claude.ai: conversation #{index + 1} could not be read ({type(exc).__name__}: {exc}); skipped",
                )
                for record in range(first_record, records + 1):
                    ledger.not_shown(path, record, "conversation that could not be read")


READER = ClaudeAiReader()
