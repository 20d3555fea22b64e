"""A working directory's repository, learnt across sessions.

A session that names no git remote has its refs scoped by its working directory (an
unknown repository: a directory is not a repository). When other sessions that ran in
that same directory did name its remote, the directory is that repository, and the refs
of all of them are one. Only the same directory counts, never one above it: a home
folder under git (dotfiles) must not swallow every project below it.
"""

from __future__ import annotations

from collections import Counter

from sessite.analyze.refs.keys import Repo


def workdir(path: str | None) -> str:
    """A working directory as sessions are compared by it: without trailing separators."""
    return (path or "").rstrip("/\\")


class WorkdirRepos:
    """Which known repositories the sessions of each working directory worked in."""

    def __init__(self) -> None:
        self.votes: dict[str, Counter[Repo]] = {}

    def add(self, cwd: str | None, repo: Repo) -> None:
        """A session in ``cwd`` whose repository is ``repo`` (an unknown one says nothing)."""
        key = workdir(cwd)
        if key and repo.known:
            self.votes.setdefault(key, Counter())[repo] += 1

    def repo_of(self, cwd: str | None) -> Repo | None:
        """The repository of a working directory: the one most of its sessions named,
        None when none did or two tie (a fork and its upstream: no guess)."""
        votes = self.votes.get(workdir(cwd))
        if not votes:
            return None
        (best, n), *rest = votes.most_common(2)
        return None if rest and rest[0][1] == n else best

    def resolve(self, repos: set[Repo]) -> dict[Repo, Repo]:
        """Each unknown repository (a working directory) that is a known one, mapped to it."""
        moves = {}
        for repo in repos:
            if not repo.known and repo.path:
                target = self.repo_of(repo.path)
                if target is not None:
                    moves[repo] = target
        return moves
