"""``python -m sessite`` runs the ``sessite`` command."""

from sessite.cli import main

main()
