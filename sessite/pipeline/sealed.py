"""Cache files only this user can read, and only this user's builds can have written.

The build cache holds what a build read (clear text with ``--no-redact``) and is read
back with ``pickle``, which runs code: a cache folder another user can write (a shared
``--cache-dir``) would run their code in the next build. So the folder is made ``0700``
and every file ``0600``; each file is sealed with an HMAC-SHA256 under a random key kept
in the folder (``0600``), and unpickled only when its seal checks out. A folder or key
this user does not own, or that others may write, is not trusted: no cache is read from
it or written to it (the build is a full one, and says so).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import pickle
import secrets
import stat
import tempfile
from pathlib import Path
from typing import Any

KEY_NAME = "cache.key"
_MAGIC = b"sessite-sealed-1\n"
_MAC_BYTES = hashlib.sha256().digest_size


class UntrustedCache(OSError):
    """The cache folder or its key could be written by someone else."""


def private_dir(path: Path) -> None:
    """``path`` made (with its parents) and kept ``0700``; raises UntrustedCache when it is not ours."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    st = os.stat(path)
    if _owner_is_other(st):
        raise UntrustedCache(f"{path} belongs to another user")
    if stat.S_IMODE(st.st_mode) & 0o077:
        os.chmod(path, 0o700)


def private_folder_of_ours(path: Path) -> None:
    """``path`` private (``private_dir``) and holding only files this user made: any other is
    removed (jinja loads its compiled templates from here, and they are code)."""
    private_dir(path)
    with os.scandir(path) as entries:
        for entry in entries:
            st = entry.stat(follow_symlinks=False)
            if _owner_is_other(st) or not stat.S_ISREG(st.st_mode) or stat.S_IMODE(st.st_mode) & 0o022:
                if stat.S_ISDIR(st.st_mode):
                    raise UntrustedCache(f"{entry.path} is a folder nobody made here")
                os.unlink(entry.path)


def _owner_is_other(st: os.stat_result) -> bool:
    getuid = getattr(os, "getuid", None)
    return getuid is not None and st.st_uid != getuid()


_KEYS: dict[str, bytes] = {}  # folder -> its key, once read (a missing or untrusted key is looked at again)


def cache_key_for(folder: Path, create: bool = False) -> bytes | None:
    """The folder's sealing key; made (with the folder) when ``create``; None when it is missing
    or not to be trusted."""
    name = str(folder)
    if name not in _KEYS:
        key = _read_key(folder, create)
        if key is None:
            return None
        _KEYS[name] = key
    return _KEYS[name]


def _read_key(folder: Path, create: bool) -> bytes | None:
    path = folder / KEY_NAME
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    try:
        if create:
            private_dir(folder)
        fd = os.open(path, os.O_RDONLY | nofollow)
    except FileNotFoundError:
        if not create:
            return None
        key = secrets.token_bytes(32)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | nofollow, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(key)
        return key
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode) or _owner_is_other(st) or stat.S_IMODE(st.st_mode) & 0o077:
            return None
        folder_st = os.stat(folder)
        if _owner_is_other(folder_st) or stat.S_IMODE(folder_st.st_mode) & 0o022:
            return None
        key = fh.read(64)
    return key if len(key) == 32 else None


def dump(value: Any, path: Path, cache_dir: Path) -> None:
    """Write ``value`` sealed (with ``cache_dir``'s key), atomically, ``0600``; raises
    UntrustedCache for a folder that is not this user's alone."""
    key = cache_key_for(cache_dir, create=True)
    if key is None:
        raise UntrustedCache(f"{path.parent} is not private to this user (owned or writable by another)")
    private_dir(path.parent)
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    fd, tmp = tempfile.mkstemp(prefix=".cache-", dir=path.parent)  # 0600
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(_MAGIC + hmac.new(key, data, hashlib.sha256).digest())
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load(path: Path, cache_dir: Path) -> Any:
    """The value at ``path`` when its seal (``cache_dir``'s key) checks out; raises ValueError
    (or OSError) otherwise."""
    key = cache_key_for(cache_dir)
    if key is None:
        raise ValueError("no trusted cache key")
    data = path.read_bytes()
    head = len(_MAGIC) + _MAC_BYTES
    if not data.startswith(_MAGIC) or len(data) < head:
        raise ValueError("not a sealed cache file")
    mac, body = data[len(_MAGIC) : head], memoryview(data)[head:]
    if not hmac.compare_digest(mac, hmac.new(key, body, hashlib.sha256).digest()):
        raise ValueError("the cache file's seal does not check out")
    return pickle.loads(body)  # noqa: S301 - sealed by this user's key, checked above
