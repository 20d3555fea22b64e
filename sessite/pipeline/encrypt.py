"""``sessite build --encrypt``: the finished staged site, encrypted before it is swapped in.

It runs after the output scan (which reads the plain pages) and before publishing. Every file
the build wrote, except the static assets, is sealed into ``x/<hashed name>.js``
(``publish/vault.py``); an HTML page's address gets the small unlock page instead, any other
file (search chunks, feeds, downloads) is left out of the plain site. A page the cache kept is
already encrypted: its sealed copy is kept too (same site key, same hashed name), so an
incremental build re-encrypts only what changed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from sessite.publish.vault import BLOB_FOLDER, KEYS_URL, Keyring, SiteKey, VaultError, blob_url, seal
from sessite.publish.writer import MARKER, OutputError, SiteWriter
from sessite.site.urls import NOT_FOUND_URL, STATIC_FOLDER, is_single_file_url

NOT_FOUND_DEPTH = 5  # the 404 page asks for vault.js this many folders up (templates/404.html does the same)
Stub = Callable[[list[str], str], str]  # (roots to try, page named or "") -> the unlock page's HTML


@dataclass
class SiteVault:
    """The site key of this build and the keyring it is published with."""

    key: SiteKey
    ring: Keyring
    new: bool  # a fresh site key: nothing published can be kept

    def published(self, url: str, previous: Mapping[str, object]) -> bool:
        """Is ``url`` in the published site as this build would leave it: its sealed copy, and for a page
        its unlock page? (A page missing either is rendered again.)"""
        if blob_url(self.key, url) not in previous:
            return False
        return url in previous or not stubbed(url)

    @classmethod
    def for_site(cls, output: Path, password: str, clean: bool) -> SiteVault:
        """The published site's key when the password opens it; a new key for a new site or ``--clean``.
        Raises OutputError (one line) for a password that opens none of the published keys."""
        published = output / KEYS_URL
        if not clean and published.is_file():
            try:
                ring = Keyring.from_js(published.read_bytes())
            except (OSError, VaultError) as exc:
                raise OutputError(f"{published}: {exc}") from None
            opened = ring.open(password)
            if opened is None:
                raise OutputError(
                    f"{published}: the password opens none of this site's keys "
                    "(add it with 'sessite rekey', or build with --clean for a new key)"
                )
            return cls(opened[1], ring, new=False)
        key = SiteKey.new()
        return cls(key, Keyring.new(password, key), new=True)


def plain(url: str) -> bool:
    """Files that stay as they are: the static assets, the keyring, the marker, the sealed pages."""
    return url.startswith((f"{STATIC_FOLDER}/", f"{BLOB_FOLDER}/")) or url in (KEYS_URL, MARKER, ".nojekyll")


def encrypt_site(writer: SiteWriter, vault: SiteVault, stub: Stub) -> None:
    """Seal every page this build wrote; raises OutputError when a kept data file lost its sealed copy."""
    for url in sorted(u for u in writer.written if not plain(u)):
        sealed = blob_url(vault.key, url)
        if url in writer.kept and writer.keep(sealed):
            continue  # published, sealed, unchanged
        # New bytes; or kept because the published copy has the same bytes in plain (a site that was
        # not encrypted before): sealed now all the same.
        writer.write(sealed, seal(vault.key, url, writer.staged_bytes(url)))
        if stubbed(url):
            writer.replace(url, stub_for(url, stub))
        else:
            writer.drop(url)
    for url in sorted(u for u in writer.missing - writer.written if not plain(u)):
        if not writer.keep(blob_url(vault.key, url)):  # a kept data file: only its sealed copy is published
            raise OutputError(f"{writer.output / url}: its encrypted copy is missing; build again with --clean")
    writer.write(KEYS_URL, vault.ring.to_js())


def stubbed(url: str) -> bool:
    """Does ``url`` keep an unlock page at its address (a page, not the one-file export, a download)?"""
    return url.endswith(".html") and not is_single_file_url(url)


def stub_for(url: str, stub: Stub) -> str:
    if url == NOT_FOUND_URL:  # served at any address: it names its page and finds the root
        return stub(["../" * depth for depth in range(NOT_FOUND_DEPTH)], url)
    return stub(["../" * url.count("/")], "")
