"""Kimi CLI (``~/.kimi/sessions``) and its successor Kimi Code (``~/.kimi-code/sessions``).

Modules by job: ``vocabulary`` (tool categories and diffs, what is left out and why),
``layout`` (where a session's files are; what a first look at one tells), ``state`` (one
session's events, on the timeline or in a sub-agent, and its facts), ``content`` (content
parts, tool output and display blocks, token counts), ``calls`` (tool calls and results),
``wire`` (Kimi CLI's ``wire.jsonl``), ``code`` (Kimi Code's logs), ``context`` (Kimi CLI's
``context.jsonl``, alone or beside a wire log), ``reader`` (the Reader).
"""

from __future__ import annotations

from sessite.readers.formats.kimi_cli.reader import READER, KimiCliReader

__all__ = ["READER", "KimiCliReader"]
