"""Trae Agent trajectories (``bytedance/trae-agent``), read straight from the JSON (independently of the reader).

Records, numbered 1…: the ``task``; each ``agent_steps[]`` entry (the Rust port:
each ``llm_interaction[]`` entry, which holds its step under ``steps``); each
``llm_interactions[]`` entry (Python); the ``final_result``, when there is one.

What a faithful page must show: the task (the user's words); the text of each step's
``llm_response.content`` (a string, or the Rust port's list of text parts); calls
(``tool_calls[].call_id``, else the response's) and the results that answer them
(``tool_results[].call_id``). An interaction restates its step's response: no texts of its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..records import Record, json_document


def records(path: Path) -> Iterator[Record]:
    doc = json_document(path)
    if not isinstance(doc, dict):
        return
    first = Record(path, 1, "task")
    if isinstance(doc.get("task"), str) and doc["task"].strip():
        first.user_texts.append(doc["task"].strip())
    yield first
    line = 1
    steps = doc.get("agent_steps") or doc.get("llm_interaction") or []
    for item in steps if isinstance(steps, list) else []:
        line += 1
        yield _step(path, line, item)
    interactions = doc.get("llm_interactions") or []
    for _ in interactions if isinstance(interactions, list) else []:
        line += 1
        yield Record(path, line, "llm_interaction")
    if isinstance(doc.get("final_result"), str) and doc["final_result"]:
        yield Record(path, line + 1, "final_result")


def _step(path: Path, line: int, item: Any) -> Record:
    out = Record(path, line, "step")
    if not isinstance(item, dict):
        return out
    inner = item.get("steps") if isinstance(item.get("steps"), dict) else item
    reply = inner.get("llm_response") if isinstance(inner.get("llm_response"), dict) else {}
    content = reply.get("content")
    if isinstance(content, list):
        content = "\n\n".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    if isinstance(content, str) and content.strip():
        out.assistant_texts.append(content.strip())
    calls = inner.get("tool_calls") or reply.get("tool_calls") or []
    for call in calls if isinstance(calls, list) else []:
        if isinstance(call, dict) and isinstance(call.get("call_id"), str):
            out.calls.append(call["call_id"])
    results = inner.get("tool_results") or []
    for result in results if isinstance(results, list) else []:
        if isinstance(result, dict) and isinstance(result.get("call_id"), str):
            out.results.append(result["call_id"])
    return out
