"""Repositories and Claude Code sessions built for the commit-link tests (tests/gitlinks/).

``shop`` holds: an agent's own commit (its printed sha kept), an agent's commit whose printed
sha an amend rewrote (as Entire 0.7.7 does), a human's commit of another session's edits, a
human commit whose subject matches one made in the sibling ``shop-admin`` repository, a bot's
commit of lines a session also wrote, a commit with Entire trailers (both id forms, both
storage layouts) and one with a git-ai note.
"""

from __future__ import annotations

import json
import os
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

from timeline_archive import Transcript

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
CWD = "/home/dev/shop"
SID = {
    k: f"{n}0000000-0000-4000-8000-00000000000{n}"
    for n, k in enumerate(["own", "amended", "human", "sibling", "bot", "entire", "gitai"], 1)
}
APP = ["def serve(port):", "    server = make_server(port)", "    server.serve_forever()", "    return server"]
PARSER = ["def parse(text):", "    fields = text.split(',')", "    return [f.strip() for f in fields]"]
UTIL = [
    "def slugify(title):",
    "    words = title.lower().split()",
    "    return '-'.join(words)",
    "# end of slugify helpers",
]
REQS = ["requests==2.32.0", "jinja2==3.1.4", "mistune==3.0.2"]


def git(repo: Path, *args: str, when: datetime | None = None, author: str = "Dev Person <dev@example.com>") -> str:
    name, mail = author[:-1].split(" <")
    env = {**os.environ, "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": mail, "GIT_COMMITTER_NAME": name}
    env["GIT_COMMITTER_EMAIL"] = mail
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = when.strftime("%Y-%m-%dT%H:%M:%S+0000")
    done = subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def commit(repo: Path, files: dict[str, list[str]], message: str, when: datetime, **kw: str) -> str:
    for path, lines in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text("\n".join(lines) + "\n")
        git(repo, "add", path)
    git(repo, "commit", "-q", "-m", message, when=when, **kw)
    return git(repo, "rev-parse", "HEAD")


def _committing(t: Transcript, key: str, subject: str, sha: str, branch: str = "main") -> None:
    t.call(key, f"toolu_{key}", "Bash", {"command": f'git commit -am "{subject}"'})
    t.result(f"toolu_{key}", f"[{branch} {sha[:7]}] {subject}\n 1 file changed, 4 insertions(+)")


def _write(t: Transcript, key: str, path: str, lines: list[str]) -> None:
    t.call(key, f"toolu_{key}", "Write", {"file_path": f"{t.cwd}/{path}", "content": "\n".join(lines) + "\n"})
    t.result(f"toolu_{key}", f"File created successfully at: {t.cwd}/{path}")


