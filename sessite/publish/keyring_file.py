"""``keys.js`` of a published encrypted site, read and replaced in place (``sessite rekey``).

Only this one file changes: the pages stay sealed under the same site key. It is replaced
atomically (a new file renamed over it), so a reader sees the old keyring or the new one.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from sessite.publish.staging import SITE_MARKER
from sessite.publish.vault import KEYS_URL, Keyring, VaultError


def read_keyring(site: Path) -> Keyring:
    """The site's keyring; VaultError (one line) when the folder is not an encrypted sessite site."""
    path = site / KEYS_URL
    if not (site / SITE_MARKER).is_file() or not path.is_file():
        raise VaultError(f"{site}: not an encrypted sessite site (no {KEYS_URL}; build it with --encrypt)")
    try:
        return Keyring.from_js(path.read_bytes())
    except OSError as exc:
        raise VaultError(f"{path}: {exc.strerror or exc}") from None


def write_keyring(site: Path, ring: Keyring) -> None:
    """Replace ``keys.js`` in one step; an OSError leaves the old one."""
    path = site / KEYS_URL
    temporary = site / f".{KEYS_URL}.{secrets.token_hex(4)}.tmp"
    try:
        temporary.write_bytes(ring.to_js())
        os.chmod(temporary, path.stat().st_mode & 0o777)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
