"""Who may talk to the preview server: this machine's browser tab, and agents on this machine.

Any web page the user opens can send requests to ``127.0.0.1``: a ``<form>`` or a
``text/plain`` fetch needs no CORS preflight, a ``<script src>`` runs a JavaScript file
of any origin (the search and insights data are JSONP scripts: their content would be
the page's to read), and a DNS-rebinding page reaches the server under its own host
name. So every request must name the server by its bind address (``Host``); a request
that says where it comes from (``Origin``, ``Sec-Fetch-Site``) must come from the
server's own origin, save a top-level navigation (a link followed from elsewhere), whose
page another origin cannot read; and every response says ``Cross-Origin-Resource-Policy:
same-origin`` for browsers that send no ``Sec-Fetch-*``.

Bound beyond loopback (``--host 0.0.0.0``), the Host check cannot tell an honest
client on the network from one that lies (any client may send ``Host: 127.0.0.1``), so
it gives both the same: any IP-literal Host (a rebinding page can only present a DNS
name) reads the site, and the JSON-RPC endpoints answer only peers whose address is this
machine's (loopback, the bind address, the addresses of its name).
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from typing import Protocol

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
WILDCARDS = ("", "0.0.0.0", "::")


class Headers(Protocol):
    """What the guard reads of a request's headers (``http.server``'s message, or a dict)."""

    def get(self, name: str, /) -> str | None: ...


def is_loopback(host: str) -> bool:
    """Is ``host`` (an address or name, brackets allowed) this machine only?"""
    name = host.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _ip_literal(host: str) -> bool:
    """``192.0.2.7`` or ``[2001:db8::1]`` (not a name: DNS rebinding needs a name)."""
    if host.startswith("["):
        if not host.endswith("]"):
            return False
        host = host[1:-1]
    elif ":" in host:
        return False  # an IPv6 literal in Host is always bracketed
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Guard:
    """The Host values and origins the server answers, made from its bind address."""

    hosts: frozenset[str]
    origins: frozenset[str]
    port: int = 0
    any_address: bool = False  # bound beyond loopback: any IP-literal Host, RPC for local peers only
    own_addresses: frozenset[str] = frozenset()  # this machine's addresses besides loopback (its peers)

    @classmethod
    def for_address(cls, host: str, port: int) -> Guard:
        names = set(LOOPBACK_NAMES)
        if host not in WILDCARDS:  # a host the user chose: its own name is fine too
            names.add(f"[{host}]" if ":" in host and not host.startswith("[") else host)
        hosts = {f"{name}:{port}".lower() for name in names}
        if port == 80:
            hosts |= {name.lower() for name in names}
        wide = host in WILDCARDS or not is_loopback(host)
        own = _own_addresses(host) if wide else frozenset()
        return cls(frozenset(hosts), frozenset(f"http://{h}" for h in hosts), port, wide, own)

    def _known_host(self, host: str) -> bool:
        if host in self.hosts:
            return True
        if not self.any_address:
            return False
        name, _, port = host.rpartition(":") if not host.endswith("]") else (host, "", "")
        if not port and self.port == 80:
            name = host
        elif port != str(self.port):
            return False
        return _ip_literal(name)

    def refusal(self, headers: Headers, *, needs_same_origin: bool) -> str | None:
        """Why a request must be refused, or None when it may be answered.

        ``needs_same_origin``: state-changing or data-reading endpoints (POST, the event
        stream, the RPC) also refuse a request a browser marks as coming from another
        site, even a navigation. Every other request is refused when a browser marks it
        as another site's, unless it is a top-level navigation.
        """
        host = (headers.get("Host") or "").strip().lower()
        if not self._known_host(host):
            return "unknown Host"
        origin = headers.get("Origin")
        if origin is not None and origin.strip().lower() not in (*self.origins, f"http://{host}"):
            return "cross-origin request"
        site = (headers.get("Sec-Fetch-Site") or "").strip().lower()
        if site in ("cross-site", "same-site"):
            navigation = (headers.get("Sec-Fetch-Mode") or "").strip().lower() == "navigate" and (
                headers.get("Sec-Fetch-Dest") or "document"
            ).strip().lower() == "document"
            if needs_same_origin or not navigation:
                return "cross-site request"
        return None

    def local_only(self, peer: str | None) -> str | None:
        """Why a request that only this machine may make is refused (None: it may be answered).
        By the peer's address, which a TCP client cannot choose: loopback, or one of this
        machine's own (an agent here connecting to the address the server is bound to)."""
        bare = _bare(peer) if peer is not None else None
        if not self.any_address or (bare is not None and (is_loopback(bare) or bare in self.own_addresses)):
            return None
        return "the RPC answers this machine only"


def _bare(address: str) -> str:
    """An address as ``ipaddress`` writes it (``::ffff:192.0.2.7`` is ``192.0.2.7``)."""
    try:
        ip = ipaddress.ip_address(address.strip("[]"))
    except ValueError:
        return address
    mapped = getattr(ip, "ipv4_mapped", None)
    return str(mapped or ip)


def _own_addresses(host: str) -> frozenset[str]:
    """The bind address and the addresses this machine's name resolves to."""
    found = {_bare(host)} if host not in WILDCARDS else set()
    try:
        for *_, sockaddr in socket.getaddrinfo(socket.gethostname(), None):
            found.add(_bare(str(sockaddr[0])))
    except OSError:
        pass
    return frozenset(found)