def build(tmp: Path) -> dict[str, object]:
    """The repositories under ``tmp``, the archive at ``tmp/archive``; returns the shas by name."""
    repo, sibling, archive = tmp / "shop", tmp / "shop-admin", tmp / "archive"
    for r in (repo, sibling):
        r.mkdir()
        git(r, "init", "-q", "-b", "main")
    shas: dict[str, object] = {"root": commit(repo, {"README.md": ["# Shop"]}, "Start the shop", T0)}
    sessions: list[Transcript] = []

    # 1. the agent's own commit, printed as it is in history
    t = Transcript(SID["own"], T0 + timedelta(minutes=10))
    t.user("Add a server")
    _write(t, "w1", "src/app.py", APP)
    shas["own"] = commit(repo, {"src/app.py": APP}, "Add the server", t.clock)
    _committing(t, "c1", "Add the server", str(shas["own"]))
    sessions.append(t)

    # 2. printed, then amended a few seconds later (Entire's trailer): the printed sha is gone
    t = Transcript(SID["amended"], T0 + timedelta(minutes=30))
    t.user("Add a parser")
    _write(t, "w2", "src/parser.py", PARSER)
    when = t.clock
    printed = commit(repo, {"src/parser.py": PARSER}, "Add the parser", when)
    _committing(t, "c2", "Add the parser", printed)
    git(
        repo,
        "commit",
        "-q",
        "--amend",
        "-m",
        "Add the parser\n\nEntire-Checkpoint: 0123456789ab",
        when=when + timedelta(seconds=5),
    )
    shas["amended"], shas["amended_printed"] = git(repo, "rev-parse", "HEAD"), printed
    sessions.append(t)

    # 3. the session edits, a human commits (one line of their own added)
    t = Transcript(SID["human"], T0 + timedelta(hours=1))
    t.user("Write a slugify helper")
    _write(t, "w3", "src/util.py", UTIL)
    sessions.append(t)
    shas["human"] = commit(
        repo, {"src/util.py": [*UTIL, "SLUG_SEPARATOR = '-'"]}, "Slug helper", T0 + timedelta(hours=2)
    )

    # 4. a commit in the sibling repository, and one with the same subject here
    t = Transcript(SID["sibling"], T0 + timedelta(hours=3), cwd="/home/dev/shop-admin")
    t.user("Fix the typo")
    _write(t, "w4", "docs/admin.md", ["Administer the shop from here"])
    when = t.clock
    shas["sibling"] = commit(sibling, {"docs/admin.md": ["Administer the shop from here"]}, "Fix typo", when)
    _committing(t, "c4", "Fix typo", str(shas["sibling"]))
    shas["lookalike"] = commit(repo, {"docs/guide.md": ["Guide to the shop for everyone"]}, "Fix typo", when)
    sessions.append(t)

    # 5. a session writes requirements, a bot commits the same lines
    t = Transcript(SID["bot"], T0 + timedelta(hours=4))
    t.user("Pin the requirements")
    _write(t, "w5", "requirements.txt", REQS)
    sessions.append(t)
    bot = "dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>"
    shas["bot"] = commit(repo, {"requirements.txt": REQS}, "Bump requests", T0 + timedelta(hours=5), author=bot)

    # 6. Entire: a 12-hex checkpoint on the v1 branch and a ULID checkpoint on its own ref
    t = Transcript(SID["entire"], T0 + timedelta(hours=6))
    t.user("Add the docs page")
    t.assistant("x6", [{"type": "text", "text": "Done."}])
    sessions.append(t)
    msg = (
        "Add the docs page\n\nCo-Authored-By: Claude Opus 5 <noreply@anthropic.com>\n"
        "Entire-Checkpoint: a71156299398\nEntire-Checkpoint: 01M0CMD2M3YA1TN5W4K5W3TG8E"
    )
    shas["entire"] = commit(repo, {"docs/index.md": ["Welcome to the docs of the shop"]}, msg, T0 + timedelta(hours=7))
    _checkpoint_branch(repo, "a71156299398", SID["entire"])
    _checkpoint_ref(repo, "01M0CMD2M3YA1TN5W4K5W3TG8E", "not-in-archive-session")

    # 7. git-ai: a note naming a session by its id, 3 agent lines
    t = Transcript(SID["gitai"], T0 + timedelta(hours=8))
    t.user("Add the config loader")
    t.assistant("x7", [{"type": "text", "text": "Done."}])
    sessions.append(t)
    shas["gitai"] = commit(
        repo, {"src/config.py": ["A = 1", "B = 2", "C = 3", "D = 4"]}, "Config loader", T0 + timedelta(hours=9)
    )
    note = "src/config.py\n  s_c9883b05a2487d::t_9f8e7d6c5b4a32 1-3\n---\n" + json.dumps(
        {
            "schema_version": "authorship/3.0.0",
            "sessions": {
                "s_c9883b05a2487d": {"agent_id": {"tool": "claude", "id": SID["gitai"], "model": "claude-opus-5"}}
            },
        }
    )
    git(repo, "notes", "--ref=refs/notes/ai", "add", "-m", note, str(shas["gitai"]))

    for t in sessions:
        t.write(archive / "-home-dev-shop" / f"{t.sid}.jsonl")
    shas["repo"], shas["sibling_repo"], shas["archive"] = repo, sibling, archive
    return shas


def _tree_commit(repo: Path, files: dict[str, str], ref: str) -> None:
    """A commit holding ``files`` (path -> text) made from git objects, never touching the work tree."""
    index = repo / ".git" / "tmp-index"
    env = {**os.environ, "GIT_INDEX_FILE": str(index)}
    for path, text in files.items():
        blob = subprocess.run(
            ["git", "-C", str(repo), "hash-object", "-w", "--stdin"],
            input=text,
            text=True,
            capture_output=True,
            check=True,
        ).stdout.strip()
        subprocess.run(
            ["git", "-C", str(repo), "update-index", "--add", "--cacheinfo", f"100644,{blob},{path}"],
            env=env,
            check=True,
        )
    tree = subprocess.run(
        ["git", "-C", str(repo), "write-tree"], env=env, capture_output=True, text=True, check=True
    ).stdout.strip()
    index.unlink()
    sha = git(repo, "commit-tree", tree, "-m", "Checkpoint")
    git(repo, "update-ref", ref, sha)


def _checkpoint_branch(repo: Path, cid: str, session: str) -> None:
    meta = json.dumps({"checkpoint_id": cid, "session_id": session, "agent": "Claude Code", "model": "claude-opus-5"})
    _tree_commit(
        repo,
        {f"{cid[:2]}/{cid[2:]}/0/metadata.json": meta, f"{cid[:2]}/{cid[2:]}/metadata.json": "{}"},
        "refs/heads/entire/checkpoints/v1",
    )


def _checkpoint_ref(repo: Path, cid: str, session: str) -> None:
    meta = json.dumps({"checkpoint_id": cid, "session_id": session, "agent": "Codex", "model": "gpt-6"})
    _tree_commit(repo, {"0/metadata.json": meta}, f"refs/entire/checkpoints/{cid[-2:]}/{cid}")
