"""The package's own scripts and styles as a site serves them: comments and spaces stripped.

Every search's first load downloads the search page's scripts (``benchmarks/search_bench.py``):
their comments, which say why the code is as it is, are a third of their size once gzipped
(43 KB of page assets → 33 KB). rjsmin and rcssmin only remove comments and white space (no
renaming), so a page's behaviour is the same; the repository's ``static/`` keeps the commented
sources. Already minified files (``*.min.js``, ``vendor/``) and the user's own static files pass
as they are.
"""

from __future__ import annotations

import rcssmin
import rjsmin


def minified(relative: str, data: bytes) -> bytes:
    """``data``, the file at ``relative`` (a path under ``static/``), as the site serves it."""
    if relative.startswith("vendor/") or relative.endswith((".min.js", ".min.css")):
        return data
    if relative.endswith(".js"):
        return rjsmin.jsmin(data.decode("utf-8")).encode("utf-8")
    if relative.endswith(".css"):
        return rcssmin.cssmin(data.decode("utf-8")).encode("utf-8")
    return data
