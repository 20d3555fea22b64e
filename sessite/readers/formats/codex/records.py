"""One rollout line at a time: the record envelope, ``session_meta`` and ``turn_context``.

Every line is ``{timestamp, type, payload}``; legacy record-style rollouts
start with a bare header and write response items bare. The builder routes
each record to its handler and keeps the session's own settings. Every record
gets a fate in the fidelity ledger; one a handler left without any is counted
as not shown rather than lost without a word.
"""

from __future__ import annotations

from typing import Any

from sessite.model import Kind
from sessite.readers._util import shown, text_of
from sessite.readers.base import as_text
from sessite.readers.formats.codex.items import ItemHandling
from sessite.readers.formats.codex.layout import ENVELOPE_TYPES, ITEM_TYPES, is_legacy_header, record_key, record_time
from sessite.readers.formats.codex.notices import NoticeHandling

# session_meta fields with a place of their own; the rest are kept in the session meta as they are.
_META_FIELDS = ("originator", "cli_version", "source", "model_provider")
_HANDLED_META = {"id", "timestamp", "cwd", "git", *_META_FIELDS, "instructions", "base_instructions"}
_TURN_SETTINGS = ("approval_policy", "sandbox_policy", "effort", "summary", "personality", "collaboration_mode")


class RolloutBuilder(ItemHandling, NoticeHandling):
    """Reads one rollout, record by record; ``finish`` assembles the Session."""

    def feed(self, lineno: int, rec: dict[str, Any]) -> None:
        self.records += 1
        self.keys[lineno] = self.record_keys.take(record_key(rec))
        ts = record_time(rec.get("timestamp"))
        if ts is not None:
            if self.started is None or ts < self.started:
                self.started = ts
            if self.ended is None or ts > self.ended:
                self.ended = ts
        rtype = rec.get("type")
        try:
            self._route(lineno, ts, rtype, rec)
        except Exception as exc:  # one odd record must not stop the file
            self.problems.add(
                self.path,
                lineno,
                f"could not interpret {shown(rtype)} record ({type(exc).__name__}: {exc}); shown as raw JSON",
            )
            self.unknown(lineno, ts, rec, f"unreadable {shown(rtype)} record")
        if lineno not in self.fated:
            self.skip(f"{shown(rtype)} record with nothing to show", lineno)

    def _route(self, lineno: int, ts: Any, rtype: Any, rec: dict[str, Any]) -> None:
        payload = rec.get("payload")
        if rtype is not None and not isinstance(rtype, str):
            self.problems.add(self.path, lineno, f"record type {shown(rtype)} is not a name; shown as raw JSON")
            self.unknown(lineno, ts, rec, "record whose type is not a name")
        elif rtype is None and rec.get("record_type") is not None:
            self.skip(f"{rec.get('record_type')} record (legacy rollout bookkeeping)", lineno)
        elif rtype is None and self.records == 1 and is_legacy_header(rec):
            self.legacy = True
            self._session_meta(lineno, rec)
        elif rtype in ENVELOPE_TYPES:
            if not isinstance(payload, dict):
                self.problems.add(self.path, lineno, f"{rtype} record has no payload object; shown as raw JSON")
                self.unknown(lineno, ts, rec, f"{rtype} without a payload")
            else:
                self._envelope(lineno, ts, rtype, payload)
        elif rtype in ITEM_TYPES and "payload" not in rec:
            self.item(lineno, ts, rec)  # legacy: bare response items
        else:
            self.unknown(lineno, ts, rec, f"unknown record type {rtype!r}")

    def _envelope(self, lineno: int, ts: Any, rtype: str, payload: dict[str, Any]) -> None:
        if rtype == "session_meta":
            self._session_meta(lineno, payload)
        elif rtype == "turn_context":
            self._turn_context(lineno, payload)
        elif rtype == "response_item":
            self.item(lineno, ts, payload)
        elif rtype == "event_msg":
            self.notice(lineno, ts, payload)
        elif rtype == "world_state":
            self.world_state(lineno, ts, payload)
        elif rtype == "inter_agent_communication":
            self.inter_agent_communication(lineno, ts, payload)
        elif rtype == "inter_agent_communication_metadata":
            self.skip(
                "inter_agent_communication_metadata (whether the inter-agent message after it starts a turn)", lineno
            )
        else:
            self._compacted(lineno, ts, payload)

    def _session_meta(self, lineno: int, payload: dict[str, Any]) -> None:
        if self.session_meta is not None:
            self._another_session_meta(lineno, self.session_meta, payload)
            return
        self.merged(lineno, "session_meta (shown in the session details)")
        if lineno != 1 and self.records != 1:
            self.problems.add(self.path, lineno, "session_meta is not the first line")
        self.session_meta = payload
        cwd = text_of(payload.get("cwd"))
        if cwd:
            self.cwds.setdefault(cwd)
        git = payload.get("git")
        if isinstance(git, dict):
            self._git(git)
        for key in _META_FIELDS:
            if payload.get(key) not in (None, ""):
                self.meta[key] = payload[key]
        instructions = payload.get("instructions")
        if isinstance(instructions, str) and instructions.strip():
            self.meta["instructions"] = instructions
        base = payload.get("base_instructions")
        if isinstance(base, dict) and isinstance(base.get("text"), str):
            self.meta["base_instructions"] = base["text"]
        elif isinstance(base, str) and base.strip():
            self.meta["base_instructions"] = base
        for key, value in payload.items():
            if key not in _HANDLED_META and value not in (None, "", [], {}):
                self.meta[key] = value

    def _another_session_meta(self, lineno: int, first: dict[str, Any], payload: dict[str, Any]) -> None:
        """A second session_meta: a repeat, or the header of a session this one was forked from."""
        other = payload.get("id")
        if other and other != first.get("id"):
            self.meta.setdefault("forked_from", [])
            if other not in self.meta["forked_from"]:
                self.meta["forked_from"].append(other)
            self.skip("session_meta of another session (history copied from it)", lineno)
        else:
            self.skip("session_meta repeated", lineno)

    def _git(self, git: dict[str, Any]) -> None:
        branch = text_of(git.get("branch"))
        if branch and branch != "HEAD":
            self.branches.setdefault(branch)
        commit = text_of(git.get("commit_hash")) or text_of(git.get("commit"))
        if commit:
            self.commits.setdefault(commit)
        repo = text_of(git.get("repository_url"))
        if repo:
            self.repos.setdefault(repo)

    def _turn_context(self, lineno: int, payload: dict[str, Any]) -> None:
        model = text_of(payload.get("model"))
        if model:
            self.model = model
            self.models.setdefault(model)
        cwd = text_of(payload.get("cwd"))
        if cwd:
            self.cwds.setdefault(cwd)
        if not self.turn_context_seen:
            self.turn_context_seen = True
            settings = {k: payload[k] for k in _TURN_SETTINGS if payload.get(k) not in (None, "")}
            if settings:
                self.meta["turn_context"] = settings
            for key in ("user_instructions", "developer_instructions"):
                if isinstance(payload.get(key), str) and payload[key].strip():
                    self.meta[key] = payload[key]
        self.skip("turn_context (model and policies, restated every turn; the model is shown on each response)", lineno)

    def _compacted(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        history = p.get("replacement_history")
        meta = {"replacement_history_items": len(history)} if isinstance(history, list) else {}
        text = as_text(p.get("message"))
        self.emit(lineno, ts, kind=Kind.COMPACTION, title="Conversation compacted", text=text, meta=meta)
