"""The CLI's own records (``type: system``): slash commands, compressions, rewinds, notes.

A slash command is what the user typed (a user turn), its output (``outputHistoryItems``,
what the terminal showed) below it. A chat compression is a COMPACTION event with the
summary the model continues from. A rewind says how many records it set aside. A model
or approval-mode choice, an @-command's files and the rarer records are titled notes;
the records only the CLI's resume needs are counted with why, and a subtype this reader
does not know is still a note with its small facts, never raw JSON.
"""

from __future__ import annotations

from typing import Any

from sessite.model import Block, Kind
from sessite.readers._util import obj, opt_int, shorten, text_of
from sessite.readers.base import as_text, parse_time
from sessite.readers.formats.qwen_code.messages import agent_of
from sessite.readers.formats.qwen_code.parts import split
from sessite.readers.formats.qwen_code.state import QwenFile
from sessite.readers.formats.qwen_code.telemetry import telemetry
from sessite.readers.formats.qwen_code.vocabulary import NOT_SHOWN, NOTE_TITLES


def system(f: QwenFile, line: int, record: dict[str, Any]) -> None:
    subtype = text_of(record.get("subtype"))
    payload = obj(record.get("systemPayload"))
    if subtype == "ui_telemetry":
        telemetry(f, line, record)
    elif subtype in NOT_SHOWN:
        f.skip(NOT_SHOWN[subtype], line=line)
    elif subtype == "slash_command":
        _command(f, line, record, payload)
    elif subtype == "chat_compression":
        _compression(f, line, record, payload)
    elif subtype == "rewind":
        count = f.index.rewound.get(line)
        text = (
            f"The conversation went back to an earlier turn; the {count} record(s) before this point "
            "are kept, marked as rewound."
            if count
            else "The conversation went back to an earlier turn."
        )
        _note(f, line, record, "Conversation rewound", text, _scalars(payload))
    elif subtype == "at_command":
        files = payload.get("filesRead")
        listed = "\n".join(f"- `{as_text(p)}`" for p in files) if isinstance(files, list) else ""
        text = "\n\n".join(p for p in (text_of(payload.get("message")), listed) if p)
        meta = _scalars({k: v for k, v in payload.items() if k in ("status", "userText")})
        _note(f, line, record, "Files read for @", text, meta, error=payload.get("status") == "error")
    elif subtype == "session_model":
        model = text_of(payload.get("modelId"))
        f.model(model)
        _note(f, line, record, NOTE_TITLES[subtype], model or "", _scalars(payload, skip=("modelId",)))
    else:
        _other(f, line, record, subtype, payload)


def _command(f: QwenFile, line: int, record: dict[str, Any], payload: dict[str, Any]) -> None:
    ts = parse_time(record.get("timestamp"))
    command = text_of(payload.get("rawCommand")) or ""
    if payload.get("phase") == "invocation":
        blocks: list[Block] = []
        meta: dict[str, Any] = {"slash command": True}
        output = f.index.command_output.get(line)
        if output is not None:
            out_line, out_payload = output
            blocks, meta = _output(out_payload.get("outputHistoryItems"), meta)
            f.merged(out_line, "slash command output (shown with the command)")
        if payload.get("hiddenInvocation") is True:
            meta["hidden"] = True
        f.put(
            text_of(record.get("uuid")) or f"command-{line}",
            agent_of(f, line, record, ts),
            kind=Kind.USER,
            timestamp=ts,
            text=command,
            blocks=tuple(blocks),
            line=line,
            meta=meta,
        )
        return
    if line in {out for out, _ in f.index.command_output.values()}:
        return  # merged above, with its invocation
    blocks, meta = _output(payload.get("outputHistoryItems"), {})
    f.put(
        text_of(record.get("uuid")) or f"command-{line}",
        agent_of(f, line, record, ts),
        kind=Kind.SYSTEM,
        timestamp=ts,
        title="Command output",
        text=f"`{command}`" if command else "",
        blocks=tuple(blocks),
        line=line,
        meta=meta,
    )


def _output(items: Any, meta: dict[str, Any]) -> tuple[list[Block], dict[str, Any]]:
    """What a command showed: texts, the tool list, the system facts of ``/about``; the kinds of the rest."""
    blocks: list[Block] = []
    kinds: list[str] = []
    for item in items if isinstance(items, list) else ():
        item = obj(item)
        kind = text_of(item.get("type")) or "output"
        kinds.append(kind)
        if isinstance(item.get("text"), str) and item["text"].strip():
            blocks.append(Block("text", text=item["text"], title=kind))
        elif kind == "tools_list" and isinstance(item.get("tools"), list):
            names = [text_of(obj(t).get("name")) or as_text(t) for t in item["tools"]]
            blocks.append(Block("text", text=", ".join(names), title="tools"))
        elif isinstance(item.get("systemInfo"), dict):
            blocks.append(Block("json", title=kind, data=item["systemInfo"]))
        elif len(item) > 1:
            blocks.append(Block("json", title=kind, data={k: v for k, v in item.items() if k != "type"}))
    if kinds:
        meta = {**meta, "output": ", ".join(kinds)}
    return blocks, meta


def _compression(f: QwenFile, line: int, record: dict[str, Any], payload: dict[str, Any]) -> None:
    """The history the model continues from after a compression (its summary turns)."""
    history = payload.get("compressedHistory")
    texts = [split(content).text for content in history] if isinstance(history, list) else []
    info = obj(payload.get("info"))
    meta = {
        label: opt_int(info.get(key))
        for key, label in (("originalTokenCount", "tokens before"), ("newTokenCount", "tokens after"))
        if opt_int(info.get(key)) is not None
    }
    ts = parse_time(record.get("timestamp"))
    f.put(
        text_of(record.get("uuid")) or f"compression-{line}",
        agent_of(f, line, record, ts),
        kind=Kind.COMPACTION,
        timestamp=ts,
        text="\n\n".join(t for t in texts if t.strip()),
        line=line,
        meta=meta,
    )


def _note(
    f: QwenFile, line: int, record: dict[str, Any], title: str, text: str, meta: dict[str, Any], error: bool = False
) -> None:
    ts = parse_time(record.get("timestamp"))
    f.put(
        text_of(record.get("uuid")) or f"note-{line}",
        agent_of(f, line, record, ts),
        kind=Kind.SYSTEM,
        timestamp=ts,
        title=title,
        text=text,
        is_error=error,
        line=line,
        meta=meta,
    )


_TEXT_KEYS = ("displayText", "message", "text", "summary", "content", "description")


def _other(f: QwenFile, line: int, record: dict[str, Any], subtype: str | None, payload: dict[str, Any]) -> None:
    """A titled note: the known rarer records by their title; an unknown subtype by its name (and one problem)."""
    title = NOTE_TITLES.get(subtype or "")
    if title is None:
        f.other(line, f"system/{subtype}" if subtype else "system")
        title = shorten(subtype or "System record", 60)
    text = next((payload[k] for k in _TEXT_KEYS if isinstance(payload.get(k), str) and payload[k].strip()), "")
    text = text or split(record.get("message")).text
    _note(f, line, record, title, text, _scalars(payload, skip=_TEXT_KEYS))


def _scalars(data: dict[str, Any], skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """The small facts of a payload: strings (cut short), numbers and booleans."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key in skip:
            continue
        if isinstance(value, str) and value:
            out[key] = shorten(value, 300)
        elif isinstance(value, (bool, int, float)):
            out[key] = value
    return out
