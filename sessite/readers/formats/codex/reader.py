"""The Codex reader: which files are rollouts, which belong together, and reading them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from sessite.model import Problems, Session
from sessite.readers.base import Reader, Sniff
from sessite.readers.formats.codex.content import INJECTED_TAGS
from sessite.readers.formats.codex.family import family_of, head_of
from sessite.readers.formats.codex.layout import AGENT, ENVELOPE_TYPES, META_HEAD, NAME, is_bare_item, is_legacy_header
from sessite.readers.formats.codex.nest import read_family, read_rollout
from sessite.readers.platform import Platform


class CodexReader(Reader):
    name = NAME
    agent = AGENT
    injected_tags = Reader.injected_tags | INJECTED_TAGS

    def default_folders(self, plat: Platform) -> list[Path]:
        """``sessions`` and ``archived_sessions`` in ``$CODEX_HOME`` (``~/.codex`` by default)."""
        home = plat.var("CODEX_HOME") or plat.home / ".codex"
        return [home / "sessions", home / "archived_sessions"]

    def detect(self, sniffed: Sniff) -> bool:
        path = sniffed.path
        if path.suffix.lower() != ".jsonl" and not path.name.startswith("rollout-"):
            return False
        line = sniffed.object_line()
        if line is None:
            return False
        _, first, obj = line
        if obj is None:
            # A first line longer than the sniff (long instructions): judged by its opening.
            return bool(META_HEAD.match(first))
        if obj.get("type") == "session_meta":
            return isinstance(obj.get("payload"), dict)
        if not is_legacy_header(obj):
            return False
        if path.name.startswith("rollout-"):
            return True
        # A legacy header alone is too plain to be sure: a state record or a bare item must follow.
        for index, rec in enumerate(sniffed.json_lines(6)):
            if index == 0:
                continue
            if rec.get("record_type") == "state" or is_bare_item(rec):
                return True
        return False

    def detect_records(self, sniffed: Sniff) -> bool:
        """A rollout's body: most records ``{timestamp, type, payload}`` envelopes of types Codex writes."""
        records = list(sniffed.json_lines(6))
        shaped = sum(
            isinstance(rec.get("type"), str)
            and rec["type"] in ENVELOPE_TYPES
            and isinstance(rec.get("payload"), dict)
            and "timestamp" in rec
            for rec in records
        )
        return shaped >= 2 and 2 * shaped > len(records)

    def companions(self, path: Path) -> list[Path]:
        """The other rollouts of its family (its parent, its sub-agents and their snapshots)."""
        fam = family_of(path)
        return [p for p in fam.paths() if p != path] if fam.linked else []

    def session_key(self, sniffed: Sniff) -> str | None:
        """The session id the first line names (a sub-agent's: its family's root), so snapshots group."""
        fam = family_of(sniffed.path)
        return fam.root if fam.linked else head_of(sniffed.path).id

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        fam = family_of(path)
        if fam.linked:
            yield from read_family(fam, problems)
            return
        session = read_rollout(path, problems)
        if session is not None:
            yield session
