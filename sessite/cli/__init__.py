"""The ``sessite`` command line: one module per command, each registering itself on ``main``.

``app`` holds the command group, ``options`` what several commands share; ``build``, ``serve``,
``discover``, ``convert``, ``check``, ``init_site`` and ``mcp`` hold one command each. Importing this
package imports them all, so ``main`` knows every command.
"""

from sessite.cli import build, check, convert, discover, init_site, mcp, serve
from sessite.cli.app import main

__all__ = ["build", "check", "convert", "discover", "init_site", "main", "mcp", "serve"]
