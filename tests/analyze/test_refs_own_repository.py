"""Commit refs only for hashes the session's own repository could hold: a ``git log`` run in
another repository, or a system note's example text, names no commit of the session."""

from __future__ import annotations

import pytest
from test_refs import msg, names, session, shell

from sessite.analyze.refs import extract_refs
from sessite.analyze.refs.commands import runs_elsewhere
from sessite.model import Kind

LOG = "a1b2c3d Fix the cart\n4e5f6a7 Add tests\n9b8c7d6 Start\n"


@pytest.mark.parametrize(
    "command",
    [
        "cd /home/dev/vendor/lib && git log --oneline -3",
        "git -C /srv/other log --oneline -3",
        "git --git-dir=/srv/other/.git log --oneline -3",
        "cd .. && git log --oneline -3",
    ],
)
def test_git_output_of_another_repository_names_no_commit(command):
    assert runs_elsewhere(command, "/home/dev/app")
    assert names(extract_refs(session(shell(command, LOG))), "commit") == set()


@pytest.mark.parametrize(
    "command",
    [
        "git log --oneline -3",
        "cd /home/dev/app/sub && git log --oneline -3",
        "git -C worktrees/agent-1 log --oneline -3",  # a worktree inside the session's folder
        "git log --oneline -3 && cd /tmp",  # git ran before the cd
        "cd ~/elsewhere && git log --oneline -3",  # cannot be placed: taken as the session's own
    ],
)
def test_git_output_of_the_sessions_folder_names_its_commits(command):
    assert not runs_elsewhere(command, "/home/dev/app")
    assert names(extract_refs(session(shell(command, LOG))), "commit") == {"a1b2c3d", "4e5f6a7", "9b8c7d6"}


def test_without_a_folder_every_git_command_is_the_sessions():
    assert not runs_elsewhere("git -C /srv/other log", None)


def test_a_system_notes_example_text_names_no_commit():
    example = "To undo a change, run: git revert c0ffee1 (commit c0ffee1 is an example)."
    assert names(extract_refs(session(msg(example, Kind.SYSTEM))), "commit") == set()
    assert names(extract_refs(session(msg(example))), "commit") == {"c0ffee1"}
