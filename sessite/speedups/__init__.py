"""Byte-identical fast paths for library internals, behind one switch.

Each module here does what a library does, sooner, and gives the same bytes:

- ``quickmd``: the markdown most messages use, drawn as mistune draws it (mistune's output);
- ``fastlex``: pygments' RegexLexer loop with joined regexes (pygments' tokens; it reads
  pygments' internals, ``_TokenType`` and the processed rule tables);
- ``pretty``: ``json.dumps(indent=2)`` with the C string encoder;
- ``collector``: the cycle collector tuned for a build (no output at all).

``SESSITE_SPEEDUPS=0`` turns them all off: the libraries do the work, with the same output
(the equivalence tests run both ways in CI). The dependency bounds in pyproject.toml name the
mistune and pygments versions these were checked against: a new version is checked, then allowed.
"""

from __future__ import annotations

import os

ENABLED = os.environ.get("SESSITE_SPEEDUPS", "1").strip() != "0"
