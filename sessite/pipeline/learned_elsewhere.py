"""Secrets learnt in one source and standing bare in another: redacted everywhere.

A password is known by where it stands (``DB_PASSWORD=…`` in one session's
``.env``) and the redactor of that source replaces it wherever else that source
shows it (``analyze.redact.learned``). Sources are redacted apart, on every
core, so another session that repeats it bare ("log in with …") is not told.

The output scan is: every source's learnt values are looked for in every file
it reads (``output_scan``). When the only findings are such values, the build
runs again with them given to every redactor (``SiteConfig.redact_known``),
and the build cache keeps them, so later builds redact them in one pass. They
are part of the settings' fingerprint: a new one rebuilds every page.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from sessite.config import SiteConfig
from sessite.pipeline.output_scan import Leak


def with_known(config: SiteConfig, cache: Any) -> SiteConfig:
    """``config`` with the values the last build (``cache``) spread, unless it names some itself."""
    known = getattr(cache, "known", ())
    if not config.redact or config.redact_known or not known:
        return config
    return replace(config, redact_known=tuple(known))


def spread(config: SiteConfig, leaks: Iterable[Leak]) -> SiteConfig | None:
    """The settings of a build that redacts everywhere the learnt values these findings name; None
    when a finding is something else (the build stops, as for any leak) or names nothing new."""
    leaks = list(leaks)
    if not leaks or not all(leak.learned for leak in leaks):
        return None
    known = dict(config.redact_known)
    for leak in leaks:
        known.setdefault(leak.value, leak.kind)
    if len(known) == len(config.redact_known):
        return None
    return replace(config, redact_known=tuple(sorted(known.items())))
