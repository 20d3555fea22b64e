"""User, assistant and system messages and reasoning, from either stream, each shown once.

User text, assistant text and reasoning summaries are written twice, once as
an ``event_msg`` and once as a ``response_item`` (in either order). The first
copy is kept; its echo from the other stream is counted in ``Session.skipped``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sessite.model import Block, Kind
from sessite.readers._util import shorten
from sessite.readers.formats.codex.assembly import Assembly
from sessite.readers.formats.codex.content import (
    agents_body,
    classify_user_text,
    env_cwd,
    fenced,
    split_citation,
    title_words,
)

_ROLE_TITLES = {"developer": "Developer instructions", "system": "System message"}


class MessageHandling(Assembly):
    """Messages and reasoning, whichever stream they come from (``stream`` is "event" or "item")."""

    def message(
        self,
        lineno: int,
        ts: Any,
        stream: str,
        role: str,
        text: str,
        blocks: list[Block],
        meta: dict[str, Any],
        suffix: str = "",
    ) -> None:
        """One message (or one part of a message: ``suffix`` tells the parts' events apart)."""
        if not text.strip() and not blocks:
            self.skip("empty message", lineno)
            return
        if role == "user":
            kind, title = classify_user_text(text)
            if kind == Kind.SYSTEM:
                self._injected(lineno, ts, stream, title, text, blocks, meta, suffix)
            else:
                self._user(lineno, ts, stream, text, blocks, meta, suffix)
        elif role == "assistant":
            self._assistant(lineno, ts, stream, text, blocks, meta)
        else:
            title = _ROLE_TITLES.get(role, f"{role} message")
            body = fenced(text.strip(), "xml") if text.lstrip().startswith("<") else text
            self.emit(lineno, ts, suffix, kind=Kind.SYSTEM, title=title, text=body, blocks=tuple(blocks), meta=meta)

    def _injected(
        self,
        lineno: int,
        ts: Any,
        stream: str,
        title: str | None,
        text: str,
        blocks: list[Block],
        meta: dict[str, Any],
        suffix: str,
    ) -> None:
        """Context Codex put in the user channel (environment, AGENTS.md, …): a SYSTEM event."""
        if title == "Environment context" and self.env_cwd is None:
            self.env_cwd = env_cwd(text)
        if self.echoes.is_echo(stream, "system", text):
            self.fold("injected context shown twice (event_msg and response_item)", lineno)
            return
        self.echoes.shown(stream, "system", text)
        if title == "AGENTS.md instructions":
            body, target = agents_body(text)
            if target:
                meta = {**meta, "instructions_for": target}
        else:
            body = fenced(text.strip(), "xml") if text.lstrip().startswith("<") and title != "Turn aborted" else text
        self.emit(lineno, ts, suffix, kind=Kind.SYSTEM, title=title, text=body, blocks=tuple(blocks), meta=meta)

    def _user(
        self, lineno: int, ts: Any, stream: str, text: str, blocks: list[Block], meta: dict[str, Any], suffix: str
    ) -> None:
        if self.echoes.is_echo(stream, "user", text):
            self.fold("user message shown twice (event_msg.user_message and response_item.message)", lineno)
            self._merge_images(blocks)
            return
        self.echoes.new_turn()
        self.echoes.shown(stream, "user", text)
        if self.title is None:
            words = title_words(text)  # the user's own words, never injected context
            if words:
                self.title = shorten(words)
        self.emit(lineno, ts, suffix, kind=Kind.USER, text=text, blocks=tuple(blocks), meta=meta)

    def _assistant(
        self, lineno: int, ts: Any, stream: str, text: str, blocks: list[Block], meta: dict[str, Any]
    ) -> None:
        text, cited = split_citation(text)
        if cited:
            meta = {**meta, "memory_citation": cited}
        if self.echoes.is_echo(stream, "assistant", text):
            self.fold("assistant message shown twice (event_msg.agent_message and response_item.message)", lineno)
            return
        self.echoes.shown(stream, "assistant", text)
        self.last_assistant_text = text.strip()
        self.emit(lineno, ts, kind=Kind.ASSISTANT, text=text, blocks=tuple(blocks), model=self.model, meta=meta)

    def _merge_images(self, blocks: list[Block]) -> None:
        """Images only one of the two copies of a user message carried are kept on the shown one."""
        if not blocks:
            return
        for index in range(len(self.events) - 1, -1, -1):
            event = self.events[index]
            if event.kind == Kind.USER:
                extra = tuple(
                    b
                    for b in blocks
                    if b not in event.blocks and not any(b.uri and b.uri == o.uri for o in event.blocks)
                )
                if extra and not event.blocks:
                    self.events[index] = replace(event, blocks=event.blocks + extra)
                return

    def thinking(self, lineno: int, ts: Any, stream: str, parts: list[str], raw: bool) -> None:
        """Reasoning summaries (or raw reasoning), the parts not already shown from the other stream."""
        role = "reasoning-raw" if raw else "reasoning"
        fresh = []
        for part in parts:
            if not part.strip():
                continue
            if self.echoes.is_echo(stream, role, part):
                self.fold(
                    "reasoning summary shown twice (event_msg.agent_reasoning and response_item.reasoning)", lineno
                )
                continue
            self.echoes.shown(stream, role, part)
            fresh.append(part.strip())
        if fresh:
            self.emit(
                lineno,
                ts,
                suffix="-raw" if raw else "",
                kind=Kind.THINKING,
                text="\n\n".join(fresh),
                model=self.model,
                meta={"raw_reasoning": True} if raw else {},
            )
