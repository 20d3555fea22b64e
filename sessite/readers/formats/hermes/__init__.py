"""Hermes Agent (Nous Research): ``~/.hermes/sessions/<id>.jsonl``, OpenAI-style chat messages
after a first ``session_meta`` line, and the ``session_<id>.json`` snapshot beside it (alone, in
older installs).

Modules by job: ``messages`` (one message as events), ``reader`` (detection, the pair of files
read as one session).
"""

from __future__ import annotations

from sessite.readers.formats.hermes.reader import READER, HermesReader

__all__ = ["READER", "HermesReader"]
