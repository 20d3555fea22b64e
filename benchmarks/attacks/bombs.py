"""Resource bombs from issue 30, generated on the fly, each run through the CLI under ``/usr/bin/time -v``.

    python benchmarks/attacks/bombs.py [CASE ...]     # all cases when none named

Prints, per case: peak memory (max RSS), wall time, exit code and the last lines the user saw.
Nothing big is committed: every input is written to a temporary folder and removed afterwards.
"""

from __future__ import annotations

import base64
import gzip
import io
import json
import os
import random
import re
import signal
import sqlite3
import struct
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

PY = sys.executable
CLAUDE_LINE = {
    "parentUuid": None,
    "isSidechain": False,
    "cwd": "/home/dev/shop",
    "sessionId": "11111111-2222-4333-8444-555555555555",
    "type": "user",
    "message": {"role": "user", "content": "hello"},
    "uuid": "u-0001",
    "timestamp": "2026-10-01T10:00:00.000Z",
}


def zed_db(path: Path, data: bytes, kind: str = "zstd", extra: str = "") -> None:
    conn = sqlite3.connect(path)
    conn.execute(
        "CREATE TABLE threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, updated_at TEXT NOT NULL, "
        f"data_type TEXT NOT NULL, data BLOB NOT NULL, parent_id TEXT, folder_paths TEXT{extra})"
    )
    conn.execute(
        "INSERT INTO threads (id, summary, updated_at, data_type, data) VALUES ('t1', 's', '2026-01-01', ?, ?)",
        (kind, data),
    )
    conn.commit()
    conn.close()


def zstd_compress(data: bytes) -> bytes:
    return subprocess.run(["zstd", "-q", "-19", "-c"], input=data, capture_output=True, check=True).stdout


def case_zed_messages(root: Path) -> list[str]:
    """A ~36 KB threads.db: one zstd frame of 6 million tiny messages."""
    msg = b'{"User":{"id":"","content":[{"Text":""}]}},'  # 43 bytes: 254 MB in all
    body = b'{"title":"t","updated_at":"2026-01-01T00:00:00Z","messages":[' + msg * 5_900_000
    body = body[:-1] + b"]}"
    (root / "a").mkdir()
    zed_db(root / "a" / "threads.db", zstd_compress(body))
    return ["build", str(root / "a"), "-o", str(root / "site")]


def case_claude_ai_gz(root: Path) -> list[str]:
    """A gzip of a claude.ai export with 3 million messages, through ``convert``."""
    msg = b'{"uuid":"m","text":"hi","sender":"human","created_at":"2026-01-01T00:00:00Z"},'
    head = (
        b'[{"uuid":"c1","name":"x","created_at":"2026-01-01T00:00:00Z",'
        b'"updated_at":"2026-01-01T00:00:00Z","chat_messages":['
    )
    body = head + msg * 3_000_000
    body = body[:-1] + b"]}]"
    (root / "conversations.json.gz").write_bytes(gzip.compress(body, 9))
    return ["convert", str(root / "conversations.json.gz"), "--to", "hail", "-o", str(root / "out.jsonl")]


def case_gz_2gb(root: Path) -> list[str]:
    """A 2 MB .gz that unpacks to 2 GB."""
    with gzip.open(root / "big.jsonl.gz", "wb", 9) as fh:
        chunk = b" " * (64 << 20)
        for _ in range(32):
            fh.write(chunk)
    return ["convert", str(root / "big.jsonl.gz"), "--to", "hail", "-o", str(root / "out.jsonl")]


