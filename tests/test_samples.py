"""The team's real samples (../shared/formats/samples), one folder per format.

Each folder is claimed by its own reader and no other, read without a problem, and built
into one page per session. What a format's samples hold in detail is tested beside its
reader (tests/test_reader_*.py). Everything here skips when ../shared is absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import assert_claimed_by_folder_reader, build_site, claimed_files, discover_cleanly, files_under

from sessite.model import Problems, Session

# sample folder -> (the reader that owns it, the sessions it holds)
SAMPLE_FOLDERS: dict[str, tuple[str, int]] = {
    "aics": ("aics", 1),
    "claude_ai_export": ("claude_ai", 2),
    "claude_code": ("claude_code", 7),
    "codex": ("codex", 2),
    "cursor": ("cursor", 1),
    "gemini": ("gemini", 3),
    "hail": ("hail", 3),
    "opencode": ("opencode", 2),
}


@pytest.fixture(params=sorted(SAMPLE_FOLDERS))
def folder(request: pytest.FixtureRequest, samples: Path) -> Path:
    """One format's sample folder (each test runs once per folder)."""
    path = samples / request.param
    if not path.is_dir():
        pytest.skip(f"no {request.param} samples")
    return path


def read_folder(folder: Path) -> list[Session]:
    """Every session of a sample folder, as discovery and its readers see it (asserting no problem)."""
    problems = Problems(folder)
    sessions: list[Session] = []
    for claim in discover_cleanly(folder).claims:
        read = list(claim.read(problems))  # with the files grouped with it (Reader.session_key)
        assert read, f"{claim.path.name}: no session"
        sessions.extend(read)
    assert not problems.items, [str(p) for p in problems.items]
    return sessions


def test_every_sample_folder_has_a_known_format(samples: Path) -> None:
    assert sorted(p.name for p in samples.iterdir()) == sorted(SAMPLE_FOLDERS)


def test_each_sample_file_is_claimed_by_exactly_one_reader(samples: Path) -> None:
    """Over all the samples at once: each file is its folder's reader's, and no other reader detects it."""
    assert_claimed_by_folder_reader(samples, {name: reader for name, (reader, _) in SAMPLE_FOLDERS.items()})


def test_a_sample_folder_alone_is_all_claimed_by_its_reader(folder: Path) -> None:
    reader, _ = SAMPLE_FOLDERS[folder.name]
    found = discover_cleanly(folder)
    assert not found.ignored
    assert {claim.reader.name for claim in found.claims} == {reader}
    assert claimed_files(found.claims) == dict.fromkeys(files_under(folder), reader)


def test_a_sample_folder_is_read_without_problems(folder: Path) -> None:
    _, count = SAMPLE_FOLDERS[folder.name]
    sessions = read_folder(folder)
    assert len(sessions) == len({s.id for s in sessions}) == count


def test_a_sample_folder_builds_a_page_per_session(folder: Path, tmp_path: Path) -> None:
    _, count = SAMPLE_FOLDERS[folder.name]
    sessions = read_folder(folder)
    report = build_site(folder, tmp_path / "site")
    assert report.published
    assert [str(p) for p in report.problems] == []
    assert report.sessions == len(sessions) == count
    for session in sessions:
        assert (tmp_path / "site" / "sessions" / f"{session.id}.html").is_file(), session.id


def test_all_samples_build_into_one_site_without_a_crash(samples: Path, tmp_path: Path) -> None:
    report = build_site(samples, tmp_path / "site")
    assert report.published
    crashes = [str(p) for p in report.problems if "reader failed" in p.message or p.stage == "render"]
    assert crashes == []
    pages = list((tmp_path / "site" / "sessions").glob("*.html"))
    assert len(pages) == report.sessions == sum(count for _, count in SAMPLE_FOLDERS.values())
