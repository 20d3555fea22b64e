"""A repository's history as plain data, read with the ``git`` command (never written to).

One ``git log --all --numstat`` gives every commit with its files and line counts; the
output is parsed in one pass. The ``git`` command was chosen over pygit2 and dulwich, measured
on the 50,000-commit history of benchmarks/commits_bench.py (every commit with its files and line
counts, CPU seconds): ``git log --numstat`` 3.4 s, pygit2 1.21 (walk and ``diff.stats``) 12.9 s,
dulwich 1.2 121 s for the tree changes alone. It also needs no new dependency and reads every
repository layout git itself reads (worktrees, bare, alternates, packed refs).
"""

from __future__ import annotations

import bisect
import hashlib
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

GIT_TIMEOUT = 600  # seconds for one git command; a history that takes longer is reported, not waited on
_FORMAT = "%x00%H%x1f%P%x1f%an%x1f%ae%x1f%at%x1f%ct%x1f%B%x1e"


class GitError(Exception):
    """A repository git cannot read: the message is one line for the user."""


@dataclass(frozen=True, slots=True)
class FileStat:
    path: str
    added: int  # -1: binary
    deleted: int


@dataclass(slots=True)
class Commit:
    sha: str
    parents: tuple[str, ...]
    author: str
    email: str
    authored: int  # unix seconds
    committed: int
    message: str
    files: tuple[FileStat, ...] = ()

    @property
    def subject(self) -> str:
        return self.message.split("\n", 1)[0].strip()

    @property
    def added(self) -> int:
        return sum(f.added for f in self.files if f.added > 0)

    @property
    def deleted(self) -> int:
        return sum(f.deleted for f in self.files if f.deleted > 0)


@dataclass(slots=True)
class History:
    """Every commit reachable from any ref, newest first, with the facts a build needs about the repository."""

    path: str  # the repository as given
    name: str  # its folder name (without .git)
    tips: str  # digest of every ref and its target: the cache key
    shallow: bool
    commits: list[Commit] = field(default_factory=list)
    refs: dict[str, str] = field(default_factory=dict)  # ref name -> object id
    head: str = ""
    missing: str = ""  # why line counts are unknown (git could not read some file contents), else ""
    _by_sha: dict[str, Commit] = field(default_factory=dict)
    _sorted: list[str] = field(default_factory=list)

    def index(self) -> None:
        self._by_sha = {c.sha: c for c in self.commits}
        self._sorted = sorted(self._by_sha)

    def get(self, sha: str) -> Commit | None:
        """The commit a full or abbreviated (≥ 7 hex) sha names; None if unknown or ambiguous."""
        if not self._by_sha:
            self.index()
        if len(sha) == 40:
            return self._by_sha.get(sha)
        if len(sha) < 7:
            return None
        at = bisect.bisect_left(self._sorted, sha)
        found = self._sorted[at : at + 2]
        if not found or not found[0].startswith(sha) or (len(found) > 1 and found[1].startswith(sha)):
            return None
        return self._by_sha[found[0]]


def git(repo: str | Path, *args: str, stdin: bytes | None = None) -> bytes:
    """Run one read-only git command in ``repo``; GitError with git's first error line when it fails."""
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    env.pop("GIT_DIR", None)
    env.pop("GIT_WORK_TREE", None)
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), "-c", "core.quotePath=false", *args],
            input=stdin,
            capture_output=True,
            env=env,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except FileNotFoundError:
        raise GitError("the git command is not installed") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} took over {GIT_TIMEOUT} s") from None
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(lines[-1] if lines else f"git {args[0]} failed ({done.returncode})")
    return done.stdout


def read_refs(repo: str | Path) -> dict[str, str]:
    """Every ref (branches, tags, notes, hidden refs) and the object it points at."""
    out = git(repo, "for-each-ref", "--format=%(objectname) %(refname)").decode("utf-8", "replace")
    refs: dict[str, str] = {}
    for line in out.splitlines():
        sha, _, name = line.partition(" ")
        if name:
            refs[name] = sha
    return refs


def tips_digest(refs: dict[str, str], head: str) -> str:
    return hashlib.sha256(
        ("HEAD " + head + "\n" + "".join(f"{s} {n}\n" for n, s in sorted(refs.items()))).encode()
    ).hexdigest()


def head_of(repo: str | Path) -> str:
    try:
        return git(repo, "rev-parse", "--verify", "-q", "HEAD").decode().strip()
    except GitError:
        return ""  # an empty repository, or HEAD on an unborn branch


def open_repo(repo: str | Path) -> tuple[dict[str, str], str, bool]:
    """The refs, HEAD and whether the clone is shallow; GitError when ``repo`` is not a readable repository."""
    if not Path(repo).exists():
        raise GitError("no such folder")
    git(repo, "rev-parse", "--git-dir")
    shallow = git(repo, "rev-parse", "--is-shallow-repository").decode().strip() == "true"
    return read_refs(repo), head_of(repo), shallow


def git_dir(repo: str | Path) -> Path | None:
    """The folder where ``repo``'s refs change (shared by its linked work trees); None when it is not a repository."""
    try:
        out = git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").decode().strip()
    except GitError:
        return None
    return Path(out) if out else None


