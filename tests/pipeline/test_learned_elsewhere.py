"""A secret known by its context in one session is redacted where another session repeats it bare:
the build sees it in the other's page, builds again knowing it, and its cache remembers it."""

from __future__ import annotations

from pathlib import Path

from helpers import count_build_runs, parse_html, scan_site, write_claude_session

import sessite.pipeline.pipeline as pipeline
from sessite.analyze.redact import learned
from sessite.config import SiteConfig
from sessite.pipeline import build

PASSWORD = "Vq7-plover-Zk2x!"  # no shape of its own: only `DB_PASSWORD=` says what it is
OTHER = "Hd4-quartz-Mw9p?"  # never in a credential context: stays as written


def _archive(root: Path) -> Path:
    archive = root / "archive"
    project = archive / "claude-code" / "-home-dev-app"
    write_claude_session(
        project, "11111111-aaaa-4bbb-8ccc-000000000001", [f"Add this to .env:\nDB_PASSWORD={PASSWORD}\n"]
    )
    write_claude_session(
        project,
        "22222222-aaaa-4bbb-8ccc-000000000002",
        [f"The staging login still fails with {PASSWORD} as the password, and {OTHER} is the build tag."],
    )
    return archive


def _site_text(site: Path) -> str:
    return "\n".join(
        p.read_text("utf-8", "replace")
        for p in site.rglob("*")
        if p.is_file() and p.suffix in {".html", ".js", ".json"}
    )


def test_a_secret_learnt_in_one_session_is_redacted_in_another(tmp_path):
    archive = _archive(tmp_path)
    site, cache = tmp_path / "site", tmp_path / "cache"
    report = build(SiteConfig(archive=archive, output=site, jobs=1, cache_dir=cache))
    assert report.published and not report.leaks
    text = _site_text(site)
    assert PASSWORD not in text
    assert OTHER in text  # never learnt anywhere: ordinary text stays as written
    second = (site / "sessions" / "claude_code-22222222-aaaa-4bbb-8ccc-000000000002.html").read_text("utf-8")
    assert "[REDACTED:" in second and "still fails with" in second
    told = [str(problem) for problem in report.problems if "built again" in problem.message]
    assert told == [
        "sessions/claude_code-22222222-aaaa-4bbb-8ccc-000000000002.html: secret-assignment redacted in another "
        f"session, bare here (…[{len(PASSWORD)} chars]); redacted everywhere and built again"
    ]


def test_the_cache_remembers_it_and_a_build_without_it_would_have_leaked(tmp_path, monkeypatch):
    archive = _archive(tmp_path)
    site, cache = tmp_path / "site", tmp_path / "cache"
    assert build(SiteConfig(archive=archive, output=site, jobs=1, cache_dir=cache)).published
    runs = count_build_runs(monkeypatch)
    (archive / "claude-code" / "-home-dev-app" / "note.txt").write_text("unrelated", "utf-8")
    report = build(SiteConfig(archive=archive, output=site, jobs=1, cache_dir=cache))
    assert report.published and PASSWORD not in _site_text(site)
    assert [[value for value, _ in known] for known in runs] == [[PASSWORD]]  # one run, knowing it from the start

    # With the learning turned off, the other session's page would publish it: the scan is what catches it.
    runs.clear()
    monkeypatch.setattr(pipeline.learned_elsewhere, "spread", lambda config, leaks: None)
    clean = build(SiteConfig(archive=archive, output=tmp_path / "site2", jobs=1, cache_dir=tmp_path / "cache2"))
    assert not clean.published
    assert any("redacted in another session" in line for line in clean.leaks)
    assert all(PASSWORD not in line for line in clean.leaks)


# Values with no shape: only `DB_PASSWORD=` in their own session says what they are.
TAUGHT = ("Qz7wXk2mPv9L", "Hm3TqLw8rY5c", "Tc5nJp4WqB8xKd2R")


def test_every_learnt_value_is_known_past_one_sources_cap_in_ids_and_titles(tmp_path, monkeypatch):
    """Each source may learn only so many values (``learned._MAX_VALUES``); what the whole archive
    learnt is not one source's learning: all of it is looked for and redacted, in prose, in a
    title cut across the value and in a session id (whose page and file names are derived from it)."""
    monkeypatch.setattr(learned, "_MAX_VALUES", 2)  # (the archive learns 3: one more than the cap)
    archive = tmp_path / "archive"
    project = archive / "claude-code" / "-home-dev-app"
    for n, value in enumerate(TAUGHT, 1):
        write_claude_session(
            project, f"{n}1111111-aaaa-4bbb-8ccc-00000000000{n}", [f"Add this to .env:\nDB_PASSWORD={value}\n"]
        )
    filler = ("please look at the deployment settings of the staging pipeline again " * 2)[:95]
    bare = f"run-{TAUGHT[2]}"  # (the id: `claude_code-run-<value>`, the value bare in it)
    write_claude_session(project, bare, [f"{filler} {TAUGHT[1]} and then {TAUGHT[0]} was the other one."])
    site = tmp_path / "site"
    report = build(SiteConfig(archive=archive, output=site, jobs=1, cache_dir=tmp_path / "cache"))
    assert report.published and not report.leaks

    pieces = {value: [value[i : i + 8].lower() for i in range(len(value) - 7)] for value in TAUGHT}
    assert scan_site(site, pieces) == {}  # no 8 characters of any, in any file or file name
    pages = sorted((site / "sessions").glob("claude_code-run-*.html"))
    assert len(pages) == 1, sorted(p.name for p in (site / "sessions").iterdir())
    text = parse_html(pages[0]).get_text(" ")
    assert "[REDACTED:" in text and "was the other one" in text
