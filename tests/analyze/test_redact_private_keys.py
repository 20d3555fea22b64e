"""Private keys as people paste them (issue 28): in a diff, in numbered Read output, indented in
YAML, quoted in Markdown, with CRLF, escaped once or twice in JSON, built by concatenation,
cut off, wrapped at 64/70/76; RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP and PuTTY keys.

The shapes are the planted benchmark's (``benchmarks/redaction/planted.py``), so the benchmark
and these tests plant the same text. Each is checked whole, cut short (no END line: the output
was truncated) and as its tail only (no BEGIN line: a Read from an offset, a hunk that starts
mid-key), alone and inside a tool's JSON output; no 12 characters of the body may remain.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from sessite.analyze.redact import Redactor
from sessite.analyze.redact.engine import TextRedactor
from sessite.analyze.redact.findings import text_differences
from sessite.model import Event, Kind, Session, SourceRef

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

from redaction import planted  # noqa: E402  (benchmarks/ is not a package)

KEY_KINDS = sorted(kind for kind in planted.KINDS if kind.startswith("private-key"))
WINDOW = 12


def _plant(kind: str) -> planted.Plant:
    return planted.KINDS[kind](planted.Maker(sum(map(ord, kind))))


def _windows(core: str) -> list[str]:
    return [core[i : i + WINDOW] for i in range(0, len(core) - WINDOW + 1, 4)]


def _left(out: str, core: str) -> list[str]:
    """The pieces of the key's body still in ``out`` (the text as written, and unescaped)."""
    flat = out.replace("\\\\", "\\").replace("\\n", "\n").replace("\\r", "\r")
    return [w for w in _windows(core) if w in out or w in flat]


def _cut(text: str) -> str:
    """The text up to its END line: what a truncated output shows."""
    end = text.find("-----END")
    if end < 0:
        end = text.find("Private-MAC")
    return text[: max(end - 30, 0)]


def _tail(text: str) -> str:
    """The text from the third line on (no BEGIN line)."""
    breaks = [i for i in range(len(text)) if text.startswith(("\n", "\\n"), i)]
    return text[breaks[2] + 1 :] if len(breaks) > 3 else text


def test_every_shape_the_issue_names_is_planted():
    assert len(KEY_KINDS) >= 15
    lines = "\n".join(_plant(kind).line for kind in KEY_KINDS)
    for label in ("RSA", "EC", "DSA", "OPENSSH", "ENCRYPTED", "PGP PRIVATE KEY BLOCK", "PuTTY-User-Key-File"):
        assert label in lines
    for mark in ("\n+-----BEGIN", "\n------BEGIN", "\n -----BEGIN", "\u2192-----BEGIN", "\t-----BEGIN", "\r\n"):
        assert mark in lines, mark
    assert "> -----BEGIN" in lines and "\\\\n" in lines and '\\n" +' in lines and "key: |" in lines


@pytest.mark.parametrize("kind", KEY_KINDS)
@pytest.mark.parametrize("cut", ["whole", "cut", "tail"])
@pytest.mark.parametrize("where", ["text", "json"])
def test_the_body_is_redacted(kind, cut, where):
    plant = _plant(kind)
    text = {"whole": plant.line, "cut": _cut(plant.line), "tail": _tail(plant.line)}[cut]
    if cut == "tail" and kind == "private-key-putty":
        text = plant.line[plant.line.index("Private-Lines") :]  # (its public lines are not secret)
    core = plant.core if cut == "whole" else "".join(w for w in _windows(plant.core) if w in text.replace("\n", ""))
    if len(core) < WINDOW or (cut == "tail" and "-----END" not in text and "Private-MAC" not in text):
        pytest.skip("this cut leaves no body, or nothing that says key (base64 lines alone)")
    if where == "json":
        text = json.dumps({"stdout": f"$ cat key\n{text}\n", "exit": 0})
    assert _left(text, core), "the test plants a key it can find"
    out = Redactor().text(text)
    assert "[REDACTED:private-key]" in out
    assert _left(out, core) == []


@pytest.mark.parametrize("kind", KEY_KINDS)
def test_the_output_scan_sees_what_redaction_sees(kind):
    """The shapes-only detectors (the build's output scan) find the key where the walk does."""
    plant = _plant(kind)
    out = TextRedactor(shapes_only=True).text(plant.line)
    assert _left(out, plant.core) == []


@pytest.mark.parametrize(
    "text",
    [
        "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----",
        "Paste it between -----BEGIN PRIVATE KEY----- and -----END PRIVATE KEY----- lines.",
        "-----BEGIN OPENSSH PRIVATE KEY-----\n> (your key here)\n",
        "  12\u2192-----END RSA PRIVATE KEY-----\n  13\u2192",
        "-----BEGIN EC PRIVATE KEY-----\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n-----END EC PRIVATE KEY-----",
    ],
)
def test_a_key_without_a_body_is_left_alone(text):
    assert Redactor().text(text) == text


def test_prose_after_a_cut_key_is_kept_from_its_first_punctuation():
    key = _cut(_plant("private-key-cut").line)
    out = Redactor().text(f"{key}\n\n(The output was cut here.) Then we moved on.")
    assert out.endswith("(The output was cut here.) Then we moved on.")


@pytest.mark.parametrize("kind", ["private-key-cut", "private-key-wrap64", "private-key-diff-add"])
def test_a_key_split_across_two_messages_is_redacted_on_both_sides(kind):
    """The first message ends inside the key, the next goes on with its body: the seam of the two
    is read as one text, and the key block's marker (followed by its line breaks) lines up."""
    plant = _plant(kind)
    mid = len(plant.line) // 2
    session = Session(
        id="s1",
        source=SourceRef(Path("a.jsonl"), "claude-code"),
        agent="claude-code",
        events=(
            Event("e1", Kind.ASSISTANT, text=f"Here it is:\n{plant.line[:mid]}"),
            Event("e2", Kind.ASSISTANT, text=f"{plant.line[mid:]}\nThat is all of it."),
        ),
    )
    redacted = Redactor().value(session)
    shown = "\n".join(event.text or "" for event in redacted.events)
    assert _left(shown, plant.core) == []
    assert redacted.events[1].text.endswith("That is all of it.")


def test_what_a_key_block_was_is_told_though_its_marker_keeps_its_line_breaks():
    """``sessite check`` and the output scan name the value a marker hides: for a key block, whose
    marker is followed by its line breaks (and a diff's marks), that is the whole block."""
    plant = _plant("private-key-diff-add")
    text = f"{plant.line}\n-old line\n context"
    found = text_differences(text, Redactor().text(text))
    assert [kind for kind, _ in found] == ["private-key"]
    assert found[0][1].startswith("-----BEGIN RSA PRIVATE KEY-----") and found[0][1].endswith("PRIVATE KEY-----")
    assert all(line[1:] in found[0][1] for line in plant.line.split("\n")[2:-1])


def test_a_word_before_a_blank_line_and_an_end_line_is_kept():
    text = "it is read by ConfigurationLoaderFactory2\n\n-----END RSA PRIVATE KEY-----\n"
    assert Redactor().text(text) == text
