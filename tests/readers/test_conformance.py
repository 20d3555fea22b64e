"""Every file of the example archive and of tests/fixtures is claimed by exactly one reader:
the one its folder is named for. (The shared samples: tests/test_samples.py.)
"""

from __future__ import annotations

from helpers import EXAMPLE, FIXTURES, assert_claimed_by_folder_reader

from sessite.readers import registry

EXAMPLE_FOLDERS = {
    "aics": "aics",
    "amp": "amp",
    "claude-ai": "claude_ai",
    "claude-code": "claude_code",
    "cline": "cline",
    "codex": "codex",
    "cursor": "cursor",
    "gemini": "gemini",
    "hail": "hail",
    "opencode": "opencode",
    "sage": "sage",
}

# Files under tests/fixtures that are not sessions, and why they are there.
FIXTURE_NON_SESSIONS = {
    "cursor/make_fixture.py": "the script that writes the Cursor state.vscdb fixtures",
    "opencode/opencode.sql": "the SQL the OpenCode tests load into a fresh opencode.db",
}


def test_each_example_archive_file_is_claimed_by_exactly_one_reader() -> None:
    assert sorted(p.name for p in EXAMPLE.iterdir()) == sorted(EXAMPLE_FOLDERS)
    assert_claimed_by_folder_reader(EXAMPLE, EXAMPLE_FOLDERS)


def test_each_fixture_file_is_claimed_by_exactly_one_reader() -> None:
    """A fixture folder is named for the reader its files are for."""
    readers = {r.name: r.name for r in registry()}
    assert {p.name for p in FIXTURES.iterdir()} <= set(readers)
    assert_claimed_by_folder_reader(FIXTURES, readers, FIXTURE_NON_SESSIONS)
