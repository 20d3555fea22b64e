"""Adding ``redact_allow`` entries to a ``sessite.toml`` (``sessite check --allow``), keeping
everything else in the file as the user wrote it.

No TOML writer is needed for one array of strings: the entries go into the existing
``redact_allow = [...]`` (before its closing bracket) or into a new one before the
first table; the result is parsed again and must hold what it held before plus the
new entries, else nothing is written.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path

_ARRAY = re.compile(
    r"^redact_allow[ \t]*=[ \t]*\[(?P<body>(?:[^\]\"'#]|\"(?:[^\"\\\\\n]|\\\\.)*\"|'[^'\n]*'|#[^\n]*)*)\]", re.MULTILINE
)
_FIRST_TABLE = re.compile(r"^[ \t]*\[", re.MULTILINE)


class ConfigEditError(ValueError):
    """The settings file could not be changed safely; nothing was written."""


def add_allow_entries(path: Path, entries: list[tuple[str, str]]) -> int:
    """Add each (entry, comment) to ``redact_allow`` in ``path`` (created if missing); returns how
    many were new. The file is replaced atomically."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    try:
        before = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigEditError(f"{path}: not valid TOML ({exc}); nothing written") from None
    had = before.get("redact_allow", [])
    if not isinstance(had, list):
        raise ConfigEditError(f"{path}: redact_allow is not a list; nothing written")
    new = [(entry, comment) for entry, comment in dict(entries).items() if entry not in had]
    if not new:
        return 0
    lines = "".join(f"    {json.dumps(entry)},  # {_comment(comment)}\n" for entry, comment in new)
    found = _ARRAY.search(text)
    if found is not None:
        body = found.group("body").rstrip()
        joint = "" if not body.strip() or body.endswith(",") else ","
        text = f"{text[: found.start('body')]}{body}{joint}\n{lines}{text[found.end('body') :]}"
    else:
        block = f"redact_allow = [\n{lines}]\n"
        table = _FIRST_TABLE.search(text)
        at = table.start() if table else len(text)
        head = text[:at] if not text[:at] or text[:at].endswith("\n") else text[:at] + "\n"
        text = head + block + ("\n" + text[at:] if table else "")
    try:
        after = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigEditError(f"{path}: could not add to redact_allow ({exc}); nothing written") from None
    if after.get("redact_allow") != [*had, *(entry for entry, _ in new)] or {
        k: v for k, v in after.items() if k != "redact_allow"
    } != {k: v for k, v in before.items() if k != "redact_allow"}:
        raise ConfigEditError(f"{path}: could not add to redact_allow safely; nothing written")
    temp = path.with_name(f".{path.name}.sessite-tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)
    return len(new)


def _comment(text: str) -> str:
    return " ".join(text.split())[:160]
