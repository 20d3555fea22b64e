"""Call ids for claude.ai tool blocks, which the export writes without any.

A ``tool_use`` block without an ``id`` gets ``<conversation>:call<N>`` (the N-th
``tool_use`` of the conversation in file order), and the ``tool_result`` that follows it
answers it: the oldest call still unanswered with the same tool name, else the oldest
unanswered one. Blocks that do carry ids (``id``, ``tool_use_id``) keep them. Worked out
in file order before the messages are put in time order, so the ids never depend on it.
"""

from __future__ import annotations

from typing import Any

# (message index, block index) -> the call id that block makes or answers
CallIds = dict[tuple[int, int], str]


def synthetic_call_id(conv_id: str, n: int) -> str:
    """The id of the ``n``-th (1-based) tool call of a conversation."""
    return f"{conv_id}:call{n}"


def call_ids(conv_id: str, messages: list[Any]) -> CallIds:
    """Every tool block's call id, by its place in the conversation."""
    out: CallIds = {}
    open_calls: list[tuple[str, str]] = []  # (tool name, call id) awaiting a result, oldest first
    count = 0
    for mindex, message in enumerate(messages):
        content = message.get("content") if isinstance(message, dict) else None
        for bindex, block in enumerate(content if isinstance(content, list) else []):
            btype = block.get("type") if isinstance(block, dict) else None
            if btype == "tool_use":
                count += 1
                own = block.get("id")
                call_id = str(own) if own not in (None, "") else synthetic_call_id(conv_id, count)
                out[(mindex, bindex)] = call_id
                open_calls.append((_name(block), call_id))
            elif btype == "tool_result":
                answered = _answered(block, open_calls)
                if answered is not None:
                    out[(mindex, bindex)] = answered
    return out


def _answered(block: dict[str, Any], open_calls: list[tuple[str, str]]) -> str | None:
    """The call a result answers (taken off ``open_calls``): its own ``tool_use_id``, else
    the oldest open call of its tool, else the oldest open call."""
    own = block.get("tool_use_id")
    if own not in (None, ""):
        own = str(own)
        open_calls[:] = [c for c in open_calls if c[1] != own]
        return own
    name = _name(block)
    for index, (call_name, call_id) in enumerate(open_calls):
        if call_name == name:
            del open_calls[index]
            return call_id
    return open_calls.pop(0)[1] if open_calls else None


def _name(block: dict[str, Any]) -> str:
    name = block.get("name")
    return name if isinstance(name, str) else ""
