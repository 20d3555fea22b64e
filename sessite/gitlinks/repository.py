"""One repository, read once per change of its refs: history, git-ai notes and Entire checkpoints.

The parsed history is cached beside the build cache, keyed by the digest of every ref tip: a
build whose repositories did not move reads only ``git for-each-ref``. A folder that is not a
repository, or one git cannot read, is one problem line; a shallow clone is read, with a line
saying links to the missing history cannot be made.
"""

from __future__ import annotations

import hashlib
import pickle
from dataclasses import dataclass, field
from pathlib import Path

from sessite.gitlinks.history import GitError, History, added_lines, open_repo, read_history
from sessite.gitlinks.stores import (
    GitAiNote,
    StoredSession,
    TraceEdit,
    agent_traces,
    checkpoint_sessions,
    gitai_notes,
)

CACHE_VERSION = 4


@dataclass
class Repository:
    history: History
    notes: dict[str, GitAiNote] = field(default_factory=dict)
    traces: list[TraceEdit] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def checkpoints(self, ids: list[str]) -> dict[str, list[StoredSession]]:
        return checkpoint_sessions(self.history.path, self.history.refs, ids) if ids else {}

    def added_lines(self, shas: list[str]) -> dict[str, dict[str, list[str]]]:
        try:
            return added_lines(self.history.path, shas)
        except GitError as exc:
            self.problems.append(f"could not read the diffs: {exc}")
            return {}


def repo_state(path: Path) -> str:
    """What the repository's refs are now (the cache key), or the error reading them."""
    try:
        return _state(*open_repo(path))
    except GitError as exc:
        return f"error {exc}"


def _state(refs: dict[str, str], head: str, shallow: bool) -> str:
    return hashlib.sha256(repr((CACHE_VERSION, sorted(refs.items()), head, shallow)).encode()).hexdigest()


def _cache_file(cache_dir: Path | None, path: Path) -> Path | None:
    if cache_dir is None:
        return None
    key = hashlib.sha256(str(path.resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return cache_dir / "gitlinks" / f"{key}.pickle"


def load_repository(path: Path, cache_dir: Path | None) -> Repository | str:
    """The repository read (from the cache when its refs did not move), or the one-line reason it could not be."""
    try:
        refs, head, shallow = open_repo(path)
    except GitError as exc:
        return f"not a readable git repository ({exc})"
    cache = _cache_file(cache_dir, path)
    state = _state(refs, head, shallow)
    old: History | None = None
    if cache is not None:
        try:
            with cache.open("rb") as fh:
                version, old_state, repo = pickle.load(fh)
            if version == CACHE_VERSION and isinstance(repo, Repository):
                if old_state == state:
                    repo.problems = _notes_on(repo.history)
                    return repo
                if not (shallow or repo.history.shallow):
                    old = repo.history  # read only the commits it lacks
        except (OSError, pickle.PickleError, EOFError, ValueError, TypeError, AttributeError):
            pass  # no cache, or a damaged one: read the repository again
    try:
        history = read_history(path, refs, head, shallow, old)
        repo = Repository(history, gitai_notes(path, refs), agent_traces(path))
    except GitError as exc:
        return f"could not read the history ({exc})"
    if cache is not None:
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_suffix(".tmp")
            with tmp.open("wb") as fh:
                pickle.dump((CACHE_VERSION, state, repo), fh, protocol=pickle.HIGHEST_PROTOCOL)
            tmp.replace(cache)
        except OSError:
            pass  # the next build reads the repository again
    repo.problems = _notes_on(history)
    return repo


def _notes_on(history: History) -> list[str]:
    notes = []
    if history.shallow:
        notes.append("a shallow clone: commits before its oldest are missing, and cannot be linked")
    if history.missing:
        notes.append(f"some file contents are missing ({history.missing}): line counts are left out")
    return notes
