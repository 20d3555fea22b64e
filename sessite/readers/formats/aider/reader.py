"""The aider reader: detection, the project's three files read together, one Session per run."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path

from sessite.model import GitRefs, Kind, Problems, Session
from sessite.readers import ledger
from sessite.readers.base import Reader, Sniff, parse_time
from sessite.readers.files import decode_bytes, read_bytes
from sessite.readers.formats.aider.history import Entry, exchanges, inputs, same_text
from sessite.readers.formats.aider.output import aider_says
from sessite.readers.formats.aider.state import AiderRun
from sessite.readers.formats.aider.transcript import HEADER, REPLY, TOOL, USER, Chunk, chunks, runs
from sessite.readers.formats.aider.turns import prompt, reply
from sessite.readers.formats.aider.vocabulary import (
    APPLIED,
    CHAT_SUFFIX,
    INPUT_ANSWER,
    INPUT_ELSEWHERE,
    INPUT_MERGED,
    INPUT_RUN,
    INPUT_SUFFIX,
    LLM_SUFFIX,
    NAME,
    PROMPT_SENT,
    REPLY_ELSEWHERE,
    REPLY_EMPTY,
    REPLY_MERGED,
    RUN_HEADER,
    RUN_START,
    SKIPPED_EDIT,
)
from sessite.readers.platform import Platform

_ANSWER = re.compile(r"^(?:y|n|a|s|d|yes|no|all|skip|don't)$", re.I)  # an answer to aider's (Y)es/(N)o question
_TIMES = "the machine's local time (aider's files name no time zone)"


class AiderReader(Reader):
    """``.aider.chat.history.md`` with ``.aider.input.history`` and ``.aider.llm.history`` beside it."""

    name = NAME
    dot_names = (".aider.chat.history.md",)  # found inside an archived project, too
    agent = "aider"

    def detect(self, sniffed: Sniff) -> bool:
        name = sniffed.path.name
        if name.endswith(CHAT_SUFFIX):
            return not sniffed.is_dir
        if sniffed.path.suffix.lower() != ".md":
            return False
        first = next((line for line in sniffed.text(4096).split("\n") if line.strip()), "")
        return RUN_HEADER.match(first.rstrip("\r")) is not None

    def companions(self, path: Path) -> list[Path]:
        stem = path.name[: -len(CHAT_SUFFIX)] if path.name.endswith(CHAT_SUFFIX) else None
        if stem is None:
            return []
        found = [path.with_name(stem + suffix) for suffix in (INPUT_SUFFIX, LLM_SUFFIX)]
        return [p for p in found if p.is_file()]

    def default_folders(self, plat: Platform) -> list[Path]:
        """None: aider writes its files in each project's root, not in a folder of its own."""
        return []

    def discovery_roots(self, folder: Path) -> tuple[Path, ...]:
        """A project folder named for aider (``--agent-dir aider=<project>``): its transcripts,
        given as files, since a walk of the folder passes over names that start with a dot."""
        if not folder.is_dir():
            return (folder,)
        found = sorted(
            {*folder.glob("*" + CHAT_SUFFIX), *([folder / CHAT_SUFFIX] if (folder / CHAT_SUFFIX).is_file() else [])}
        )
        return tuple(p for p in found if p.is_file()) or (folder,)

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        lines = _lines(path, problems)
        if lines is None:
            return
        companions = {p.name.endswith(INPUT_SUFFIX): p for p in self.companions(path)}
        typed = inputs(_lines(companions[True], problems) or []) if True in companions else []
        sent = exchanges(_lines(companions[False], problems) or []) if False in companions else []
        typed_at = _Matcher(typed)
        replied_at = _Matcher([e for e in sent if e.kind == "reply"])
        built = [_run(path, problems, n, run, typed_at, replied_at) for n, run in enumerate(runs(chunks(lines)))]
        if not built:
            return
        if True in companions:
            _account(built, companions[True], typed, typed_at.used, _input_fate)
        if False in companions:
            _account(built, companions[False], sent, replied_at.used, _exchange_fate)
        stem = _project(path)
        for r in built:
            yield _session(r, stem)


def _lines(path: Path, problems: Problems) -> list[str] | None:
    data = read_bytes(path, problems)
    if data is None:
        return None
    text, replaced = decode_bytes(data)
    if replaced:
        problems.add(path, None, "invalid UTF-8; undecodable bytes replaced")
    return [line.rstrip("\r") for line in text.split("\n")]