def _wal_checksum(data: bytes, s0: int, s1: int) -> tuple[int, int]:
    words = struct.unpack(f">{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & 0xFFFFFFFF
        s1 = (s1 + words[i + 1] + s0) & 0xFFFFFFFF
    return s0, s1


ONE_THREAD = json.dumps(
    {
        "title": "t",
        "updated_at": "2026-01-01T00:00:00Z",
        "messages": [{"User": {"id": "u", "content": [{"Text": "hi"}]}}],
    }
).encode()


def case_wal_claims(root: Path) -> list[str]:
    """A Zed store whose -wal commit frame claims a database of 2 GB (its page count)."""
    (root / "a").mkdir()
    db = root / "a" / "threads.db"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA page_size = 4096")
    conn.close()
    zed_db(db, ONE_THREAD, "json")
    main = db.read_bytes()
    page = 4096
    header = struct.pack(">IIIIII", 0x377F0683, 3007000, page, 0, 7, 9)  # big-endian checksums
    s0, s1 = _wal_checksum(header, 0, 0)
    log = header + struct.pack(">II", s0, s1)
    claim = (2 << 30) // page
    frame_page = main[:page]
    fh = struct.pack(">II", 1, claim)
    s0, s1 = _wal_checksum(fh, s0, s1)
    s0, s1 = _wal_checksum(frame_page, s0, s1)
    log += fh + struct.pack(">IIII", 7, 9, s0, s1) + frame_page
    (root / "a" / "threads.db-wal").write_bytes(log + b"\0" * (256 * 1024 - len(log)))
    return ["build", str(root / "a"), "-o", str(root / "site")]


def case_generated_column(root: Path) -> list[str]:
    """A 12 KB database whose column is printf('%.*c', 500000000, 'x')."""
    (root / "a").mkdir()
    zed_db(
        root / "a" / "threads.db",
        ONE_THREAD,
        "json",
        ", folder_paths_order TEXT GENERATED ALWAYS AS (printf('%.*c', 500000000, 'x'))",
    )
    return ["build", str(root / "a"), "-o", str(root / "site")]


def _noise_png(side: int) -> bytes:
    from PIL import Image

    image = Image.frombytes("RGB", (side, side), os.urandom(side * side * 3)[: side * side * 3])
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=1)
    return out.getvalue()


def _flat_png(width: int, height: int) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(out, "PNG")
    return out.getvalue()


def case_images(root: Path) -> list[str]:
    """40 images just under the 25-megapixel cap in one session, through ``convert --to html``."""
    payload = base64.b64encode(_flat_png(4999, 4999)).decode()
    lines = []
    for n in range(40):
        line = dict(CLAUDE_LINE, uuid=f"u-{n}", parentUuid=f"u-{n - 1}" if n else None)
        line["message"] = {
            "role": "user",
            "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": payload}}],
        }
        lines.append(json.dumps(line))
    (root / "s.jsonl").write_text("\n".join(lines) + "\n")
    return ["convert", str(root / "s.jsonl"), "--to", "html", "-o", str(root / "out.html")]


def _blocky_png(side: int, seed: int) -> bytes:
    """A picture of coarse random blocks: small as a PNG, too big for the budget once 40 are together."""
    from PIL import Image

    small = Image.frombytes("RGB", (40, 40), random.Random(seed).randbytes(40 * 40 * 3))
    out = io.BytesIO()
    small.resize((side, side), Image.Resampling.NEAREST).save(out, "PNG", compress_level=9)
    return out.getvalue()


def case_images_shrunk(root: Path) -> list[str]:
    """40 images just under the cap that do not fit the 5 MB budget together: each is shrunk."""
    lines = []
    for n in range(40):
        payload = base64.b64encode(_blocky_png(4999, n)).decode()
        line = dict(CLAUDE_LINE, uuid=f"u-{n}", parentUuid=f"u-{n - 1}" if n else None)
        line["message"] = {
            "role": "user",
            "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": payload}}],
        }
        lines.append(json.dumps(line))
    (root / "s.jsonl").write_text("\n".join(lines) + "\n")
    return ["convert", str(root / "s.jsonl"), "--to", "html", "-o", str(root / "out.html")]


