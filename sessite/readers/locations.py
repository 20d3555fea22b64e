"""Where coding agents keep their sessions on this machine (``sessite discover``).

Every path is derived from a home folder and the environment, both
overridable, so tests run against a fake home: ``find(home=tmp_path)`` or
``SESSITE_HOME=/tmp/fake sessite discover``. When the home is overridden the
real environment (``CODEX_HOME``, ``XDG_DATA_HOME``, ``APPDATA`` …) is ignored
unless an ``env`` mapping is passed too, so an override never reaches the
real folders.

Finding and reading never write anything: the readers open SQLite files
read-only and immutable, and nothing here creates a folder.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from sessite.model import Problems
from sessite.readers import discover, registry
from sessite.readers.base import Reader
from sessite.readers.platform import Platform, unique

HOME_ENV = "SESSITE_HOME"

# The agents ``sessite discover`` lists first; every other reader's agent follows, in registry order.
_LISTED_FIRST = ("claude-code", "codex", "copilot-cli", "gemini", "opencode", "cline", "amp", "cursor", "sage")


def _readers_by_agent() -> dict[str, Reader]:
    """Every reader that names its agent (``Reader.agent``), in the order ``sessite discover`` lists them."""
    named = {r.agent: r for r in registry() if r.agent}
    return {agent: named[agent] for agent in _LISTED_FIRST} | named


_READERS = _readers_by_agent()
# Every agent ``sessite discover`` knows, in the order it lists them.
AGENTS = tuple(_READERS)


@dataclass(frozen=True)
class Location:
    """One agent folder that exists: what to show, and what to give discovery."""

    agent: str
    folder: Path  # the agent's folder as shown to the user
    roots: tuple[Path, ...]  # what discovery walks: the folder, or the files in it that hold sessions
    overridden: bool = False  # named with --agent-dir


def platform(
    home: Path | str | None = None, env: Mapping[str, str] | None = None, system: str | None = None
) -> Platform:
    """The home folder, environment and system to look in (see the module doc)."""
    overridden = home is not None or bool(os.environ.get(HOME_ENV))
    if home is None:
        home = os.environ.get(HOME_ENV) or Path.home()
    if env is None:
        env = {} if overridden else dict(os.environ)
    if system is None:
        system = (
            "windows"
            if sys.platform.startswith(("win", "cygwin"))
            else "darwin"
            if sys.platform == "darwin"
            else "linux"
        )
    return Platform(Path(home).expanduser(), env, system)


def candidates(plat: Platform) -> list[tuple[str, Path]]:
    """Every default folder (or file) per agent, whether it exists or not (``Reader.default_folders``)."""
    return [(agent, p) for agent, reader in _READERS.items() for p in unique(reader.default_folders(plat))]


def roots_of(agent: str, folder: Path) -> tuple[Path, ...]:
    """What discovery should walk for an agent folder: only the parts that hold sessions
    (``Reader.discovery_roots``: OpenCode's data folder also holds logs and git snapshots, and
    Cursor's ``User`` folder every extension's storage)."""
    reader = _READERS.get(agent)
    return reader.discovery_roots(folder) if reader else (folder,)


def find(
    home: Path | str | None = None,
    overrides: Mapping[str, Iterable[Path | str]] | None = None,
    env: Mapping[str, str] | None = None,
    system: str | None = None,
) -> list[Location]:
    """The agent folders that exist, in AGENTS order; ``overrides`` replace an agent's defaults."""
    plat = platform(home, env, system)
    forced_dirs = {agent: [Path(p).expanduser() for p in paths] for agent, paths in (overrides or {}).items()}
    found: list[Location] = []
    seen: set[Path] = set()
    defaults = candidates(plat)
    for agent in AGENTS + tuple(a for a in forced_dirs if a not in AGENTS):
        if agent in forced_dirs:
            folders = [(p, True) for p in forced_dirs[agent]]
        else:
            folders = [(p, False) for a, p in defaults if a == agent]
        for folder, forced in folders:
            if not folder.exists():
                continue
            key = folder.resolve()
            if key in seen:
                continue
            seen.add(key)
            roots = roots_of(agent, folder)
            if roots:
                found.append(Location(agent, folder, roots, forced))
    return found


def parse_agent_dirs(values: Iterable[str]) -> dict[str, list[Path]]:
    """``["codex=/path", …]`` as ``{"codex": [Path("/path")]}``; raises ValueError on a bad item."""
    out: dict[str, list[Path]] = {}
    for value in values:
        agent, sep, folder = value.partition("=")
        agent = agent.strip().lower()
        if not sep or not agent or not folder.strip():
            raise ValueError(f"expected AGENT=FOLDER, got {value!r}")
        if agent not in AGENTS:
            raise ValueError(f"unknown agent {agent!r} (known: {', '.join(AGENTS)})")
        out.setdefault(agent, []).append(Path(folder.strip()).expanduser())
    return out


def display(path: Path, home: Path) -> str:
    """A path with the home folder shown as ``~``."""
    try:
        return str(Path("~") / path.relative_to(home))
    except ValueError:
        return str(path)


@dataclass
class Survey:
    """What one location holds, counted by reading it (no site is built)."""

    location: Location
    files: int = 0  # files the claimed sources consist of
    sessions: int = 0
    formats: tuple[str, ...] = ()
    problems: int = 0


def survey(location: Location, problems: Problems) -> Survey:
    """Discover and read one location, counting its files and sessions."""
    before = len(problems)
    found = discover(list(location.roots), problems)
    files = 0
    sessions = 0
    formats: dict[str, None] = {}
    for claim in found.claims:
        files += (1 if claim.path.is_file() else 0) + len(claim.companions)
        formats.setdefault(claim.reader.name, None)
        try:
            sessions += sum(1 for _ in claim.read(problems))
        except Exception as exc:  # noqa: BLE001 - a reader bug must not stop the survey
            problems.add(claim.path, None, f"{claim.reader.name} reader failed ({type(exc).__name__}: {exc})")
    return Survey(location, files, sessions, tuple(formats), len(problems) - before)
