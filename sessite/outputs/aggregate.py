"""Site-wide outputs built from every session: the interface build() drives.

An aggregate is made from the site config in the main process, before the
workers fork (they inherit it). For every session, a worker calls ``collect(view)``,
which returns a small picklable item (the only thing that crosses processes,
and what the build cache keeps, so an unchanged session is never read again);
the main process feeds those items, in archive order, to ``add(item)``, and
finally calls ``write`` to produce the aggregate's pages and files.

Register an aggregate with one line in ``sessite/outputs/registry.py``.
"""

from __future__ import annotations

from typing import Protocol, TypeVar

from sessite.config import SiteConfig
from sessite.model import Problems
from sessite.publish.writer import SiteWriter
from sessite.render.renderer import Renderer
from sessite.site.view import SessionView

Item = TypeVar("Item")  # what one aggregate keeps of a session: its own picklable type


class Aggregate(Protocol[Item]):
    """An aggregate typed by its item: ``collect`` makes the item that ``add`` takes."""

    name: str  # unique; keys its items in the cache

    def __init__(self, config: SiteConfig) -> None: ...

    def collect(self, view: SessionView) -> Item:
        """Runs in a worker: what this aggregate needs of one (redacted) session."""
        ...

    def add(self, item: Item) -> None:
        """Runs in the main process, once per session, in archive order."""
        ...

    def write(self, writer: SiteWriter, renderer: Renderer, problems: Problems) -> None:
        """Write this aggregate's pages and files into the site."""
        ...
