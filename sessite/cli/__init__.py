"""The ``sessite`` command line: one module per command, each registering itself on ``main``.

``app`` holds the command group, ``options`` what several commands share; ``build``, ``serve``,
``mcp``, ``discover``, ``collect``, ``convert``, ``check``, ``init_site`` and ``rekey`` hold one
command each. Importing this package imports them all, so ``main`` knows every command.
"""

from sessite.cli import build, check, collect, convert, discover, init_site, mcp, rekey, serve
from sessite.cli.app import main

__all__ = ["build", "check", "collect", "convert", "discover", "init_site", "main", "mcp", "rekey", "serve"]
