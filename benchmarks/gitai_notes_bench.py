#!/usr/bin/env python3
"""What reading the transcripts embedded in git-ai notes costs: a synthetic repository of N commits
(``git fast-import``), each with a pre-1.3.4 git-ai note on ``refs/notes/ai`` whose prompt record
embeds its session's transcript so far (a session spans 25 commits, 4 messages more per commit, so
the longest has 100), copied out as the build does before reading the archive:

    python benchmarks/gitai_notes_bench.py [--commits 5000]

Prints the seconds of the first copy (every note read, every longest transcript written as HAIL),
of a second one with the refs unchanged (one ``git for-each-ref``), the sessions and bytes written,
and a JSON line.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from sessite.gitlinks.stored_sessions import export_repo  # noqa: E402

T0 = 1_700_000_000
PER_SESSION = 25


def _message(n: int, k: int) -> dict[str, object]:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(T0 + n * 60 + k))
    if k % 4 == 2:
        return {"type": "tool_use", "name": "Edit", "input": {"file_path": f"src/m{n}.py", "new_string": f"x = {n}"}}
    kind = "user" if k % 4 == 0 else "assistant"
    return {"type": kind, "text": f"Message {k} about change {n}: " + "words " * 20, "timestamp": stamp}


def make_repo(repo: Path, commits: int) -> None:
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    out: list[bytes] = []
    who = "Dev <dev@example.com>"
    for n in range(commits):
        blob = f"value_{n} = {n}\n".encode()
        msg = f"Change {n}\n".encode()
        out.append(b"commit refs/heads/main\nmark :%d\n" % (n + 1))
        out.append(f"author {who} {T0 + n * 60} +0000\ncommitter {who} {T0 + n * 60} +0000\n".encode())
        out.append(b"data %d\n%s\n" % (len(msg), msg))
        out.append(b"M 644 inline src/m%d.py\ndata %d\n%s\n" % (n % 500, len(blob), blob))
    for n in range(commits):
        sid = f"{n // PER_SESSION:08d}-0000-4000-8000-000000000000"
        messages = [_message(n, k) for k in range(4 * (n % PER_SESSION + 1))]
        record = {"agent_id": {"tool": "claude", "id": sid, "model": "claude-sonnet-4"}, "messages": messages}
        meta = {"schema_version": "authorship/3.0.0", "prompts": {"abcd1234abcd1234": record}}
        note = f"src/m{n % 500}.py\n  abcd1234abcd1234 1\n---\n{json.dumps(meta)}".encode()
        out.append(b"commit refs/notes/ai\n")
        out.append(f"committer {who} {T0 + n * 60} +0000\n".encode())
        out.append(b"data 5\nnotes\n")
        out.append(b"N inline :%d\ndata %d\n%s\n" % (n + 1, len(note), note))
    subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet"], input=b"".join(out), check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo, dest = Path(tmp) / "repo", Path(tmp) / "stored"
        make_repo(repo, args.commits)
        t = time.perf_counter()
        count, problems = export_repo(repo, dest)
        cold = time.perf_counter() - t
        t = time.perf_counter()
        again, _ = export_repo(repo, dest)
        warm = time.perf_counter() - t
        size = sum(p.stat().st_size for p in dest.rglob("*") if p.is_file())
        print(
            f"{args.commits} notes: {count} sessions, {size / 1e6:.1f} MB, first copy {cold:.2f} s, "
            f"unchanged {warm:.2f} s"
        )
        print(json.dumps({"commits": args.commits, "sessions": count, "bytes": size, "cold_s": cold, "warm_s": warm}))
        assert not problems and again == count


if __name__ == "__main__":
    main()
