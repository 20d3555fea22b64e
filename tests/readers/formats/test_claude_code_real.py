"""The Claude Code reader on real public logs (``../shared/formats/real/claude_code``; skipped without them).

Claude Code 1.0.24 to 2.1.x, from several repositories: every record of every file (main
and sub-agent) gets a fate, every prompt and answer is in the model, every call the
source answers is shown with its result, and nothing is raw JSON. The 2.0.x project
whose sidechains sit beside their main files keeps its 1 MB transcript.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers import REPO, build_site

from sessite.model import Kind, Problems, Session, walk
from sessite.readers import discover
from sessite.readers.ledger import keeping_ledger

sys.path.insert(0, str(REPO / "benchmarks"))
from fidelity.formats.claude_code import records  # noqa: E402  (benchmarks/ is not a package)

REAL = REPO.parent / "shared" / "formats" / "real" / "claude_code"
CODERABBIT = REAL / "iansherr_claude-code-log__-Users-dain-workspace-coderabbit-review-helper"
CB2E = "cb2e607c-c758-415a-8b45-c49e4631906a"
NO_MAIN = "741790a4-4fe2-4644-9a51-fb4482074060"

pytestmark = pytest.mark.skipif(not CODERABBIT.is_dir(), reason="the real logs (../shared/formats/real) are not here")


def read_all(root: Path) -> tuple[dict[str, Session], list[str]]:
    problems = Problems()
    sessions = [s for c in discover(root, problems).claims for s in c.read(problems)]
    return {s.meta.get("session_id", s.id): s for s in sessions}, [str(p) for p in problems.items]


def test_main_transcript_beside_flat_sidechains_is_kept(tmp_path: Path) -> None:
    report = build_site(CODERABBIT, tmp_path / "site")
    assert not [str(p) for p in report.problems if "already read" in p.message or "copy" in p.message]
    sessions, problems = read_all(CODERABBIT)
    assert not problems
    assert not [sid for sid in sessions if "-agent-" in sid]  # no sidechain is a session of its own
    session = sessions[CB2E]
    assert session.source.path.endswith(f"{CB2E}.jsonl")
    assert sum(1 for e in session.events if e.kind == Kind.TOOL_CALL) == 76
    subs = {e.id: e for e in session.events if e.kind == Kind.SUBAGENT}
    assert subs["agent-ea02459f"].call_id == "toolu_01HD7PpSCWhP2gP8dXvJiyZN"
    assert sum(1 for e in walk(subs["agent-ea02459f"].children) if e.kind == Kind.TOOL_CALL) == 14
    assert [subs[k].title for k in ("agent-2b93909d", "agent-645808c9")] == ["Warmup", "Warmup"]
    assert not session.title.startswith("<")  # the user's words, not the <ide_selection> block


def test_sidechains_without_their_main_file_are_one_session() -> None:
    sessions, _ = read_all(CODERABBIT)
    lost = sessions[NO_MAIN]
    assert lost.meta["main_file"] == "missing" and lost.meta["subagents"] == 9
    assert all(e.kind == Kind.SUBAGENT for e in lost.events)
    starts = [e.timestamp for e in lost.events]
    assert starts == sorted(starts)
    # Empty main files hold their (warmup) sidechains: 9 of them, one session each.
    assert sum(1 for s in sessions.values() if s.meta.get("main_file") == "empty") == 9


def test_every_record_accounted_for_and_shown_faithfully() -> None:
    problems = Problems()
    unaccounted: list[str] = []
    missing: list[str] = []
    unpaired: list[str] = []
    raw: list[str] = []
    for claim in discover(REAL, problems).claims:
        with keeping_ledger() as ledger:
            sessions = list(claim.read(problems))
        events = [e for s in sessions for e in walk(s.events)]
        raw += [f"{claim.path.name}: {e.title}" for e in events if e.kind == Kind.UNKNOWN]
        said = {
            Kind.USER: " ".join(" ".join(e.text.split()) for e in events if e.kind == Kind.USER),
            Kind.ASSISTANT: " ".join(" ".join(e.text.split()) for e in events if e.kind == Kind.ASSISTANT),
        }
        calls = {e.call_id for e in events if e.kind == Kind.TOOL_CALL}
        results = {e.call_id for e in events if e.kind == Kind.TOOL_RESULT}
        made: set[str] = set()
        answered: set[str] = set()
        for path in dict.fromkeys((*claim.sources, *claim.companions)):
            for record in records(path):
                if (str(record.path), record.line) not in ledger.fates:
                    unaccounted.append(f"{path.name}:{record.line} {record.type}")
                for kind, texts in ((Kind.USER, record.user_texts), (Kind.ASSISTANT, record.assistant_texts)):
                    missing += [f"{path.name}:{record.line}" for t in texts if " ".join(t.split()) not in said[kind]]
                made.update(record.calls)
                answered.update(record.results)
        unpaired += sorted(c for c in made & answered if c not in calls or c not in results)
        assert all(s.title and not s.title.startswith("<") for s in sessions), [s.title for s in sessions]
    assert not unaccounted and not missing and not unpaired and not raw, (unaccounted, missing, unpaired, raw)
