"""The ``sessite`` command group: every command module registers itself on ``main``."""

from __future__ import annotations

import gc
from functools import cache

import click

from sessite import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sessite")
def main() -> None:
    """Publish archives of AI coding sessions as a static, searchable site."""
    tune_gc()


@cache  # once a process: a second freeze would keep the cycles made since out of every collection
def tune_gc() -> None:
    """Fewer cycle collections: a build makes millions of short-lived objects that reference
    counting frees, yet the collector's default thresholds walk the whole growing heap about ten
    times (0.75 s of a 100 MB build). What the imports made is frozen out of those walks, which
    also keeps forked workers from copying the pages it sits on. About 3% less CPU, same memory."""
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
