"""The user's prompts and the model's replies of one run.

A prompt is what was typed (``/code …`` included); when a command hands its words to
the model, aider writes them again as a prompt of their own, which is merged into the
command. ``/run``, ``/test`` and ``!`` also make a shell call. A reply becomes its
reasoning, its prose and one edit call per block it writes (``edits``).
"""

from __future__ import annotations

from datetime import datetime

from sessite.model import Kind, ToolCategory
from sessite.readers.formats.aider.edits import Piece, fenced_text, pieces
from sessite.readers.formats.aider.output import shell_call
from sessite.readers.formats.aider.state import AiderRun, Pending
from sessite.readers.formats.aider.transcript import Chunk
from sessite.readers.formats.aider.vocabulary import ECHO, PROMPT_COMMANDS, SHELL_COMMANDS


def prompt(r: AiderRun, chunk: Chunk, when: datetime | None) -> None:
    text = chunk.text
    if r.command is not None and text == r.command[1]:
        r.command = None
        r.merged(chunk.line, ECHO)
        return
    r.command = None
    r.event(f"user-{chunk.line}", kind=Kind.USER, text=text, timestamp=when, line=chunk.line)
    words = text.strip()
    head, _, rest = words.partition(" ")
    if head in PROMPT_COMMANDS and rest.strip():
        r.command = (head, rest.strip())
    if r.facts.title is None and (not words.startswith("/") or r.command is not None):
        r.facts.title = r.command[1] if r.command is not None else words
    command = _shell(words)
    if command:
        r.pending = []
        shell_call(r, chunk.line, command)


def _shell(words: str) -> str | None:
    for mark in SHELL_COMMANDS:
        if words.startswith(mark) and (mark == "!" or words[len(mark) : len(mark) + 1] in (" ", "")):
            command = words[len(mark) :].strip()
            return command or None
    return None


def reply(r: AiderRun, chunk: Chunk, written: set[str], when: datetime | None) -> None:
    """The model's reply: reasoning, prose and edits, in order; its edits wait for aider's word."""
    r.pending = []
    r.reply_start = len(r.events)
    r.command = None
    model = r.current_model
    for number, piece in enumerate(pieces(chunk.text, written)):
        _piece(r, chunk, number, piece, model, when)


def _piece(r: AiderRun, chunk: Chunk, number: int, piece: Piece, model: str | None, when: datetime | None) -> None:
    base = f"reply-{chunk.line}-{number}"
    if piece.kind == "think":
        r.event(base, kind=Kind.THINKING, text=piece.text, model=model, timestamp=when, line=chunk.line)
    elif piece.kind == "prose":
        r.event(base, kind=Kind.ASSISTANT, text=piece.text, model=model, timestamp=when, line=chunk.line)
    elif piece.edit is not None:
        edit = piece.edit
        call_id = f"edit-{chunk.line}-{number}"
        r.pending.append(Pending(call_id, edit=edit))
        r.event(
            call_id,
            kind=Kind.TOOL_CALL,
            tool_name="edit",
            category=ToolCategory.EDIT,
            path=edit.path or None,
            diff=edit.diff,
            text=fenced_text(edit.content, edit.path) if edit.content is not None else "",
            call_id=call_id,
            model=model,
            timestamp=when,
            line=chunk.line,
            meta={"format": edit.kind} if edit.path else {"format": edit.kind, "file": "not named in the reply"},
        )
