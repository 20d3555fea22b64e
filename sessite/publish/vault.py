"""The cryptography of an encrypted site (``sessite build --encrypt``): pure functions, no files.

A random *site key* (64 bytes: an AES-256-GCM key for the pages, an HMAC-SHA256 key for their
file names) encrypts every page; it is stored only *wrapped* (AES-256-GCM) under a key derived
from each password with PBKDF2-SHA256, one wrapped copy per password, in ``keys.js``. Changing a
password or adding one re-wraps the site key and re-encrypts nothing.

PBKDF2-SHA256 and not Argon2id: the browser must derive the same key from the password, and
WebCrypto has PBKDF2 natively (fast, constant-time, no code to ship); Argon2id would mean a
WebAssembly build in the page, and a ``wasm-unsafe-eval`` hole in the CSP. 600,000 iterations is
OWASP's current figure for PBKDF2-HMAC-SHA256 (Password Storage Cheat Sheet, 2023 onwards).

Every page is compressed (raw deflate), prefixed with its length, padded to a Padmé bucket
(so a length reveals about log log of itself) and sealed with its URL as associated data, so a
blob cannot be passed off as another page. Its nonce is synthetic (an HMAC of URL and text), so
an unchanged page seals to the same bytes and an incremental build leaves its file untouched.
The file a page is kept in is a script (``x/<name>.js`` calling ``sessiteVault.blob``) so that
it loads from ``file://`` too, where ``fetch()`` of local files fails; its name is the HMAC of
the URL, so it tells nothing about it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import secrets
import struct
import unicodedata
import zlib
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC

ITERATIONS = 600_000  # OWASP Password Storage Cheat Sheet: PBKDF2-HMAC-SHA256
KEYS_URL = "keys.js"  # the wrapped site keys, in the site root
BLOB_FOLDER = "x"  # the encrypted pages, by hashed name
MIN_BUCKET = 512  # no padded page is smaller than this (bytes before encryption)
_WRAP_AAD = b"sessite site key v1"
_NONCE = 12
_BLOB_JS = re.compile(rb'sessiteVault\.blob\("([0-9a-f]+)","([A-Za-z0-9+/=]*)"\);\n?')


class VaultError(ValueError):
    """A keyring or a blob cannot be used (damaged, or not this site's); the message is one line."""


@dataclass(frozen=True)
class SiteKey:
    """What every page is sealed with: ``content`` (AES-256-GCM) and ``names`` (HMAC of the URLs)."""

    content: bytes
    names: bytes

    @classmethod
    def new(cls) -> SiteKey:
        return cls(secrets.token_bytes(32), secrets.token_bytes(32))

    @property
    def raw(self) -> bytes:
        return self.content + self.names

    @classmethod
    def from_raw(cls, raw: bytes) -> SiteKey:
        if len(raw) != 64:
            raise VaultError("a site key is 64 bytes")
        return cls(raw[:32], raw[32:])


def derive(password: str, salt: bytes, iterations: int = ITERATIONS) -> bytes:
    """The key-encryption key of one password (what WebCrypto's PBKDF2 deriveBits(256) gives); NFC first,
    so an "é" typed as one character or as e + accent is the same password in every browser."""
    kdf = PBKDF2HMAC(algorithm=hashes.SHA256(), length=32, salt=salt, iterations=iterations)
    return kdf.derive(unicodedata.normalize("NFC", password).encode("utf-8"))


@dataclass
class Keyring:
    """The site key wrapped once per password. One salt for the site: the browser runs the slow
    KDF once and tries each wrapped copy with the result."""

    salt: bytes
    iterations: int = ITERATIONS
    entries: list[tuple[str, bytes]] = field(default_factory=list)  # (id, nonce + wrapped key)

    @classmethod
    def new(cls, password: str, key: SiteKey, iterations: int = ITERATIONS) -> Keyring:
        ring = cls(secrets.token_bytes(16), iterations)
        ring.add(password, key)
        return ring

    def add(self, password: str, key: SiteKey) -> str:
        """Wrap the site key for one more password; its entry id."""
        return self.add_kek(derive(password, self.salt, self.iterations), key)

    def add_kek(self, kek: bytes, key: SiteKey) -> str:
        nonce = secrets.token_bytes(_NONCE)
        entry = secrets.token_hex(4)
        self.entries.append((entry, nonce + AESGCM(kek).encrypt(nonce, key.raw, _WRAP_AAD)))
        return entry

    def open(self, password: str) -> tuple[str, SiteKey] | None:
        """The entry this password opens and the site key; None for a wrong password."""
        return self.open_kek(derive(password, self.salt, self.iterations))

    def open_kek(self, kek: bytes) -> tuple[str, SiteKey] | None:
        for entry, wrapped in self.entries:
            try:
                raw = AESGCM(kek).decrypt(wrapped[:_NONCE], wrapped[_NONCE:], _WRAP_AAD)
            except InvalidTag:
                continue
            return entry, SiteKey.from_raw(raw)
        return None

    def remove(self, entry: str) -> None:
        self.entries = [(e, w) for e, w in self.entries if e != entry]

    def to_js(self) -> bytes:
        data = {
            "v": 1,
            "kdf": "PBKDF2-SHA256",
            "iterations": self.iterations,
            "salt": _b64(self.salt),
            "keys": [{"id": e, "wrapped": _b64(w)} for e, w in self.entries],
        }
        return f"sessiteVault.keys({json.dumps(data, separators=(',', ':'))});\n".encode()

    @classmethod
    def from_js(cls, text: bytes) -> Keyring:
        match = re.fullmatch(rb"sessiteVault\.keys\((.*)\);\n?", text, re.S)
        try:
            if not match:
                raise ValueError("not a keyring")
            data = json.loads(match.group(1))
            if data.get("v") != 1 or data.get("kdf") != "PBKDF2-SHA256":
                raise ValueError("unknown keyring version")
            entries = [(str(k["id"]), base64.b64decode(k["wrapped"], validate=True)) for k in data["keys"]]
            return cls(base64.b64decode(data["salt"], validate=True), int(data["iterations"]), entries)
        except (ValueError, KeyError, TypeError) as exc:
            raise VaultError(f"{KEYS_URL} is damaged ({exc})") from None


def blob_name(key: SiteKey, url: str) -> str:
    """The hashed name of a page's encrypted file: nothing of the URL shows."""
    return hmac.new(key.names, url.encode("utf-8"), hashlib.sha256).hexdigest()[:32]


def url_key(key: SiteKey) -> bytes:
    """The key of the site's opaque URLs (``site.urls.opaque_urls``): kept with the site key, so an
    incremental build gives every page the address it had; never the names key itself."""
    return hmac.new(key.names, b"sessite opaque urls v1", hashlib.sha256).digest()


def blob_url(key: SiteKey, url: str) -> str:
    name = blob_name(key, url)
    return f"{BLOB_FOLDER}/{name[:2]}/{name}.js"


def padme(length: int) -> int:
    """Padmé: round up so that at most about log2(log2 L) bits of the length remain (overhead ≤ 12%)."""
    length = max(length, MIN_BUCKET)
    exponent = length.bit_length() - 1
    low_bits = exponent - exponent.bit_length()
    mask = (1 << low_bits) - 1
    return (length + mask) & ~mask


def seal(key: SiteKey, url: str, data: bytes) -> bytes:
    """A page as its encrypted script file (``x/<name>.js``)."""
    packer = zlib.compressobj(6, zlib.DEFLATED, -15)
    packed = packer.compress(data) + packer.flush()
    body = struct.pack(">I", len(packed)) + packed
    body += bytes(padme(len(body)) - len(body))
    # A synthetic nonce (the HMAC of URL and padded text): an unchanged page seals to the same bytes,
    # so a rebuild leaves its file untouched; two different texts never share a nonce but by chance.
    nonce = hmac.new(key.names, b"sessite nonce\0" + url.encode("utf-8") + b"\0" + body, hashlib.sha256).digest()
    nonce = nonce[:_NONCE]
    sealed = nonce + AESGCM(key.content).encrypt(nonce, body, url.encode("utf-8"))
    return f'sessiteVault.blob("{blob_name(key, url)}","{_b64(sealed)}");\n'.encode()


def unseal(key: SiteKey, url: str, script: bytes) -> bytes:
    """``seal`` undone (the tests, and ``sessite rekey`` checking a password)."""
    match = _BLOB_JS.fullmatch(script)
    if not match:
        raise VaultError(f"{url}: not an encrypted page")
    sealed = base64.b64decode(match.group(2))
    try:
        body = AESGCM(key.content).decrypt(sealed[:_NONCE], sealed[_NONCE:], url.encode("utf-8"))
    except InvalidTag:
        raise VaultError(f"{url}: the site key does not open its encrypted copy") from None
    (size,) = struct.unpack(">I", body[:4])
    return zlib.decompress(body[4 : 4 + size], -15)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
