"""Who may talk to the preview server: this machine's browser tab, and agents on this machine.

Any web page the user opens can send requests to ``127.0.0.1``: a ``<form>`` or a
``text/plain`` fetch needs no CORS preflight, and a DNS-rebinding page reaches the
server under its own host name. So every request must name the server by its bind
address (``Host``), and a request that says where it comes from (``Origin``,
``Sec-Fetch-Site``) must come from the server's own origin.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


class Headers(Protocol):
    """What the guard reads of a request's headers (``http.server``'s message, or a dict)."""

    def get(self, name: str, /) -> str | None: ...


@dataclass(frozen=True)
class Guard:
    """The Host values and origins the server answers, made from its bind address."""

    hosts: frozenset[str]
    origins: frozenset[str]

    @classmethod
    def for_address(cls, host: str, port: int) -> Guard:
        names = set(LOOPBACK_NAMES)
        if host not in ("", "0.0.0.0", "::"):  # a host the user chose: its own name is fine too
            names.add(f"[{host}]" if ":" in host and not host.startswith("[") else host)
        hosts = {f"{name}:{port}".lower() for name in names}
        if port == 80:
            hosts |= {name.lower() for name in names}
        return cls(frozenset(hosts), frozenset(f"http://{h}" for h in hosts))

    def refusal(self, headers: Headers, *, needs_same_origin: bool) -> str | None:
        """Why a request must be refused, or None when it may be answered.

        ``needs_same_origin``: state-changing or data-reading endpoints (POST, the event
        stream) also refuse a request a browser marks as coming from another site.
        """
        host = (headers.get("Host") or "").strip().lower()
        if host not in self.hosts:
            return "unknown Host"
        if not needs_same_origin:
            return None
        origin = headers.get("Origin")
        if origin is not None and origin.strip().lower() not in self.origins:
            return "cross-origin request"
        site = (headers.get("Sec-Fetch-Site") or "").strip().lower()
        if site in ("cross-site", "same-site"):
            return "cross-site request"
        return None
