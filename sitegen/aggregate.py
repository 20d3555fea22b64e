"""Site-wide outputs built from every session: the interface build() drives.

An Aggregate sees each session once, as it streams past (``add``), keeps only
what it needs, and writes its own outputs at the end (``write``). The index,
the search index and the git-ref pages are aggregates; adding another one is
one line in build.py's AGGREGATES.
"""

from __future__ import annotations

from typing import Protocol

from .config import SiteConfig
from .enrich import SessionView
from .readers import Problems
from .render import Renderer
from .writer import SiteWriter


class Aggregate(Protocol):
    def add(self, view: SessionView) -> None:
        """Called once per session, after redaction, in discovery order."""
        ...

    def write(self, writer: SiteWriter, renderer: Renderer, problems: Problems) -> None:
        """Write this aggregate's pages and files into the site."""
        ...


class AggregateFactory(Protocol):
    def __call__(self, config: SiteConfig) -> Aggregate: ...
