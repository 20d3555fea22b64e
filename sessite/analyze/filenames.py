"""Names a file may not take on some system a site is copied to.

Windows reserves ``CON``, ``PRN``, ``AUX``, ``NUL``, ``COM1``-``COM9`` and ``LPT1``-``LPT9``
(with any extension, any case: ``nul.html``, ``Con.sessions.js``), and the superscript
digits after COM and LPT too. A page named so cannot be written, copied or served there.
"""

from __future__ import annotations

_RESERVED = frozenset(
    {"con", "prn", "aux", "nul", "conin$", "conout$"}
    | {f"{dev}{n}" for dev in ("com", "lpt") for n in (*"123456789", "¹", "²", "³")}
)


def reserved_on_windows(name: str) -> bool:
    """Is a file named ``name`` (or ``name.<anything>``) reserved on Windows?"""
    stem = name.split(".", 1)[0].rstrip(" ").lower()
    return stem in _RESERVED
