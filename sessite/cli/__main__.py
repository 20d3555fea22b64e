"""``python -m sessite.cli``: the same command as ``python -m sessite``."""

from sessite.cli import main

main()