class _Matcher:
    """Entries matched to the transcript in order: each search starts after the last match."""

    def __init__(self, entries: list[Entry]) -> None:
        self.entries = entries
        self.next = 0
        self.used: set[int] = set()  # lines of the entries matched

    def find(self, text: str, prefix: bool = False) -> datetime | None:
        for index in range(self.next, len(self.entries)):
            entry = self.entries[index]
            if same_text(entry.text, text) or (prefix and _starts(entry.text, text)):
                self.next = index + 1
                self.used.add(entry.line)
                return entry.time
        return None


def _starts(whole: str, part: str) -> bool:
    """One text begins the other (a reply cut short in one of the files), both long enough to tell."""
    a, b = " ".join(whole.split()), " ".join(part.split())
    if min(len(a), len(b)) < 40:
        return False
    return a.startswith(b[:200]) or b.startswith(a[:200])


def _run(
    path: Path, problems: Problems, number: int, run: list[Chunk], typed_at: _Matcher, replied_at: _Matcher
) -> AiderRun:
    r = AiderRun(path, problems, number)
    for index, chunk in enumerate(run):
        try:
            if chunk.kind == HEADER:
                match = RUN_HEADER.match(chunk.text)
                r.facts.started = parse_time(match.group(1)) if match else None
                r.merged(chunk.line, RUN_START)
            elif chunk.kind == USER:
                prompt(r, chunk, typed_at.find(chunk.text))
            elif chunk.kind == TOOL:
                aider_says(r, chunk)
            elif chunk.kind == REPLY:
                reply(r, chunk, _written(run, index), replied_at.find(chunk.text, prefix=True))
        except Exception as exc:  # noqa: BLE001 - one odd record costs that record, never the file
            r.unreadable(chunk.line, f"aider {chunk.kind}", {"text": chunk.text}, exc)
    return r


def _written(run: list[Chunk], index: int) -> set[str]:
    """The files aider says it wrote (or skipped) right after the reply at ``index``."""
    out: set[str] = set()
    for chunk in run[index + 1 :]:
        if chunk.kind != TOOL:
            break
        first = chunk.text.split("\n", 1)[0]
        found = APPLIED.match(first) or SKIPPED_EDIT.match(first)
        if found:
            out.add(found.group(1).strip())
    return out


def _input_fate(entry: Entry, used: set[int], runs_: list[AiderRun]) -> tuple[str, bool]:
    if entry.line in used:
        return INPUT_MERGED, True
    if _ANSWER.match(entry.text):
        return INPUT_ANSWER, True
    command = entry.text.removeprefix("/run ").strip()
    if entry.text.startswith("/run ") and any(command in r.shell_commands for r in runs_):
        return INPUT_RUN, True
    return INPUT_ELSEWHERE, False


def _exchange_fate(entry: Entry, used: set[int], runs_: list[AiderRun]) -> tuple[str, bool]:
    if entry.kind == "prompt":
        return PROMPT_SENT, False
    if entry.line in used:
        return REPLY_MERGED, True
    return (REPLY_EMPTY if not entry.text.strip() else REPLY_ELSEWHERE), False


_Fate = Callable[[Entry, set[int], list[AiderRun]], tuple[str, bool]]


def _account(built: list[AiderRun], path: Path, entries: list[Entry], used: set[int], fate_of: _Fate) -> None:
    """Each entry of a companion file: merged when the transcript shows it, else counted in its run."""
    for entry in entries:
        reason, merged = fate_of(entry, used, built)
        if merged:
            ledger.merged(path, entry.line, reason)
            continue
        owner = _run_at(built, entry.time)
        owner.skipped[reason] += 1
        ledger.not_shown(path, entry.line, reason)


def _run_at(built: list[AiderRun], when: datetime | None) -> AiderRun:
    """The run an entry was written in: the last one started by then (the first when it is older)."""
    owner = built[0]
    for r in built:
        if when is not None and r.facts.started is not None and r.facts.started <= when:
            owner = r
    return owner


def _project(path: Path) -> str:
    stem = path.name[: -len(CHAT_SUFFIX)] if path.name.endswith(CHAT_SUFFIX) else path.stem
    stem = stem.strip("_.- ")
    return stem or path.absolute().parent.name or "aider"


def _session(r: AiderRun, project: str) -> Session:
    facts = r.facts
    started = facts.started
    raw_id = f"{project}-{started:%Y%m%d-%H%M%S}" if started else f"{project}-run{r.number + 1}"
    meta = dict(facts.meta)
    if any(e.timestamp for e in r.events) or started:
        meta["times"] = _TIMES
    if not any(e.kind in (Kind.USER, Kind.ASSISTANT) for e in r.events):
        meta["run"] = "aider started and stopped without a prompt"
    return r.finish(
        raw_id,
        started=started,
        title=facts.title,
        project=project,
        git=GitRefs(commits=tuple(facts.commits)),
        meta=meta,
    )


READER = AiderReader()
