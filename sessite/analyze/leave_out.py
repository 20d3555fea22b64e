"""Leaving things out of what is published: whole sessions by id (``exclude_sessions``)
and events by kind, tool or pattern (``hide_events``), as sessite.toml asks.

Pure functions on the model, applied after reading and redaction and before the
view: a hidden event is gone from the session, and the page counts it among the
records not shown (``Session.skipped``), so nothing disappears without a word.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from typing import Any

from sessite.model import Event, Kind, Session, walk

HIDDEN_REASON = "hidden by sessite.toml (hide_events)"
RULE_KEYS = ("kind", "tool", "pattern")
HIDE_EVENTS_HELP = 'a list of tables such as {kind = "thinking"}, {tool = "Bash"}, {pattern = "regex"}'


@dataclass(frozen=True)
class HideRule:
    """Events to hide: every condition given must hold (a kind, a tool name or glob matched
    without regard to case, a regex searched in the event's text, command, path, title,
    blocks and tool input)."""

    kind: str | None = None
    tool: str | None = None
    pattern: str | None = None

    def matches(self, event: Event) -> bool:
        if self.kind is not None and event.kind != self.kind:
            return False
        if self.tool is not None and not fnmatchcase((event.tool_name or "").lower(), self.tool.lower()):
            return False
        return self.pattern is None or re.search(self.pattern, _searchable(event)) is not None


def parse_hide_rules(value: Any) -> tuple[HideRule, ...]:
    """``hide_events`` from a settings file, checked; a ValueError names the entry (``hide_events[2]: …``)."""
    if not isinstance(value, list):
        raise ValueError(f"'hide_events' must be {HIDE_EVENTS_HELP}")
    rules = []
    kinds = [k.value for k in Kind]
    for i, entry in enumerate(value):
        where = f"hide_events[{i}]"
        if not isinstance(entry, dict) or not entry:
            raise ValueError(f'{where}: must be a table with kind, tool or pattern, such as {{kind = "thinking"}}')
        unknown = [k for k in entry if k not in RULE_KEYS]
        if unknown:
            raise ValueError(f"{where}: unknown key {unknown[0]!r} (use kind, tool or pattern)")
        wrong = [k for k, v in entry.items() if not isinstance(v, str) or not v]
        if wrong:
            raise ValueError(f"{where}: '{wrong[0]}' must be a non-empty string")
        if "kind" in entry and entry["kind"] not in kinds:
            raise ValueError(f"{where}: unknown kind {entry['kind']!r} (one of {', '.join(kinds)})")
        if "pattern" in entry:
            try:
                re.compile(entry["pattern"])
            except re.error as exc:
                raise ValueError(f"{where}: 'pattern' is not a valid regular expression ({exc})") from None
        rules.append(HideRule(entry.get("kind"), entry.get("tool"), entry.get("pattern")))
    return tuple(rules)


def is_excluded(ids: Iterable[str], patterns: Iterable[str]) -> bool:
    """True when a session id (as read, or as published after redaction) matches one of the ids or globs."""
    return any(fnmatchcase(i, p) for p in patterns for i in ids)


def hide_events(session: Session, rules: tuple[HideRule, ...]) -> Session:
    """``session`` without the events the rules match (nor the results, sub-agent transcripts and
    children of a hidden call), counted in ``skipped``; the same object when nothing matched."""
    if not rules:
        return session
    hidden_calls = {e.call_id for e in walk(session.events) if e.call_id and _hides(rules, e) and _is_call(e)}
    dropped: list[Event] = []
    events = _keep(session.events, rules, hidden_calls, dropped)
    if events is session.events:
        return session
    count = sum(1 + sum(1 for _ in walk(e.children)) for e in dropped)
    skipped = {**session.skipped, HIDDEN_REASON: session.skipped.get(HIDDEN_REASON, 0) + count}
    title = None if _title_from(session.title, dropped) else session.title
    return replace(session, events=events, skipped=skipped, title=title)


def _keep(
    events: tuple[Event, ...], rules: tuple[HideRule, ...], hidden_calls: set[str], dropped: list[Event]
) -> tuple[Event, ...]:
    kept: list[Event] = []
    changed = False
    for event in events:
        if _hides(rules, event) or (event.call_id in hidden_calls and not _is_call(event)):
            dropped.append(event)
            changed = True
            continue
        children = _keep(event.children, rules, hidden_calls, dropped) if event.children else event.children
        if children is not event.children:
            event = replace(event, children=children)
            changed = True
        kept.append(event)
    return tuple(kept) if changed else events


def _hides(rules: tuple[HideRule, ...], event: Event) -> bool:
    return any(rule.matches(event) for rule in rules)


def _is_call(event: Event) -> bool:
    return event.kind == Kind.TOOL_CALL


def _title_from(title: str | None, dropped: list[Event]) -> bool:
    """The session's title was taken from a hidden event's words (a reader titles a session
    by its first prompt): it goes too, and the page titles the session from what is left."""
    words = " ".join((title or "").split()).rstrip("…").strip()
    return bool(words) and any(words in " ".join(e.text.split()) for d in dropped for e in (d, *walk(d.children)))


def _searchable(event: Event) -> str:
    parts = [event.text, event.command or "", event.path or "", event.title or ""]
    parts.extend(b.text for b in event.blocks if b.text)
    if event.tool_input is not None:
        parts.append(
            event.tool_input
            if isinstance(event.tool_input, str)
            else json.dumps(event.tool_input, ensure_ascii=False, default=str)
        )
    return "\n".join(parts)
