"""Leaving things out: ``exclude_sessions`` and ``hide_events`` in sessite.toml, and a session
folder's own sessite.toml, in builds, conversions and the preview's catalog."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import EXAMPLE, parse_html

from sessite.analyze.leave_out import HIDDEN_REASON, HideRule, hide_events
from sessite.cli import main
from sessite.config import ConfigFileError, settings_from_dict
from sessite.model import Event, Kind, Problems, Session, SourceRef, walk
from sessite.readers import discover

CLAUDE = "claude_code-7b3e9a52-4c1d-4f8e-9a2b-1d6c5e8f0a34"
CLAUDE_FOLDER = "claude-code/-home-dev-webapp"
AMP = "amp-T-5c1e9a2b-3d4f-4a5b-8c6d-7e8f9a0b1c2d"


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    root = tmp_path / "archive"
    shutil.copytree(EXAMPLE, root)
    return root


def _build(archive: Path, out: Path, *args: str):
    return CliRunner().invoke(main, ["build", str(archive), "-o", str(out), "-q", "-j", "1", *args])


def _session(archive: Path, session_id: str):
    problems = Problems(archive)
    for claim in discover(archive, problems).claims:
        for session in claim.read(problems):
            if session.id == session_id:
                return session
    raise AssertionError(session_id)


def _hidden_count(page: Path) -> int:
    """The count the page gives for events hidden by sessite.toml (0 when it names none)."""
    items = [li.get_text(" ", strip=True) for li in parse_html(page).select("details.skipped li")]
    found = [
        int(m.group(1)) for text in items if (m := re.match(r"(\d+) × (.*)", text)) and m.group(2) == HIDDEN_REASON
    ]
    return found[0] if found else 0


def _event_classes(page: Path) -> list[str]:
    return [" ".join(li.get("class", [])) for li in parse_html(page).select("li.event")]


def test_exclude_sessions_by_id_and_glob(archive, tmp_path):
    (archive / "sessite.toml").write_text(f'exclude_sessions = ["{AMP}", "cline-*"]\n', "utf-8")
    result = _build(archive, tmp_path / "site")
    assert result.exit_code == 0, result.output
    assert "2 sessions excluded" in result.output
    sessions = tmp_path / "site" / "sessions"
    assert not list(sessions.glob(f"{AMP}*")) and not list(sessions.glob("cline-*"))
    assert (sessions / f"{CLAUDE}.html").is_file()
    index = (tmp_path / "site" / "index.html").read_text("utf-8")
    assert AMP not in index and "cline-" not in index and CLAUDE in index
    meta = (tmp_path / "site" / "search").rglob("*")
    counts = [re.search(r'"n":(\d+)', p.read_text("utf-8")) for p in meta if p.is_file()]
    assert [int(m.group(1)) for m in counts if m] == [11]  # the search index holds the 11 sessions built


def test_an_unchanged_rebuild_still_counts_the_excluded(archive, tmp_path):
    (archive / "sessite.toml").write_text('exclude_sessions = ["cline-*"]\n', "utf-8")
    cache = ["--cache-dir", str(tmp_path / "cache")]
    assert "1 session excluded" in _build(archive, tmp_path / "site", *cache).output
    again = _build(archive, tmp_path / "site", *cache).output
    assert "1 session excluded" in again and "unchanged" in again


def test_hide_events_by_kind_tool_and_pattern(archive, tmp_path):
    session = _session(archive, CLAUDE)
    thinking = sum(1 for e in walk(session.events) if e.kind == Kind.THINKING)
    bash_calls = [e for e in walk(session.events) if e.kind == Kind.TOOL_CALL and e.tool_name == "Bash"]
    bash_results = [
        e for e in walk(session.events) if e.kind == Kind.TOOL_RESULT and e.call_id in {c.call_id for c in bash_calls}
    ]
    assert thinking and bash_calls and bash_results
    marked = next(e for e in walk(session.events) if e.kind == Kind.USER and len(e.text) > 20)
    word = marked.text.split()[2]
    assert sum(1 for e in walk(session.events) if e.kind == Kind.USER and word in e.text) == 1
    (archive / "sessite.toml").write_text(
        f'hide_events = [{{kind = "thinking"}}, {{tool = "bash"}}, {{kind = "user", pattern = "{re.escape(word)}"}}]\n',
        "utf-8",
    )
    out = tmp_path / "site"
    assert _build(archive, out).exit_code == 0
    page = out / "sessions" / f"{CLAUDE}.html"
    classes = _event_classes(page)
    assert classes and not any("k-thinking" in c for c in classes)
    assert not any("cat-shell" in c for c in classes)  # the Bash calls (and the results shown with them)
    assert _hidden_count(page) == thinking + len(bash_calls) + len(bash_results) + 1
    assert marked.text.split("\n")[0][:40] not in page.read_text("utf-8")

    plain = tmp_path / "plain"
    (archive / "sessite.toml").unlink()
    assert _build(archive, plain).exit_code == 0
    assert _hidden_count(plain / "sessions" / f"{CLAUDE}.html") == 0
    assert any("k-thinking" in c for c in _event_classes(plain / "sessions" / f"{CLAUDE}.html"))


def test_a_session_folders_own_file_applies_to_its_sessions_only(archive, tmp_path):
    (archive / CLAUDE_FOLDER / "sessite.toml").write_text('hide_events = [{kind = "thinking"}]\n', "utf-8")
    out = tmp_path / "site"
    result = _build(archive, out)
    assert result.exit_code == 0, result.output
    assert not any("k-thinking" in c for c in _event_classes(out / "sessions" / f"{CLAUDE}.html"))
    assert _hidden_count(out / "sessions" / f"{CLAUDE}.html") == 2
    assert any("k-thinking" in c for c in _event_classes(out / "sessions" / f"{AMP}.html"))

    (archive / CLAUDE_FOLDER / "sessite.toml").write_text(f'exclude_sessions = ["{CLAUDE}"]\n', "utf-8")
    cache = ["--cache-dir", str(tmp_path / "cache")]
    _build(archive, out, *cache)
    assert not (out / "sessions" / f"{CLAUDE}.html").exists()
    (archive / CLAUDE_FOLDER / "sessite.toml").unlink()  # the cache sees the folder's file go
    again = _build(archive, out, *cache)
    assert "excluded" not in again.output
    assert (out / "sessions" / f"{CLAUDE}.html").is_file()


def test_a_broken_folder_file_leaves_its_sessions_out_and_says_why(archive, tmp_path):
    (archive / CLAUDE_FOLDER / "sessite.toml").write_text('hide_events = [{kind = "thinkin"}]\ntitle = "x"\n', "utf-8")
    result = _build(archive, tmp_path / "site")
    assert result.exit_code == 0
    assert not (tmp_path / "site" / "sessions" / f"{CLAUDE}.html").exists()
    line = next(line for line in result.output.splitlines() if "left out" in line)
    assert line.startswith(f"{CLAUDE_FOLDER}/7b3e9a52-4c1d-4f8e-9a2b-1d6c5e8f0a34.jsonl: left out: ")
    assert f"{CLAUDE_FOLDER}/sessite.toml: " in line and "Traceback" not in result.output

    (archive / CLAUDE_FOLDER / "sessite.toml").write_text('title = "x"\n', "utf-8")
    result = _build(archive, tmp_path / "site2")
    assert "may hold only exclude_sessions and hide_events ('title'" in result.output


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"hide_events": [{"kind": "thinking"}, {"kind": "thinkin"}]}, "hide_events[1]: unknown kind 'thinkin'"),
        ({"hide_events": [{"tool": "Bash", "colour": "red"}]}, "hide_events[0]: unknown key 'colour'"),
        ({"hide_events": [{"pattern": "("}]}, "hide_events[0]: 'pattern' is not a valid regular expression"),
        ({"hide_events": [{}]}, "hide_events[0]: must be a table"),
        ({"hide_events": [{"tool": 3}]}, "hide_events[0]: 'tool' must be a non-empty string"),
        ({"hide_events": "thinking"}, "'hide_events' must be a list of tables"),
        ({"exclude_sessions": [1]}, "'exclude_sessions' must be a list of session ids or globs"),
    ],
)
def test_settings_errors_name_the_entry(value, message):
    with pytest.raises(ConfigFileError) as info:
        settings_from_dict(value, "sessite.toml")
    assert str(info.value).startswith("sessite.toml: ") and message in str(info.value)


def test_a_hidden_call_takes_its_result_and_sub_agent_along():
    call = Event("c", Kind.TOOL_CALL, tool_name="Task", call_id="t1")
    child = Event("s1", Kind.ASSISTANT, text="inside")
    sub = Event("s", Kind.SUBAGENT, call_id="t1", children=(child,))
    result = Event("r", Kind.TOOL_RESULT, call_id="t1", text="done")
    other = Event("u", Kind.USER, text="Fix the login bug please")
    session = _tiny((other, call, sub, result), title="Fix the login bug please")
    hidden = hide_events(session, (HideRule(tool="task"),))
    assert [e.id for e in hidden.events] == ["u"]
    assert hidden.skipped[HIDDEN_REASON] == 4  # the call, its sub-agent and its child, its result
    assert hidden.title == session.title  # the title came from an event still shown
    gone = hide_events(session, (HideRule(kind="user"),))
    assert gone.title is None  # taken from the hidden prompt: the page titles it from what is left
    assert hide_events(session, (HideRule(pattern="nowhere"),)) is session


def test_convert_leaves_out_what_the_settings_say(archive, tmp_path):
    (archive / "sessite.toml").write_text(
        'exclude_sessions = ["cline-*"]\nhide_events = [{kind = "thinking"}]\n', "utf-8"
    )
    out = tmp_path / "md"
    result = CliRunner().invoke(main, ["convert", str(archive), "--to", "markdown", "-o", str(out), "-q"])
    assert result.exit_code == 0, result.output
    assert not list(out.glob("cline-*"))
    claude = (out / f"{CLAUDE}.md").read_text("utf-8")
    thinking = next(e.text for e in walk(_session(archive, CLAUDE).events) if e.kind == Kind.THINKING)
    assert thinking.split("\n")[0][:30] not in claude


def _tiny(events, title=None):
    return Session("t", SourceRef("t.jsonl", "test"), "test", tuple(events), title=title)
