"""Which folders an archive walk enters: the agents' hidden folders, never a repository's or a tool's.

People keep their sessions as home-folder and dotfile backups, so the folders a reader knows
(``.claude/projects``, ``.codex/sessions``, ``.local/share/opencode`` …) must be walked. The list is
not written down here: it is each reader's own ``default_folders``, asked for a fake home on every
system, taken relative to that home. One ``FolderPolicy`` per discovery says, for each folder, whether
to enter it, and keeps what it skipped and why, for the message of an archive where nothing was found.

The rules, for a folder at ``parts`` below the walk's root:

- ``.git`` and the other version-control folders, ``node_modules``, ``__pycache__``, a virtualenv
  (a folder holding ``pyvenv.cfg``) and sessite's own cache are never entered;
- a hidden folder is entered when it is one a format lives under (``Reader.dot_names``: a project's
  committed ``.cursor/``, entered whole), or when it is on the way to, or inside, a reader's default
  folder (``.claude``, ``.claude/projects``, ``.local``, ``.local/share``, ``.local/share/opencode``);
- below such a hidden folder, only the way to a default folder is walked (``.local/share/Trash`` is
  not), and every other hidden folder is skipped;
- ``.sessite-kept/<time>/`` (earlier copies ``sessite collect`` kept) is entered, and what is below
  it judged as if it stood at the archive's root (``readers.kept``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path, PurePosixPath

from sessite.readers.base import Reader
from sessite.readers.kept import logical_parts
from sessite.readers.platform import Platform

# Folders never entered, with the reason shown when an archive holds nothing else.
NEVER = {
    ".git": "version control",
    ".hg": "version control",
    ".svn": "version control",
    "node_modules": "dependencies",
    "__pycache__": "cache",
    ".sessite-cache": "cache",
}
_FAKE_HOME = PurePosixPath("/home")


def agent_paths(readers: Iterable[Reader]) -> frozenset[tuple[str, ...]]:
    """Every reader's default folders below a home, on Linux, macOS and Windows, as path parts."""
    out: set[tuple[str, ...]] = set()
    for reader in readers:
        for system in ("linux", "darwin", "windows"):
            try:
                folders = reader.default_folders(Platform(Path(_FAKE_HOME), {}, system))
            except Exception:  # noqa: BLE001, S112 - a plugin's bug must not stop discovery
                continue
            for folder in folders:
                try:
                    out.add(PurePosixPath(Path(folder).as_posix()).relative_to(_FAKE_HOME).parts)
                except ValueError:
                    continue
    return frozenset(parts for parts in out if parts)


@lru_cache(maxsize=4)
def _cached_paths(readers: tuple[Reader, ...]) -> frozenset[tuple[str, ...]]:
    return agent_paths(readers)


def _hidden(name: str) -> bool:
    return name.startswith(".")


class FolderPolicy:
    """One walk's decisions: which folders to enter, and what was skipped (name -> reason, count)."""

    def __init__(self, readers: Sequence[Reader]) -> None:
        self.dot_names = frozenset(name for r in readers for name in r.dot_names)
        self.paths = _cached_paths(tuple(readers))
        self.skipped: Counter[tuple[str, str]] = Counter()  # (name, reason) -> folders

    def _agent_path(self, tail: tuple[str, ...]) -> bool:
        """``tail`` (from a hidden folder down) is on the way to, or inside, a reader's default folder."""
        n = len(tail)
        return any(p[:n] == tail or tail[: len(p)] == p for p in self.paths)

    def enters(self, folder: Path, parts: tuple[str, ...]) -> bool:
        """Whether the walk enters ``folder``, whose path below the root is ``parts``."""
        name = parts[-1]
        parts = logical_parts(parts)  # an earlier copy kept by ``sessite collect``: judged where it was
        if not parts:
            return True
        if name in NEVER:
            self.skipped[(name, NEVER[name])] += 1
            return False
        if (folder / "pyvenv.cfg").is_file():
            self.skipped[(name, "virtualenv")] += 1
            return False
        if name in self.dot_names or any(p in self.dot_names for p in parts[:-1]):
            return True
        starts = [i for i, p in enumerate(parts) if _hidden(p)]
        if not starts:
            return True
        if any(self._agent_path(parts[i:]) for i in starts):
            return True
        self.skipped[("/".join(parts), "hidden")] += 1
        return False

    def offers_file(self, parts: tuple[str, ...]) -> bool:
        """Whether a file at ``parts`` is offered to the readers: not one beside the way to an agent's
        folder (``.claude/settings.json``), only those in it (or in no hidden folder at all)."""
        parts = logical_parts(parts)
        if any(p in self.dot_names for p in parts[:-1]):
            return True
        starts = [i for i, p in enumerate(parts[:-1]) if _hidden(p)]
        return not starts or any(
            any(parts[i : i + len(p)] == p for p in self.paths if len(p) <= len(parts) - i) for i in starts
        )

    def agent_folder(self, parts: tuple[str, ...]) -> bool:
        """``parts`` is a reader's default folder or on the way to one (a symlinked one is followed)."""
        parts = logical_parts(parts)
        return any(self._agent_path(parts[i:]) for i in range(len(parts)))

    def summary(self, shown: int = 4) -> str:
        """``.git (version control), node_modules (dependencies), 3 other hidden folders``."""
        named = sorted({(name.rsplit("/", 1)[-1], reason) for (name, reason) in self.skipped if reason != "hidden"})
        hidden = sorted(name for (name, reason) in self.skipped if reason == "hidden")
        items = [f"{name} ({reason})" for name, reason in named]
        items += hidden[:shown]
        if len(hidden) > shown:
            items.append(f"{len(hidden) - shown} other hidden folders")
        return ", ".join(items)
