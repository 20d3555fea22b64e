"""The Kimi CLI reader: ``~/.kimi/sessions/<hash>/<session>/wire.jsonl`` (with ``context.jsonl``), a lone
``context.jsonl`` of an older session, and Kimi Code's ``~/.kimi-code/sessions/…/agents/main/wire.jsonl``.

One session folder is one session, read from its wire log: Kimi CLI's envelopes (``wire``)
or Kimi Code's typed records (``code``); the context files beside it are reconciled with
it (``context``); a Kimi Code session's sub-agent logs are read into the ``Agent`` calls that
started them. Every line of every file read is shown, merged or counted with a reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from sessite.model import Problems, Session
from sessite.readers._util import obj, text_of
from sessite.readers.base import Reader, Sniff
from sessite.readers.files import iter_jsonl, load_json
from sessite.readers.formats.kimi_cli import context, layout
from sessite.readers.formats.kimi_cli.code import CodeReading
from sessite.readers.formats.kimi_cli.state import KimiFile
from sessite.readers.formats.kimi_cli.vocabulary import AGENT, NAME
from sessite.readers.formats.kimi_cli.wire import WireReading
from sessite.readers.platform import Platform, unique

_OLDER_CONTEXT = "an earlier copy of the context (kept by /undo or a compaction; the wire log shows it all)"
_SUB_CONTEXT = "a sub-agent's context (its events are in the wire log)"


class KimiCliReader(Reader):
    """A session folder (its log, contexts and state read together), or one log file on its own."""

    name = NAME
    dot_names = (".kimi",)  # found inside an archived project, too
    agent = AGENT
    claims_directories = True
    claims_files = True

    def detect(self, sniffed: Sniff) -> bool:
        if sniffed.is_dir:
            return layout.session_log(sniffed.path) is not None
        return layout.is_wire(sniffed) or layout.is_lone_context(sniffed)

    def companions(self, path: Path) -> list[Path]:
        log = layout.session_log(path) if path.is_dir() else path
        if log is None:
            return []
        state = layout.state_file(log)
        found = [*layout.contexts(log), *([state] if state else []), *layout.agent_logs(log)]
        if log.name == "context.jsonl" and (log.parent / "wire.jsonl").is_file():
            found.append(log.parent / "wire.jsonl")  # an empty wire log beside a lone context: nothing to read
        return [log, *found] if log != path else found

    def default_folders(self, plat: Platform) -> list[Path]:
        """``~/.kimi/sessions`` (or ``$KIMI_SHARE_DIR/sessions``) and Kimi Code's ``~/.kimi-code/sessions``;
        the same on every system (``%USERPROFILE%`` on Windows)."""
        share = plat.var("KIMI_SHARE_DIR")
        return unique(
            [
                *([share / "sessions"] if share else []),
                plat.home / ".kimi" / "sessions",
                plat.home / ".kimi-code" / "sessions",
            ]
        )

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        if path.is_dir():
            log = layout.session_log(path)
            if log is None:
                return
            path = log
        f = KimiFile(path, problems)
        others = layout.contexts(path)
        if path.name == "context.jsonl":
            context.read_alone(f, path, problems)
        else:
            code = self._read_log(f, path, problems)
            if others and others[0].name == "context.jsonl":
                context.reconcile(f, others.pop(0), problems)
            if code is not None:
                self._read_agents(f, path, code, problems)
        for other in others:
            _not_shown(f, other, problems, _SUB_CONTEXT if other.name.startswith("context_sub") else _OLDER_CONTEXT)
        _state(f, path, problems)
        f.facts.cwd = f.facts.cwd or layout.work_dir(path, problems)
        if not f.events and not f.skipped:
            return
        yield f.finish(
            layout.session_id(path),
            events=f.transcript(),
            cwd=f.facts.cwd,
            title=f.facts.title or f.facts.prompt,
            meta=f.facts.meta,
        )

    @staticmethod
    def _read_log(f: KimiFile, path: Path, problems: Problems) -> CodeReading | None:
        """The main log, in whichever generation's shape its records are."""
        code: CodeReading | None = None
        wire: WireReading | None = None
        for line, record in iter_jsonl(path, problems):
            if code is None and wire is None and record.get("type") != "metadata":
                if "message" in record:
                    wire = WireReading(f)
                else:
                    code = CodeReading(f)
            reading = code or wire
            try:
                if reading is None:
                    WireReading(f).record(line, record)  # the header, before any record says which
                else:
                    reading.record(line, record)
            except Exception as exc:  # noqa: BLE001 - one odd record costs that record, never the file
                f.unreadable(line, "record", record, exc)
        if code is not None:
            code.finish()
        return code

    @staticmethod
    def _read_agents(f: KimiFile, path: Path, main: CodeReading, problems: Problems) -> None:
        """Kimi Code sub-agents' logs, each in a SUBAGENT event after the ``Agent`` call that started it."""
        for log in layout.agent_logs(path):
            key = log.parent.name
            call_id = main.started.get(key)
            asked = f.call_input(call_id)
            title = text_of(asked.get("subagent_type")) or text_of(asked.get("description")) or key
            agent = f.subagent(key, None, None, title, call_id)
            agent.meta["agent"] = key
            f.events[:] = [e for e in f.events if e is not agent.event]
            f.place_after(call_id, agent.event)
            reading = CodeReading(f, key)
            with f.reading(log):
                for line, record in iter_jsonl(log, problems):
                    try:
                        reading.record(line, record)
                    except Exception as exc:  # noqa: BLE001 - one odd record costs that record
                        f.unreadable(line, "record", record, exc)
                reading.finish()


def _not_shown(f: KimiFile, other: Path, problems: Problems, reason: str) -> None:
    with f.reading(other):
        for line, _ in iter_jsonl(other, problems):
            f.skip(reason, line=line)


def _state(f: KimiFile, path: Path, problems: Problems) -> None:
    """``state.json``: Kimi Code's title (when the user set it) and working folder; Kimi CLI's approval settings."""
    state_path = layout.state_file(path)
    if state_path is None:
        return
    state = obj(load_json(state_path, problems))
    if state.get("isCustomTitle") is True and text_of(state.get("title")):
        f.facts.title = state["title"]
    f.facts.cwd = f.facts.cwd or text_of(state.get("workDir"))
    approval = obj(state.get("approval"))
    if isinstance(approval.get("yolo"), bool):
        f.facts.meta["auto-approve everything"] = approval["yolo"]
    with f.reading(state_path):
        f.merged(1, "session state (its title, folder and settings are in the session details)")


READER = KimiCliReader()
