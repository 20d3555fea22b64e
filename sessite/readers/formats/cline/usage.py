"""A Cline response's tokens and cost, from the history's ``metrics`` and the panel's request.

The history's ``metrics.tokens.cached`` adds cache reads and cache writes together; the
panel's ``api_req_started`` for the same request keeps them apart (``cacheReads``,
``cacheWrites``) and records what the request cost (``cost``). Both are read: the counts
from the metrics with the cache split as the request gives it, the cost as recorded.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from sessite.model import Kind, Usage
from sessite.readers._util import obj, to_float, to_int
from sessite.readers.builder import MODEL_KINDS, last_index
from sessite.readers.formats.cline.task import Task
from sessite.readers.formats.cline.ui import Request, request_usage

UNSPLIT = "reads and writes not told apart (counted as reads)"


def take_request(position: int, nth: int, requests: list[Request], indexed: bool) -> Request | None:
    """The panel request that produced the response at history ``position`` (the ``nth`` response):
    the last request started before it was added (taken off ``requests``), or the ``nth`` in order
    when the panel keeps no history indexes."""
    if not indexed:
        return requests[nth] if nth < len(requests) else None
    chosen = None
    for index, request in enumerate(requests):
        if request.history_index is not None and request.history_index < position:
            chosen = index
    if chosen is None:
        return None
    request = requests.pop(chosen)
    del requests[:chosen]  # earlier requests (failed retries) can no longer match a later message
    return request


def response_usage(message: dict[str, Any], request: Request | None) -> tuple[Usage | None, dict[str, Any]]:
    """The response's usage and the facts shown with it (its recorded cost, a cancelled request)."""
    info = request.info if request else {}
    requested, noted = request_usage(info)
    metrics = obj(message.get("metrics"))
    tokens = obj(metrics.get("tokens"))
    usage = _metrics_usage(tokens, requested, noted) if tokens else requested
    cost = metrics.get("cost")
    if isinstance(cost, (int, float)) and not isinstance(cost, bool) and cost:
        noted["cost"] = cost  # the history's own record wins over the panel's
    for key in ("cancelReason", "streamingFailedMessage"):
        if info.get(key):
            noted[key] = info[key]
    return usage, noted


def _metrics_usage(tokens: dict[str, Any], requested: Usage | None, noted: dict[str, Any]) -> Usage | None:
    """The metrics' counts; their ``cached`` split into reads and writes as the request says."""
    cached = to_int(tokens.get("cached"))
    reads, writes = cached, 0
    if requested is not None and requested.cache_read_tokens + requested.cache_write_tokens == cached:
        reads, writes = requested.cache_read_tokens, requested.cache_write_tokens
    elif cached:
        noted["cached tokens"] = UNSPLIT
    usage = Usage(
        input_tokens=to_int(tokens.get("prompt")),
        output_tokens=to_int(tokens.get("completion")),
        cache_read_tokens=reads,
        cache_write_tokens=writes,
    )
    return usage or None


def attach_usage(
    task: Task,
    before: int,
    usage: Usage | None,
    extra: dict[str, Any],
    model: str | None,
    ts: datetime | None,
    line: int,
) -> None:
    """A response's usage on its last model event, or on an event of its own when it wrote nothing."""
    task.cost += to_float(extra.get("cost")) or 0.0
    index = last_index(task.events, lambda e: e.kind in MODEL_KINDS, since=before)
    if index is not None:
        event = task.events[index]
        meta = {**event.meta, **extra}
        task.events[index] = replace(event, usage=usage, model=event.model or model, meta=meta)
        return
    meta = {**extra, "note": "model response with no content"}
    task.emit(f"m{line - 1}-usage", kind=Kind.ASSISTANT, timestamp=ts, usage=usage, model=model, meta=meta, line=line)