def case_images_build(root: Path) -> list[str]:
    """The 40 images of ``case_images``, through ``build --exports html``."""
    case_images(root)
    (root / "a").mkdir()
    (root / "s.jsonl").rename(root / "a" / "s.jsonl")
    return ["build", str(root / "a"), "-o", str(root / "site"), "--exports", "html"]


def case_long_line(root: Path) -> list[str]:
    """One 300 MB JSON line in a Claude Code session, through ``build``."""
    (root / "a").mkdir()
    line = dict(CLAUDE_LINE)
    line["message"] = {"role": "user", "content": [{"type": "text", "text": "x"}] * 1}
    text = json.dumps(line)
    pad = '{"type":"text","text":"a"},' * (300_000_000 // 27)
    text = text.replace('[{"type": "text", "text": "x"}]', "[" + pad + '{"type":"text","text":"x"}]')
    first = json.dumps(CLAUDE_LINE)
    (root / "a" / "s.jsonl").write_text(first + "\n" + text + "\n" + json.dumps(dict(CLAUDE_LINE, uuid="u-2")) + "\n")
    return ["build", str(root / "a"), "-o", str(root / "site")]


def case_fifo(root: Path) -> list[str]:
    """A FIFO named like a session in a Claude Code project folder."""
    folder = root / "a" / "projects" / "-home-dev-shop"
    folder.mkdir(parents=True)
    (folder / "11111111-2222-4333-8444-555555555555.jsonl").write_text(json.dumps(CLAUDE_LINE) + "\n")
    os.mkfifo(folder / "agent-x.jsonl")
    os.mkfifo(folder / "fifo.jsonl")
    return ["build", str(root / "a"), "-o", str(root / "site")]


def case_deep(root: Path) -> list[str]:
    """A folder nested 1,500 deep (with a session at the top)."""
    (root / "a").mkdir()
    (root / "a" / "s.jsonl").write_text(json.dumps(CLAUDE_LINE) + "\n")
    here = os.open(root / "a", os.O_RDONLY)
    for _ in range(1500):
        os.mkdir("d", dir_fd=here)
        nxt = os.open("d", os.O_RDONLY, dir_fd=here)
        os.close(here)
        here = nxt
    os.close(here)
    return ["build", str(root / "a"), "-o", str(root / "site")]


CASES: dict[str, Callable[[Path], list[str]]] = {
    name[5:]: fn for name, fn in globals().items() if name.startswith("case_") and callable(fn)
}


def run(name: str, timeout: int = 300) -> None:
    root = Path(tempfile.mkdtemp(prefix=f"bomb-{name}-"))
    try:
        _run(name, root, timeout)
    finally:
        subprocess.run(["rm", "-rf", str(root)], check=False)  # shutil.rmtree recurses: 1,500 deep fails


def _run(name: str, root: Path, timeout: int) -> None:
    if True:
        args = CASES[name](root)
        size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) if name != "deep" else 0
        cmd = ["/usr/bin/time", "-v", PY, "-m", "sessite", *args]
        child = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace", start_new_session=True
        )
        try:
            out, err = child.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)  # time's child too: a build hung on a FIFO
            child.communicate()
            print(f"{name}: input {size:,} B; TIMEOUT after {timeout} s")
            return
        done = subprocess.CompletedProcess(cmd, child.returncode, out, err)
        rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
        wall = re.search(r"Elapsed \(wall clock\) time.*: (\S+)", done.stderr)
        seen = [ln for ln in (done.stdout + done.stderr).splitlines() if not ln.startswith("\t")]
        print(
            f"{name}: input {size:,} B; max RSS {int(rss.group(1)) // 1024 if rss else '?'} MB; "
            f"wall {wall.group(1) if wall else '?'}; exit {done.returncode}"
        )
        for line in seen[-6:]:
            print("    " + line[:200])


if __name__ == "__main__":
    for case in sys.argv[1:] or list(CASES):
        run(case)
