#!/usr/bin/env python3
"""Generate a synthetic Claude Code archive for benchmarks (deterministic for a seed).

    python benchmarks/gen_archive.py OUT --sessions 10000 [--seed 1]

Each session is a ``<project>/<uuid>.jsonl`` transcript of a few turns: a
prompt, thinking, tool calls (Bash with test and git output, Read, Edit,
Grep) with their output, and an answer in markdown (lists, code blocks).
Words follow a Zipf distribution over a pseudo-English vocabulary mixed with
code: snake_case and camelCase identifiers, paths, commands, hex hashes,
numbers and C++/MIME-type tokens, so the index sees a realistic long tail of
rare terms; each session keeps to a topic of its own, as real ones do.
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import json
import random
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

COMMON = [
    "the",
    "of",
    "and",
    "to",
    "in",
    "is",
    "that",
    "it",
    "for",
    "on",
    "with",
    "as",
    "this",
    "be",
    "are",
    "by",
    "not",
    "or",
    "from",
    "at",
    "have",
    "an",
    "was",
    "but",
    "can",
    "if",
    "we",
    "you",
    "use",
    "file",
    "function",
    "test",
    "error",
    "run",
    "code",
    "value",
    "list",
    "return",
    "data",
    "change",
    "fix",
    "add",
    "update",
    "check",
    "need",
    "should",
    "would",
    "now",
    "then",
    "will",
    "when",
    "what",
    "which",
    "there",
    "here",
    "also",
    "just",
    "make",
    "new",
    "get",
    "set",
    "using",
    "one",
    "all",
    "more",
    "so",
    "because",
    "into",
    "only",
    "like",
    "first",
    "after",
    "before",
    "see",
    "found",
    "issue",
    "build",
    "config",
    "output",
    "input",
    "server",
    "client",
    "request",
    "response",
    "path",
    "line",
    "module",
    "class",
    "method",
    "type",
    "name",
    "string",
    "number",
    "array",
    "object",
    "import",
    "export",
    "install",
    "version",
    "branch",
    "commit",
    "merge",
    "push",
    "pull",
    "review",
    "bug",
    "feature",
]
SYLLABLES = [
    "ka",
    "to",
    "re",
    "mi",
    "lo",
    "sa",
    "ne",
    "vi",
    "ru",
    "pe",
    "da",
    "fo",
    "ti",
    "ga",
    "mo",
    "be",
    "lu",
    "zi",
    "no",
    "ha",
    "ke",
    "ra",
    "si",
    "po",
    "tu",
    "me",
]
CODE_WORDS = [
    "std::vector",
    "application/json",
    "snake_case",
    "camelCase",
    "HashMap",
    "useEffect",
    "async",
    "await",
    "Promise",
    "TypeError",
    "ValueError",
    "KeyError",
    "Optional",
    "dict",
    "kwargs",
    "__init__",
    "self.cache",
    "nullptr",
    "unique_ptr",
    "Content-Type",
    "text/html",
    "utf-8",
    "localhost:8080",
    "127.0.0.1",
    "npm",
    "pip",
    "pytest",
    "cargo",
    "make",
    "docker",
    "git",
]


class Vocabulary:
    """Zipf-distributed pseudo-English, per-project identifiers and paths, and per-session topics.

    Real sessions keep returning to the same few files, names and words (the
    team's samples: about one distinct term per eight tokens), so each
    session draws most of its words, identifiers and paths from a small topic
    of its own, and a file it reads twice shows the same lines.
    """

    def __init__(self, rng: random.Random, size: int = 20_000) -> None:
        words: set[str] = set()
        while len(words) < size:
            words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
        self.words = COMMON + sorted(words)
        weights = [1 / (rank + 3) ** 1.15 for rank in range(len(self.words))]
        self.cumulative = list(itertools.accumulate(weights))
        self.rng = rng
        self.pools: dict[str, tuple[list[str], list[str]]] = {}
        self.project = ""
        self.topic_words: list[str] = []
        self.topic_idents: list[str] = []
        self.topic_paths: list[str] = []
        self.files: dict[str, str] = {}

    def use_project(self, project: str) -> None:
        if project not in self.pools:
            idents = [self._identifier() for _ in range(400)]
            paths = [self._path(project) for _ in range(150)]
            self.pools[project] = (idents, paths)
        self.project = project

    def start_session(self) -> None:
        idents, paths = self.pools[self.project]
        self.topic_words = [self._word() for _ in range(60)]
        self.topic_idents = [self._pick(idents) for _ in range(25)]
        self.topic_paths = [self._pick(paths) for _ in range(6)]
        self.files = {}

    def _pick(self, pool: list[str]) -> str:
        return pool[min(int(self.rng.paretovariate(1.2)) - 1, len(pool) - 1)]

    def _word(self) -> str:
        return self.words[bisect.bisect(self.cumulative, self.rng.random() * self.cumulative[-1])]

    def word(self) -> str:
        return self.rng.choice(self.topic_words) if self.rng.random() < 0.6 else self._word()

    def sentence(self, low: int = 6, high: int = 18) -> str:
        words = [self.word() for _ in range(self.rng.randint(low, high))]
        if self.rng.random() < 0.4:
            words.insert(self.rng.randrange(len(words)), self.code())
        return " ".join(words).capitalize() + "."

    def paragraph(self, sentences: int) -> str:
        return " ".join(self.sentence() for _ in range(sentences))

    def _identifier(self) -> str:
        parts = [self._word() for _ in range(self.rng.randint(2, 3))]
        if self.rng.random() < 0.5:
            return "_".join(parts)
        return parts[0] + "".join(p.capitalize() for p in parts[1:])

    def _path(self, project: str) -> str:
        ext = self.rng.choice(["py", "ts", "rs", "go", "md", "json", "cpp", "html"])
        return (
            f"/home/dev/{project}/"
            + "/".join(self._word() for _ in range(self.rng.randint(1, 3)))
            + f"/{self._identifier()}.{ext}"
        )

    def identifier(self) -> str:
        r = self.rng.random()
        if r < 0.8:
            return self.rng.choice(self.topic_idents)
        return self._pick(self.pools[self.project][0]) if r < 0.97 else self._identifier()

    def path(self, project: str | None = None) -> str:
        return (
            self.rng.choice(self.topic_paths) if self.rng.random() < 0.85 else self._pick(self.pools[self.project][1])
        )

    def code(self) -> str:
        r = self.rng.random()
        if r < 0.5:
            return self.identifier()
        if r < 0.7:
            return self.rng.choice(CODE_WORDS)
        if r < 0.78:
            return f"{self.rng.getrandbits(28):07x}"
        if r < 0.9:
            return str(self.rng.randint(0, 999))
        return f"{self.identifier()}()"

    def code_lines(self, n: int) -> str:
        lines = []
        for _ in range(n):
            indent = " " * (4 * self.rng.randint(0, 2))
            lines.append(f"{indent}{self.identifier()} = {self.identifier()}({self.word()}, {self.code()})")
        return "\n".join(lines)

    def file(self, path: str) -> str:
        """What reading ``path`` shows; the same lines each time within a session."""
        if path not in self.files:
            self.files[path] = self.code_lines(self.rng.randint(15, 60))
        return "\n".join(f"{n:6}\u2192{line}" for n, line in enumerate(self.files[path].splitlines(), 1))

    def answer(self) -> str:
        """An assistant's reply: prose, sometimes with a list or a fenced code block."""
        parts = [self.paragraph(self.rng.randint(1, 3))]
        if self.rng.random() < 0.4:
            parts.append(
                "\n".join(f"- `{self.identifier()}`: {self.sentence(4, 9)}" for _ in range(self.rng.randint(2, 4)))
            )
        if self.rng.random() < 0.35:
            parts.append("```python\n" + self.code_lines(self.rng.randint(3, 10)) + "\n```")
        return "\n\n".join(parts)

    def test_output(self) -> str:
        tests = [
            f"tests/test_{self.rng.choice(self.topic_words)}.py::test_{self.identifier()}"
            for _ in range(self.rng.randint(3, 12))
        ]
        lines = [f"{t} {'PASSED' if self.rng.random() < 0.9 else 'FAILED'}" for t in tests]
        if "FAILED" in "".join(lines):
            lines += [
                "",
                "=" * 30 + " FAILURES " + "=" * 30,
                self.code_lines(3),
                f"E   {self.rng.choice(['AssertionError', 'TypeError', 'KeyError'])}: {self.sentence(3, 8)}",
            ]
        lines.append(f"{len(tests)} passed in {self.rng.random() * 9:.2f}s")
        return "\n".join(lines)


def session_lines(vocab: Vocabulary, rng: random.Random, project: str, started: datetime) -> list[dict]:
    vocab.start_session()
    session_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    cwd = f"/home/dev/{project}"
    branch = rng.choice(["main", "dev", f"feature/{vocab.word()}", f"fix/{vocab.word()}-{rng.randint(1, 999)}"])
    base = {
        "isSidechain": False,
        "userType": "external",
        "cwd": cwd,
        "sessionId": session_id,
        "version": "2.1.39",
        "gitBranch": branch,
    }
    lines: list[dict] = []
    parent = None
    clock = started

    def emit(kind: str, message: dict, extra: dict | None = None) -> None:
        nonlocal parent, clock
        clock += timedelta(seconds=rng.randint(1, 40))
        uid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        record = {
            "parentUuid": parent,
            **base,
            "type": kind,
            "message": message,
            "uuid": uid,
            "timestamp": clock.isoformat().replace("+00:00", "Z"),
        }
        if extra:
            record.update(extra)
        lines.append(record)
        parent = uid

    model = rng.choice(["claude-sonnet-4-5-20250929", "claude-opus-4-1-20250805"])
    for _turn in range(rng.randint(2, 6)):
        emit("user", {"role": "user", "content": vocab.paragraph(rng.randint(1, 3))})
        msg_id = f"msg_{rng.getrandbits(64):016x}"
        usage = {
            "input_tokens": rng.randint(10, 5000),
            "output_tokens": rng.randint(10, 2000),
            "cache_read_input_tokens": 0,
            "cache_creation_input_tokens": 0,
        }
        emit(
            "assistant",
            {
                "model": model,
                "id": msg_id,
                "type": "message",
                "role": "assistant",
                "content": [{"type": "thinking", "thinking": vocab.paragraph(rng.randint(1, 3)), "signature": "x"}],
                "usage": usage,
            },
        )
        for _ in range(rng.randint(1, 4)):
            tool_id = f"toolu_{rng.getrandbits(64):016x}"
            tool = rng.choice(["Bash", "Bash", "Read", "Read", "Edit", "Grep"])
            if tool == "Bash":
                command = rng.choice(
                    [
                        "pytest -q",
                        "git status",
                        "npm test",
                        "cargo build",
                        "make",
                        "git log --oneline -5",
                        f"grep -rn {vocab.identifier()} .",
                    ]
                ) + (f" {vocab.path(project)}" if rng.random() < 0.3 else "")
                tool_input = {"command": command, "description": vocab.sentence(3, 6)}
                if command.startswith(("pytest", "npm test")):
                    output = vocab.test_output()
                elif command.startswith("git log"):
                    output = "\n".join(f"{rng.getrandbits(28):07x} {vocab.sentence(3, 8)}" for _ in range(5))
                else:
                    output = "\n".join(
                        vocab.sentence(4, 12) if rng.random() < 0.5 else vocab.code_lines(1)
                        for _ in range(rng.randint(4, 30))
                    )
            elif tool == "Read":
                path = vocab.path(project)
                tool_input = {"file_path": path}
                output = vocab.file(path)
            elif tool == "Edit":
                tool_input = {
                    "file_path": vocab.path(project),
                    "old_string": vocab.code_lines(rng.randint(1, 4)),
                    "new_string": vocab.code_lines(rng.randint(1, 5)),
                }
                output = "The file has been updated."
            else:
                tool_input = {"pattern": vocab.identifier(), "path": cwd}
                output = "\n".join(
                    f"{vocab.path(project)}:{rng.randint(1, 400)}: {vocab.code_lines(1).strip()}"
                    for _ in range(rng.randint(1, 8))
                )
            emit(
                "assistant",
                {
                    "model": model,
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": tool_id, "name": tool, "input": tool_input}],
                    "usage": usage,
                },
            )
            emit(
                "user",
                {
                    "role": "user",
                    "content": [
                        {
                            "tool_use_id": tool_id,
                            "type": "tool_result",
                            "content": output,
                            "is_error": rng.random() < 0.05,
                        }
                    ],
                },
            )
        emit(
            "assistant",
            {
                "model": model,
                "id": msg_id,
                "type": "message",
                "role": "assistant",
                "content": [{"type": "text", "text": vocab.answer()}],
                "usage": usage,
            },
        )
    return lines


def generate(out: Path, sessions: int, seed: int = 1) -> Path:
    rng = random.Random(seed)
    vocab = Vocabulary(rng)
    projects = [f"{vocab._word()}-{vocab._word()}" for _ in range(40)]
    start = datetime(2025, 1, 1, tzinfo=UTC)
    out.mkdir(parents=True, exist_ok=True)
    for n in range(sessions):
        project = rng.choice(projects)
        vocab.use_project(project)
        folder = out / f"-home-dev-{project}"
        folder.mkdir(exist_ok=True)
        lines = session_lines(vocab, rng, project, start + timedelta(minutes=37 * n))
        path = folder / f"{lines[0]['sessionId']}.jsonl"
        with open(path, "w", encoding="utf-8") as fh:
            for record in lines:
                fh.write(json.dumps(record, ensure_ascii=False))
                fh.write("\n")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    generate(args.out, args.sessions, args.seed)
    print(f"wrote {args.sessions} sessions to {args.out}")


if __name__ == "__main__":
    main()
