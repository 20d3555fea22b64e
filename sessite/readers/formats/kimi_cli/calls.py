"""Tool calls and their results, the same for both generations.

A call names its tool and gives its input (Kimi CLI: ``function.arguments``, a JSON text;
Kimi Code: ``args``); a result names the call (``tool_call_id`` / ``toolCallId``) and gives
the output the model got, whether it failed, a ``message`` and what the terminal showed.
A shell result says how the command ended ("Command failed with exit code: 1").
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sessite.model import Kind, ToolCategory
from sessite.readers._util import opt_int
from sessite.readers.base import as_text
from sessite.readers.formats.kimi_cli.content import display_blocks, output_text
from sessite.readers.formats.kimi_cli.state import Call, KimiFile
from sessite.readers.formats.kimi_cli.vocabulary import CATEGORIES, DIFFS, EXIT_FAILED, EXIT_OK, PATH_KEYS
from sessite.readers.tools import tool_category, tool_input


def tool_call(
    f: KimiFile,
    call_id: str | None,
    name: str,
    args: Any,
    line: int | None,
    ts: datetime | None,
    agent: str | None,
    meta: dict[str, Any] | None = None,
) -> None:
    category = tool_category(name, CATEGORIES)
    found = tool_input(args, category, DIFFS.get(name.lower()), path_keys=PATH_KEYS)
    if call_id:
        f.calls.setdefault(call_id, Call(name, category, found.path, bool(found.diff), agent))
    f.put(
        call_id or f"call-{line}-{name}",
        agent,
        kind=Kind.TOOL_CALL,
        timestamp=ts,
        tool_name=name,
        tool_input=args,
        category=category,
        call_id=call_id,
        line=line,
        meta=meta or {},
        **found.fields(),
    )


def tool_result(
    f: KimiFile,
    call_id: str | None,
    value: dict[str, Any],
    line: int | None,
    ts: datetime | None,
    agent: str | None,
) -> None:
    """One result: ``output``, ``is_error``/``isError``, ``message``, ``note``, ``display``."""
    call = f.calls.get(call_id or "")
    text, blocks = output_text(value.get("output"))
    failed = value.get("is_error") is True or value.get("isError") is True
    meta: dict[str, Any] = {}
    for key in ("message", "note"):
        extra = value.get(key)
        if isinstance(extra, str) and extra.strip() and extra.strip() not in text:
            if text.strip():
                meta[key] = extra.strip()
            else:
                text = extra
    diff, shown, facts = display_blocks(value.get("display"), call.path if call else None)
    meta.update(facts)
    if diff and call is not None and call.has_diff:
        diff = None  # the call shows the change already
    exit_code = _exit_code(text, meta, failed) if call is not None and call.category == ToolCategory.SHELL else None
    f.put(
        f"{call_id}-result" if call_id else f"result-{line}",
        agent if call is None else call.agent,
        kind=Kind.TOOL_RESULT,
        timestamp=ts,
        text=text,
        blocks=tuple(blocks + shown),
        call_id=call_id,
        tool_name=call.name if call else None,
        is_error=failed or bool(exit_code),
        exit_code=exit_code,
        diff=diff,
        line=line,
        meta=meta,
    )


def _exit_code(text: str, meta: dict[str, Any], failed: bool) -> int | None:
    every = " ".join([text[-2000:], *(as_text(v) for v in meta.values())])
    found = EXIT_FAILED.findall(every)
    if found:
        return opt_int(found[-1])
    return 0 if EXIT_OK in every and not failed else None
