"""Aider's own messages (``> …``): what they tell about the calls before them, the rest as notes.

``Applied edit to <file>`` answers the edits the reply made to that file; a failed
SEARCH block's report answers that block with an error; ``Running <command>`` is a shell
call aider made at the user's yes, and ``Added N lines of output to the chat`` its result
(the output itself is not written to the transcript). ``Tokens: …`` is the reply's usage,
``Commit <sha> …`` a commit, ``Main model: …`` the model from then on. Everything else
(startup banner, questions and answers, warnings, help) is shown as aider said it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sessite.model import Kind, ToolCategory, Usage
from sessite.readers.builder import MODEL_KINDS, last_index
from sessite.readers.formats.aider.edits import Edit, pieces
from sessite.readers.formats.aider.state import AiderRun, Pending
from sessite.readers.formats.aider.transcript import Chunk
from sessite.readers.formats.aider.vocabulary import (
    ADDED_OUTPUT,
    APPLIED,
    COMMIT,
    EMPTY_OUTPUT,
    FAILED_MATCH,
    MAIN_MODEL,
    RUNNING,
    SKIPPED_EDIT,
    TOKEN_LINE,
    TOKENS,
    VERSION,
)


def aider_says(r: AiderRun, chunk: Chunk) -> None:
    text = chunk.text
    if not text.strip():
        r.skip(EMPTY_OUTPUT, line=chunk.line)
        return
    first = text.split("\n", 1)[0]
    if (tokens := TOKENS.match(first)) and _usage(r, tokens.groupdict()):
        r.merged(chunk.line, TOKEN_LINE)
        return
    applied = APPLIED.match(first) or SKIPPED_EDIT.match(first)
    if applied and _edit_results(r, chunk, applied.group(1), first):
        return
    if FAILED_MATCH.search(text) and _failed_edits(r, chunk):
        return
    if running := RUNNING.match(first):
        _shell_call(r, chunk.line, running.group(1).strip(), "aider")
        return
    if ADDED_OUTPUT.match(first) and _shell_result(r, chunk):
        return
    _facts(r, first)
    r.say(chunk.line, text)


def _count(value: str | None) -> int:
    """aider's token count: ``222``, ``3.2k``, ``13k`` (rounded by aider to that)."""
    if not value:
        return 0
    try:
        return round(float(value[:-1]) * 1000) if value.endswith("k") else int(float(value))
    except ValueError:
        return 0


def _usage(r: AiderRun, found: dict[str, Any]) -> bool:
    """The token report on the reply it follows (aider rounds thousands to ``3.2k``)."""
    events = r.reply_events()
    target = last_index(events, lambda e: e.kind in MODEL_KINDS)
    if target is None:
        return False
    write, hit = _count(found["write"]), _count(found["hit"])
    usage = Usage(
        input_tokens=max(_count(found["sent"]) - write, 0),
        output_tokens=_count(found["received"]),
        cache_read_tokens=hit,
        cache_write_tokens=write,
    )
    index = (r.reply_start or 0) + target
    event = r.events[index]
    meta = {**event.meta, "tokens": " ".join(filter(None, (found["sent"], "sent,", found["received"], "received")))}
    if found["cost"]:
        meta["cost"] = f"${found['cost']}"
        r.facts.meta["cost"] = f"${found['total']}"
    r.events[index] = replace(event, usage=usage, meta=meta)
    return True


def _edit_results(r: AiderRun, chunk: Chunk, path: str, said: str) -> bool:
    waiting = [p for p in r.pending if p.edit is not None and not p.answered and _same_file(p.edit.path, path)]
    for pending in waiting:
        _answer(r, pending, chunk.line, said, tool_name="edit")
    return bool(waiting)


def _answer(r: AiderRun, pending: Pending, line: int, text: str, **fields: Any) -> None:
    """Aider's word on a waiting call: its result (the call is answered)."""
    pending.answered = True
    r.event(f"{pending.call_id}-result", kind=Kind.TOOL_RESULT, call_id=pending.call_id, text=text, line=line, **fields)


def _same_file(a: str, b: str) -> bool:
    return a.strip().removeprefix("./") == b.strip().removeprefix("./")


def _failed_edits(r: AiderRun, chunk: Chunk) -> bool:
    """A report of SEARCH blocks that matched nothing: an error for each of those blocks,
    success for the others when aider says they were applied."""
    waiting = [p for p in r.pending if p.edit is not None and not p.answered]
    reported = [p.edit for p in pieces(chunk.text, set()) if p.edit is not None]
    failed = [p for p in waiting if p.edit and any(_same_block(p.edit, e) for e in reported)]
    if not failed:
        named = {m.group(1) for m in FAILED_MATCH.finditer(chunk.text)}
        failed = [p for p in waiting if p.edit and any(_same_file(p.edit.path, n) for n in named)]
    if not failed:
        return False
    for pending in failed:
        _answer(r, pending, chunk.line, chunk.text, tool_name="edit", is_error=True)
    if "were applied successfully" in chunk.text:
        text = "Applied (aider: the other SEARCH/REPLACE blocks were applied successfully)"
        for pending in [p for p in waiting if not p.answered]:
            _answer(r, pending, chunk.line, text)
    return True


def _same_block(a: Edit, b: Edit) -> bool:
    """The same SEARCH text (and file, when both name one): the block aider reports is the one the reply wrote."""
    same_file = not a.path or not b.path or _same_file(a.path, b.path)
    return bool(a.search.strip()) and a.search.strip() == b.search.strip() and same_file


def _shell_call(r: AiderRun, line: int, command: str, who: str) -> None:
    call_id = f"run-{line}"
    r.pending.append(Pending(call_id, command=command))
    r.shell_commands.append(command)
    meta = {"run by": who}
    r.event(
        call_id,
        kind=Kind.TOOL_CALL,
        tool_name="run",
        category=ToolCategory.SHELL,
        command=command,
        tool_input={"command": command},
        call_id=call_id,
        line=line,
        meta=meta,
    )


def shell_call(r: AiderRun, line: int, command: str) -> None:
    """A command the user ran (``/run``, ``/test``, ``!``)."""
    _shell_call(r, line, command, "the user")


def _shell_result(r: AiderRun, chunk: Chunk) -> bool:
    waiting = [p for p in r.pending if p.command is not None and not p.answered]
    if not waiting:
        return False
    for pending in waiting:
        text = f"{chunk.text}\n(aider does not write the output itself into the transcript)"
        _answer(r, pending, chunk.line, text, tool_name="run")
    return True


def _facts(r: AiderRun, line: str) -> None:
    """The run's facts from aider's banner: its version, the model and edit format, commits."""
    if model := MAIN_MODEL.match(line):
        r.current_model = model.group(1)
        r.model(model.group(1))
        if model.group(2):
            r.facts.meta.setdefault("edit format", model.group(2))
    elif version := VERSION.match(line):
        r.facts.meta.setdefault("aider version", version.group(1))
    elif line.startswith("Weak model: "):
        r.facts.meta.setdefault("weak model", line.split(": ", 1)[1].strip())
    elif commit := COMMIT.match(line):
        r.facts.commits.setdefault(commit.group(1), None)
