"""Sessions kept inside a repository, copied out of git objects (never a checkout, never a write to
the repository) into a folder the build reads like any archive: ``sessite build --repo .``.

- Entire checkpoints, in every persistent layout (``stores.ENTIRE_TREES``, one ref per checkpoint,
  ``refs/entire/checkpoints/<shard>/<id>``, and v2's ``full/current``): each ``N/full.jsonl`` or
  ``N/raw_transcript`` with its ``N/metadata.json`` (for v2's raw transcripts, the one on
  ``v2/main``). A transcript grows across checkpoints (the later one holds the earlier as a
  prefix), so per session id only the longest is kept.
- opensession: ``refs/opensession/branches/*`` trees, ``v1/<xx>/<session-id>.hail.jsonl``.
- git-ai: transcripts embedded in the notes on ``refs/notes/ai`` (before git-ai 1.3.4), written
  as HAIL (``gitai_transcripts``).

A file is rewritten only when its bytes change, so an incremental build reads only what moved.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
from collections.abc import Iterable
from pathlib import Path

from sessite.gitlinks.gitai_transcripts import transcript_files
from sessite.gitlinks.history import GitError, git, open_repo
from sessite.gitlinks.stores import ENTIRE_TREES, cat_files

_ENTIRE_FILE = re.compile(r"(?:^|/)(\d+)/(full\.jsonl|raw_transcript)$")
_HAIL_FILE = re.compile(r"^v1/[^/]+/([^/]+)\.hail\.jsonl$")
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _ls(repo: Path, ref: str) -> list[tuple[str, int]]:
    """(path, size) of every file of ``ref``'s tree."""
    raw = git(repo, "ls-tree", "-r", "-l", "-z", ref)
    out = []
    for entry in raw.split(b"\0"):
        if not entry:
            continue
        meta, _, path = entry.partition(b"\t")
        parts = meta.split()
        if len(parts) == 4 and parts[1] == b"blob" and parts[3].isdigit():
            out.append((path.decode("utf-8", "surrogateescape"), int(parts[3])))
    return out


V2_FULL = "refs/entire/checkpoints/v2/full/current"  # raw transcripts; their metadata.json is on v2/main
V2_MAIN = "refs/entire/checkpoints/v2/main"


def _entire(repo: Path, refs: dict[str, str]) -> dict[str, tuple[str, int]]:
    """session id -> (object spec of its longest transcript, size)."""
    places = [r for r in ENTIRE_TREES if r in refs]
    places += [r for r in refs if re.fullmatch(r"refs/entire/checkpoints/[0-9A-Za-z]{2}/[0-9A-Za-z]+", r)]
    if V2_FULL in refs:
        places.append(V2_FULL)
    candidates: list[tuple[str, str, int, str]] = []  # (ref, path, size, where its metadata.json is)
    for ref in places:
        for path, size in _ls(repo, ref):
            if _ENTIRE_FILE.search(path):
                folder = path.rsplit("/", 1)[0]
                meta_ref = V2_MAIN if ref == V2_FULL else ref
                candidates.append((ref, path, size, f"{meta_ref}:{folder}/metadata.json"))
    metas = cat_files(repo, [meta for *_, meta in candidates])
    best: dict[str, tuple[str, int]] = {}
    for ref, path, size, spec_meta in candidates:
        try:
            meta = json.loads(metas.get(spec_meta) or b"null")
        except ValueError:
            meta = None
        sid = meta.get("session_id") if isinstance(meta, dict) else None
        if not isinstance(sid, str) or not sid:
            continue
        if sid not in best or size > best[sid][1] or (size == best[sid][1] and path.endswith("full.jsonl")):
            best[sid] = (f"{ref}:{path}", size)
    return best


def _opensession(repo: Path, refs: dict[str, str]) -> dict[str, tuple[str, int]]:
    best: dict[str, tuple[str, int]] = {}
    for ref in refs:
        if not ref.startswith("refs/opensession/branches/"):
            continue
        for path, size in _ls(repo, ref):
            m = _HAIL_FILE.match(path)
            if m and (m.group(1) not in best or size > best[m.group(1)][1]):
                best[m.group(1)] = (f"{ref}:{path}", size)
    return best


def _file_name(sid: str) -> str:
    return _SAFE.sub("-", sid).strip("-.") or hashlib.sha1(sid.encode()).hexdigest()[:12]


