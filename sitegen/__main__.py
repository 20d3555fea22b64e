"""``python -m sitegen`` runs the ``sessite`` command."""

from sitegen.cli import main

main()
