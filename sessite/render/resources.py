"""Where the package's templates and static files live.

From a wheel they are inside the package (``sessite/templates``); from a
source checkout they are the top-level ``templates/`` and ``static/``.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent  # sessite/


def _find(name: str) -> Path:
    for candidate in (_PACKAGE / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"sessite's {name}/ folder is missing from the installation")


def templates_dir() -> Path:
    return _find("templates")


def static_dir() -> Path:
    return _find("static")
