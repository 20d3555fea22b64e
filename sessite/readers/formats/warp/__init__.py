"""Warp: the AI conversations in ``warp.sqlite`` (the rest of that database is terminal state).

``agent_tasks`` holds each conversation's tasks as protobuf (``warp.multi_agent.v1.Task``:
its messages: queries, answers, reasoning, tool calls and results), ``ai_queries`` each
request (the typed query, its working folder, model and status), ``agent_conversations``
the credits and tokens spent, and older Warp ``ai_blocks`` the answers. Modules by job:
``proto`` (the protobuf wire format), ``calls`` (tool calls and results), ``messages``
(one task message as events), ``database`` (the AI rows, numbered as records),
``sessions`` (one session per conversation, sub-agent tasks nested), ``reader``. The
database's write-ahead log is applied in memory by ``sessite.readers.sqlite_wal``.
"""

from __future__ import annotations

from sessite.readers.formats.warp.reader import READER, WarpReader

__all__ = ["READER", "WarpReader"]
