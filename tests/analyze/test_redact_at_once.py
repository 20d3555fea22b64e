"""A session's walk asks the rules about each event's strings at once (``Redactor._dataclass_at_once``):
the same sessions, counts and learnt values as asking string by string, on planted secrets of every
kind in every field of every format and on real logs; and never where a rule is anchored to a text's
edge, which the joined strings would hide."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import write_claude_session
from secrets_archive import write

from sessite.analyze.redact import Redactor
from sessite.analyze.redact.ruleset import anchored, available
from sessite.model import Problems, Session
from sessite.readers import discover

REAL = Path(__file__).resolve().parents[3] / "shared" / "formats"

pytestmark = pytest.mark.skipif(not available(), reason="google-re2 is not installed: no joined look")


def _sessions(root: Path, limit: int = 400) -> list[Session]:
    problems = Problems(root)
    sessions: list[Session] = []
    for claim in discover(root, problems).claims:
        sessions.extend(claim.reader.read_group((claim.path, *claim.group), problems))
        if len(sessions) >= limit:
            break
    return sessions


def _walked(sessions: list[Session], at_once: bool, monkeypatch: pytest.MonkeyPatch, **settings: object):
    if not at_once:
        monkeypatch.setattr(Redactor, "joins", lambda self: False)
    redactor = Redactor(**settings)  # type: ignore[arg-type]
    assert redactor._joins is at_once
    out = [redactor.value(s) for s in sessions]
    monkeypatch.undo()
    return out, dict(redactor.counts), dict(redactor.learned.kinds)


def _alike(sessions: list[Session], monkeypatch: pytest.MonkeyPatch, **settings: object) -> dict[str, int]:
    joined = _walked(sessions, True, monkeypatch, **settings)
    alone = _walked(sessions, False, monkeypatch, **settings)
    assert joined[0] == alone[0]
    assert joined[1:] == alone[1:]
    return joined[1]


def test_planted_secrets_are_redacted_alike(tmp_path, monkeypatch):
    sessions = _sessions(write(tmp_path / "archive"))
    assert len(sessions) > 30
    counts = _alike(sessions, monkeypatch)
    assert sum(counts.values()) > 100  # (they do find things)
    # The user's own pattern and allow-list take part in the joined look as well
    counts = _alike(sessions, monkeypatch, extra=[("ticket", r"TICKET-[0-9]{6}")], allow=["hunter2hunter2"])
    assert sum(counts.values()) > 100


@pytest.mark.skipif(not REAL.is_dir(), reason="../shared/formats is not here")
def test_real_logs_are_redacted_alike(monkeypatch):
    sessions = [s for folder in ("real", "real-agents") for s in _sessions(REAL / folder, 300)]
    assert len(sessions) > 100
    _alike(sessions, monkeypatch)


def test_a_pattern_anchored_to_a_text_edge_is_asked_string_by_string(tmp_path):
    """``^TICKET-…$`` matches a prompt that is only the ticket; joined to the event's other strings it
    would not: such a rule set is never joined, and the ticket is still redacted."""
    redactor = Redactor(extra=[("ticket", r"^TICKET-[0-9]{6}$")])
    assert not redactor._joins
    assert Redactor()._joins
    write_claude_session(
        tmp_path / "claude" / "-home-dev-app", "0c2f9a1e-4b7d-4e21-9c3a-5d8e6f7a8b9c", ["TICKET-123456"]
    )
    sessions = _sessions(tmp_path)
    assert len(sessions) == 1
    redacted = [redactor.value(s) for s in sessions]
    assert redactor.counts["ticket"] == 2  # the prompt and the title made of it
    assert "TICKET-123456" not in repr(redacted)
    # (joined, the rule would find nothing: why such a set is not joined)
    assert redactor._ruleset is not None and redactor._ruleset.none_in(["TICKET-123456", "a reply"], lambda _: False)


@pytest.mark.parametrize(
    ("pattern", "edge"),
    [
        (r"^secret", True),
        (r"secret$", True),
        (r"\Asecret", True),
        (r"secret\z", True),
        (r"[$^]secret", False),
        (r"\$secret\^", False),
        (r"\bsecret\b", False),
        (r"[^a]secret", False),
    ],
)
def test_an_anchor_is_told_from_a_character(pattern, edge):
    assert anchored(pattern) is edge
