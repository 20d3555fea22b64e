"""The pi coding agent: ``~/.pi/agent/sessions/--<folder>--/<time>_<id>.jsonl``.

Modules by job: ``vocabulary`` (tool categories and diffs, what is left out and why),
``index`` (the first pass: header, the entries' tree, labels, the session's name),
``state`` (one session's events and facts), ``messages`` (message entries), ``reader``
(the Reader and the other entries).
"""

from __future__ import annotations

from sessite.readers.formats.pi.reader import READER, PiReader

__all__ = ["READER", "PiReader"]
