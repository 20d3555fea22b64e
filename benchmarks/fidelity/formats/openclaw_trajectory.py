"""OpenClaw run traces (``<id>.trajectory.jsonl``), read straight from the file (independently of
the reader).

One record per JSON object line, numbered by its line: ``{traceSchema: "openclaw-trajectory",
type, ts, seq, sessionId, runId, modelId, data}``.

- the user's words: ``prompt.submitted`` ``data.prompt`` (a string; OpenClaw replaces a record
  over its size limit by ``{truncated, originalBytes, …}``);
- the model's prose: ``model.completed`` ``data.assistantTexts``;
- no call ids: a trace names the tools a run used (``trace.artifacts`` ``toolMetas``), not its calls.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..records import Record, json_lines


def records(path: Path) -> Iterator[Record]:
    for line, obj in json_lines(path):
        kind = obj.get("type")
        data = obj.get("data") if isinstance(obj.get("data"), dict) else {}
        out = Record(path, line, str(kind))
        if kind == "prompt.submitted" and isinstance(data.get("prompt"), str) and data["prompt"].strip():
            out.user_texts.append(data["prompt"].strip())
        if kind == "model.completed":
            texts = data.get("assistantTexts")
            for text in texts if isinstance(texts, list) else []:
                if isinstance(text, str) and text.strip():
                    out.assistant_texts.append(text.strip())
        yield out
