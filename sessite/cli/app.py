"""The ``sessite`` command group: every command module registers itself on ``main``."""

from __future__ import annotations

import click

from sessite import __version__, speedups
from sessite.speedups import collector


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sessite")
def main() -> None:
    """Publish archives of AI coding sessions as a static, searchable site."""
    if speedups.ENABLED:
        collector.tune()
