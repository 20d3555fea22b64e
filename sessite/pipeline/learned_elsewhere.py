"""Values the output scan finds in the staged site that stand in the model's text: redacted
everywhere, and the site built once more.

A password is known by where it stands (``DB_PASSWORD=…`` in one session's
``.env``) and the redactor of that source replaces it wherever else that source
shows it (``analyze.redact.learned``). Sources are redacted apart, on every
core, so another session that repeats it bare ("log in with …") is not told.
And a value of a known shape can reach a page in a form the walk's rules did not
take (a key pasted in a way no rule reads, shown plainly on the page).

The output scan sees both: every source's learnt values are looked for in every
file it reads, and every file is read with the shape rules (``output_scan``).
When every finding gives values worth looking for (``heal_values``), the build
runs again with them given to every redactor (``SiteConfig.redact_known``),
which replaces them wherever they stand in any session's text, whatever rule
missed them. That second build is scanned too: what it still finds (a value the
page assembled, not in any text the redactor walks) stops the publish, as any
finding does; there is never a third. The build cache keeps the values, so
later builds redact them in one pass. They are part of the settings'
fingerprint: a new one rebuilds every page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from sessite.analyze.redact.findings import mask
from sessite.analyze.redact.learned import learnable
from sessite.config import SiteConfig
from sessite.pipeline.output_scan import Leak

# The runs of a value found whole by the scan that redaction can look for: a private key's base64
# lines, not its BEGIN/END words (those stand in every guide to keys), nor the prefixes a paste
# put before each line. Sixteen mixed characters do not occur by chance (``learned``).
_RUN = re.compile(r"[A-Za-z0-9+/=_.\-]{16,}")


def with_known(config: SiteConfig, cache: Any) -> SiteConfig:
    """``config`` with the values the last build (``cache``) spread, unless it names some itself."""
    known = getattr(cache, "known", ())
    if not config.redact or config.redact_known or not known:
        return config
    return replace(config, redact_known=tuple(known))


def heal_values(leak: Leak) -> list[str]:
    """What redaction must look for so that ``leak`` is gone from the next build: the value
    itself when it is one word a credential could be, else its long mixed runs (a key's lines)."""
    if leak.learned or (learnable(leak.value) and not any(char.isspace() for char in leak.value)):
        return [leak.value]
    return [run for run in _RUN.findall(leak.value) if learnable(run) and re.search(r"[0-9]", run)]


def spread(config: SiteConfig, leaks: Iterable[Leak]) -> SiteConfig | None:
    """The settings of a build that redacts everywhere the values these findings name; None when
    a finding gives nothing to look for (the build stops, as for any leak) or names nothing new."""
    leaks = list(leaks)
    if not leaks or not config.redact:
        return None
    known = dict(config.redact_known)
    for leak in leaks:
        values = heal_values(leak)
        if not values:
            return None
        for value in values:
            known.setdefault(value, leak.kind)
    if len(known) == len(config.redact_known):
        return None
    return replace(config, redact_known=tuple(sorted(known.items())))


def told(leaks: Iterable[Leak]) -> list[tuple[str, str]]:
    """(where, message): one line per value the next build redacts everywhere, at the file that
    best shows where it stands: a session's page, else another page, else its first file."""
    first: dict[frozenset[str], Leak] = {}  # (a key's lines, in a page and in a search snippet: one value)
    for leak in leaks:
        value = frozenset(heal_values(leak))
        shown = first.get(value)
        if shown is None or _rank(leak) < _rank(shown):
            first[value] = leak
    lines: list[tuple[str, str]] = []
    for leak in first.values():
        where = f"{leak.url} (file name)" if leak.name else leak.url
        found = "redacted in another session, bare here" if leak.learned else "found only by the output scan"
        lines.append((where, f"{leak.kind} {found} ({mask(leak.value)}); redacted everywhere and built again"))
    return lines


def _rank(leak: Leak) -> int:
    """0: a session's page; 1: another page; 2: any other file (a search chunk, a download, a name)."""
    if leak.name or not leak.url.endswith(".html"):
        return 2
    return 0 if leak.url.startswith("sessions/") else 1
