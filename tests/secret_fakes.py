"""Fake but realistically shaped secret values (fixed seeds), and where a secret is planted.

Never real credentials: random characters in the alphabet and length of the real thing.
"""

from __future__ import annotations

import base64
import random
import string
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

rng = random.Random(16)
ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"
URLB64 = ALNUM + "_-"


def pick(n: int, alphabet: str) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def alnum(n: int) -> str:
    return pick(n, ALNUM)


def hexs(n: int) -> str:
    return pick(n, "0123456789abcdef")


def b64(n_bytes: int) -> str:
    return base64.b64encode(rng.randbytes(n_bytes)).decode()


def password(n: int = 16) -> str:
    return pick(n - 2, ALNUM) + rng.choice("!#%^*") + rng.choice(string.digits)


def uuid() -> str:
    h = hexs(32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def luhn(prefix: str, length: int = 16) -> str:
    digits = prefix + "".join(rng.choice(string.digits) for _ in range(length - len(prefix) - 1))
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch)
        if i % 2 == 0:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return digits + str((10 - total % 10) % 10)


@dataclass(frozen=True)
class Planted:
    """One secret in its natural place. ``place``: prompt, bash (the command), output (of
    ``source``, a command), read (the file ``source``, as Claude Code's Read shows it),
    write (a file's new content), input (a tool's JSON input), split (two events)."""

    label: str
    place: str
    payload: Any
    cores: tuple[str, ...]
    source: str = ""


def _add(into: list[Planted], label: str, place: str, payload: Any, *cores: str, source: str = "") -> None:
    into.append(Planted(label, place, payload, cores, source))


def planter(into: list[Planted]) -> Callable[..., None]:
    """``plant(label, place, payload, *cores, source=…)`` adding to ``into``."""
    return partial(_add, into)