def repo_name(repo: str | Path) -> str:
    p = Path(repo).resolve()
    name = p.name.removesuffix(".git") or "repository"
    return name


def code_tips(refs: dict[str, str], head: str) -> list[str]:
    """The commits history starts from: branches, remote branches, tags and HEAD."""
    tips = [sha for name, sha in refs.items() if _code_ref(name)]
    return list(dict.fromkeys([*tips, head] if head else tips))


def readable_commits(repo: str | Path, tips: list[str]) -> list[str]:
    """The tips that are commits git can read (a tag of a tree, a ref to a missing object: left out)."""
    if not tips:
        return []
    raw = git(
        repo,
        "cat-file",
        "--batch-check=%(objectname) %(objecttype)",
        stdin="".join(f"{t}^{{commit}}\n" for t in tips).encode(),
    )
    return [line.split()[0] for line in raw.decode().splitlines() if line.endswith(" commit")]


def read_history(
    repo: str | Path, refs: dict[str, str], head: str, shallow: bool, old: History | None = None
) -> History:
    """Every commit on a branch, tag, remote or HEAD (not the notes and session stores: they are data, not code).

    With ``old`` (the history read at other ref tips), only the commits it lacks are read with
    their diffs; the ones no ref reaches any more (a force push, a deleted branch) are dropped.
    """
    history = History(str(repo), repo_name(repo), tips_digest(refs, head), shallow, refs=refs)
    starts = readable_commits(repo, code_tips(refs, head))
    if not starts:
        return history
    since = readable_commits(repo, code_tips(old.refs, old.head)) if old is not None else []
    stdin = "\n".join([*starts, *("^" + sha for sha in since)]).encode()
    raw = b""
    for detail in ("--numstat", "--raw", "--no-patch"):
        # Some objects missing (a partial clone, a damaged pack): without file contents the files
        # each commit touched are still in its trees; without trees, the commits alone.
        try:
            raw = git(repo, "log", "--no-renames", detail, f"--format={_FORMAT}", "--stdin", stdin=stdin)
            break
        except GitError as exc:
            if detail == "--no-patch":
                raise
            history.missing = history.missing or str(exc)
    history.commits = parse_log(raw)
    if old is not None:
        reachable = set(git(repo, "rev-list", "--stdin", stdin="\n".join(starts).encode()).decode().split())
        known = {c.sha for c in history.commits}
        history.commits.extend(c for c in old.commits if c.sha in reachable and c.sha not in known)
        history.commits.sort(key=lambda c: (c.committed, c.authored), reverse=True)
    history.head = head
    history.index()
    return history


def _code_ref(name: str) -> bool:
    """Branches, remote branches and tags hold code; notes, stash and tools' session stores do not."""
    if name.startswith(("refs/heads/entire/", "refs/remotes/origin/entire/")):
        return False
    return name.startswith(("refs/heads/", "refs/remotes/", "refs/tags/"))


def parse_log(raw: bytes) -> list[Commit]:
    """``git log --format=_FORMAT --numstat`` output, one commit per NUL-led record."""
    commits: list[Commit] = []
    text = raw.decode("utf-8", "surrogateescape")
    for record in text.split("\x00")[1:]:
        head, _, stats = record.partition("\x1e")
        parts = head.split("\x1f")
        if len(parts) < 7:
            continue
        sha, parents, author, email, authored, committed, message = parts[:7]
        files: list[FileStat] = []
        for line in stats.splitlines():
            if not line:
                continue
            if line.startswith(":"):  # --raw: the path, no line counts
                _, _, path = line.partition("\t")
                if path:
                    files.append(FileStat(path, 0, 0))
                continue
            a, _, rest = line.partition("\t")
            d, _, path = rest.partition("\t")
            if not path:
                continue
            files.append(FileStat(path, int(a) if a.isdigit() else -1, int(d) if d.isdigit() else -1))
        commits.append(
            Commit(
                sha,
                tuple(parents.split()),
                author,
                email,
                int(authored or 0),
                int(committed or 0),
                message.strip("\n"),
                tuple(files),
            )
        )
    return commits


def added_lines(repo: str | Path, shas: list[str]) -> dict[str, dict[str, list[str]]]:
    """The lines each commit adds, by file (``-U0`` diffs against the first parent), read in one git call."""
    if not shas:
        return {}
    raw = git(
        repo,
        "log",
        "--no-walk=unsorted",
        "--no-renames",
        "--first-parent",
        "-m",
        "-p",
        "-U0",
        "--format=%x00%H",
        "--stdin",
        stdin="\n".join(shas).encode(),
    )
    out: dict[str, dict[str, list[str]]] = {}
    for record in raw.decode("utf-8", "surrogateescape").split("\x00")[1:]:
        sha, _, diff = record.partition("\n")
        files = out.setdefault(sha.strip(), {})
        current: list[str] | None = None
        for line in diff.split("\n"):
            if line.startswith("+++ "):
                target = line[4:]
                current = files.setdefault(target[2:] if target.startswith("b/") else target, [])
            elif line.startswith("+") and current is not None:
                current.append(line[1:])
            elif line.startswith("diff --git"):
                current = None
    return out