def export_stored(repo: Path, refs: dict[str, str], dest: Path) -> tuple[int, list[str]]:
    """Copy the repository's stored sessions into ``dest`` (one file each); (count, problem lines)."""
    problems: list[str] = []
    wanted: dict[str, str] = {}  # file name in dest -> object spec
    try:
        dest.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return 0, [f"could not make a folder for the stored sessions ({exc.strerror or exc})"]
    try:
        for sid, (spec, _) in _entire(repo, refs).items():
            wanted[f"entire/{_file_name(sid)}.jsonl"] = spec
        for sid, (spec, _) in _opensession(repo, refs).items():
            wanted[f"opensession/{_file_name(sid)}.hail.jsonl"] = spec
        blobs = cat_files(repo, list(wanted.values()))
        files = {name: blobs.get(spec) for name, spec in wanted.items()}
        transcripts, unreadable = transcript_files(repo, refs)
        problems.extend(unreadable)
        for sid, hail in transcripts.items():
            files[f"{GITAI_FOLDER}/{_file_name(sid)}.hail.jsonl"] = hail
    except GitError as exc:
        return 0, [f"could not read the sessions stored in the repository ({exc})"]
    kept: set[Path] = set()
    for name, data in files.items():
        if data is None:
            continue
        target = dest / name
        kept.add(target)
        try:
            if target.is_file() and target.read_bytes() == data:
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(target.name + ".tmp")
            tmp.write_bytes(data)
            tmp.replace(target)
        except OSError as exc:
            problems.append(f"could not copy a stored session out ({exc.strerror or exc})")
    for old in dest.rglob("*") if dest.is_dir() else ():
        if old.is_file() and old not in kept:
            old.unlink(missing_ok=True)  # a session no longer stored
    return len(kept), problems


def stored_dir(output: Path, repo: Path) -> Path:
    """Where a build into ``output`` keeps the sessions copied out of ``repo``: the user's cache
    folder (never the repository, the archive or the site)."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    key = f"{output.resolve()}\0{repo.resolve()}".encode("utf-8", "surrogateescape")
    return base / "sessite" / "repo-sessions" / hashlib.sha1(key).hexdigest()[:16]


GITAI_FOLDER = "git-ai"  # beside entire/ and opensession/ in a stored-sessions folder


def copies_read_elsewhere(files: Iterable[Path], stored: Iterable[Path]) -> set[Path]:
    """The git-ai transcripts (under the ``stored`` folders) of sessions whose id another file's
    name holds: the agent's own log (Claude Code's ``<id>.jsonl``, Codex's ``rollout-…-<id>.jsonl``)
    is the fuller copy, and one session must not be shown (and counted) twice."""
    folders = [folder.resolve() / GITAI_FOLDER for folder in stored]
    copies: dict[str, Path] = {}
    others: list[str] = []
    for path in files:
        folder = path.resolve().parent
        if folder in folders and path.name.endswith(".hail.jsonl"):
            copies[path.name.removesuffix(".hail.jsonl")] = path
        else:
            others.append(path.name)
    return {path for sid, path in copies.items() if len(sid) >= 16 and any(sid in name for name in others)}


def forget_stored(output: Path, repo: Path) -> None:
    """Remove what a build into ``output`` copied out of ``repo`` (a preview's temporary site is gone)."""
    dest = stored_dir(output, repo)
    shutil.rmtree(dest, ignore_errors=True)
    (dest.parent / (dest.name + ".refs")).unlink(missing_ok=True)


def export_repo(repo: Path, dest: Path) -> tuple[int, list[str]]:
    """``export_stored`` for a repository path; a folder git cannot read is left to the commit pages to report."""
    try:
        refs, _, _ = open_repo(repo)
    except GitError:
        return 0, []
    stamp = dest.parent / (dest.name + ".refs")  # the stored-session refs last copied out: unchanged, no reading
    state = hashlib.sha256(repr(sorted((n, v) for n, v in refs.items() if _stores_sessions(n))).encode()).hexdigest()
    try:
        if stamp.read_text() == state and dest.is_dir():
            return sum(1 for p in dest.rglob("*") if p.is_file()), []
    except OSError:
        pass
    count, problems = export_stored(repo, refs, dest)
    if not problems:
        with contextlib.suppress(OSError):  # without the stamp the next build copies again
            stamp.write_text(state)
    return count, problems


def _stores_sessions(ref: str) -> bool:
    return ref == "refs/notes/ai" or ref.startswith(
        ("refs/entire/", "refs/heads/entire/", "refs/remotes/origin/entire/", "refs/opensession/")
    )
