"""Incremental builds: unchanged means untouched; a change rewrites what depends on it, only that."""

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ALL_EXPORTS, EXAMPLE

from sessite.cli import main
from sessite.config import SiteConfig
from sessite.pipeline import build


def files(site: Path) -> dict[str, tuple[int, int]]:
    """url -> (inode, mtime_ns): a rewritten file changes at least one of them."""
    out = {}
    for p in site.rglob("*"):
        if p.is_file():
            st = p.stat()
            out[p.relative_to(site).as_posix()] = (st.st_ino, st.st_mtime_ns)
    return out


@pytest.fixture
def setup(tmp_path):
    archive = tmp_path / "archive"
    shutil.copytree(EXAMPLE, archive)
    config = SiteConfig(
        archive=archive, output=tmp_path / "site", cache_dir=tmp_path / "cache", progress=False, exports=ALL_EXPORTS
    )
    return archive, config


def run(config, **changes):
    from dataclasses import replace

    return build(replace(config, **changes) if changes else config)


def test_nothing_changed_writes_nothing(setup):
    archive, config = setup
    first = run(config)
    assert first.changed and first.reused == 0
    before = files(config.output)
    second = run(config)
    assert not second.changed and second.reused == second.files
    assert files(config.output) == before
    assert "already up to date" in second.summary_line()
    assert second.sessions == first.sessions and [str(p) for p in second.problems] == [str(p) for p in first.problems]


def test_touch_without_change_is_still_a_noop(setup):
    archive, config = setup
    run(config)
    before = files(config.output)
    target = next(archive.rglob("*.aics.json"))
    os.utime(target, None)
    report = run(config)
    assert not report.changed and files(config.output) == before


def test_a_changed_session_rewrites_its_page_and_the_aggregates_only(setup):
    archive, config = setup
    run(config)
    before = files(config.output)
    target = archive / "aics" / "rate-limiter.aics.json"
    doc = json.loads(target.read_text())
    doc["log"]["sessions"][0]["messages"].append(
        {
            "id": "m7",
            "role": "user",
            "timestamp": "2026-10-14T09:45:00Z",
            "content": [{"type": "text", "text": "One more thing: zebra-unicorn"}],
        }
    )
    target.write_text(json.dumps(doc))
    report = run(config)
    assert report.changed and report.reused == report.files - 1
    after = files(config.output)
    changed = {url for url in after if after[url] != before.get(url)}
    page = "sessions/aics-01927a3e-5b1c-7def-8123-456789abcdef.html"
    assert page in changed and "index.html" in changed
    assert "zebra-unicorn" in (config.output / page).read_text()
    assert {page[: -len(".html")] + s for s in (".aics.json.gz", ".hail.jsonl.gz", ".md.gz")} <= changed, (
        "its downloads follow"
    )
    other_pages = {u for u in changed if u.startswith("sessions/") and not u.startswith("sessions/aics-01927a3e")}
    assert other_pages == set(), "other sessions' pages are untouched"
    assert not {u for u in changed if u.startswith("static/")}


def test_a_deleted_source_removes_its_pages(setup):
    archive, config = setup
    run(config)
    assert (config.output / "sessions" / "aics-01927a3e-5b1c-7def-8123-456789abcdef.html").exists()
    (archive / "aics" / "rate-limiter.aics.json").unlink()
    run(config)
    assert not (config.output / "sessions" / "aics-01927a3e-5b1c-7def-8123-456789abcdef.html").exists()
    assert "aics-01927a3e" not in (config.output / "index.html").read_text()


def test_a_changed_template_or_setting_rerenders_everything(setup, tmp_path):
    archive, config = setup
    run(config)
    before = files(config.output)
    report = run(config, title="Another title")
    assert report.reused == 0
    after = files(config.output)
    assert all(after[u] != before[u] for u in after if u.startswith("sessions/") and u.endswith(".html"))
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "404.html").write_text("{% extends 'base.html' %}{% block main %}custom missing{% endblock %}")
    run(config, title="Another title", template_dirs=(templates,))
    assert "custom missing" in (config.output / "404.html").read_text()
    (templates / "404.html").write_text("{% extends 'base.html' %}{% block main %}edited again{% endblock %}")
    report = run(config, title="Another title", template_dirs=(templates,))
    assert report.reused == 0 and "edited again" in (config.output / "404.html").read_text()


def test_clean_ignores_the_cache(setup):
    archive, config = setup
    run(config)
    report = run(config, clean=True)
    assert report.reused == 0 and not report.changed  # same bytes: still nothing to publish


def test_unchanged_sessions_keep_their_gzip_exports(setup):
    """Rendered and compressed again (--clean), the same session gives the same .gz bytes: nothing is rewritten."""
    archive, config = setup
    run(config)
    exports = sorted(u for u in files(config.output) if u.startswith("sessions/") and u.endswith(".gz"))
    assert len(exports) == 3 * len(list((config.output / "sessions").glob("*.html"))) > 0
    data = {u: (config.output / u).read_bytes() for u in exports}
    before = files(config.output)
    report = run(config, clean=True)
    assert report.reused == 0 and not report.changed
    assert {u: (config.output / u).read_bytes() for u in exports} == data
    after = files(config.output)
    assert {u: after[u] for u in exports} == {u: before[u] for u in exports}


def test_a_corrupt_cache_means_a_full_build(setup):
    archive, config = setup
    run(config)
    (config.cache_dir / "build.pickle").write_bytes(b"\x80\x04garbage")
    for item in (config.cache_dir / "items").glob("*"):
        item.write_bytes(b"not a pickle")
    report = run(config)
    assert report.published and report.reused == 0 and report.problems == []


def test_cache_lives_outside_input_and_site(setup):
    archive, config = setup
    run(config, cache_dir=None)
    for folder in (archive, config.output):
        assert not [p for p in folder.rglob("*") if "pickle" in p.name]
    unsafe = run(config, cache_dir=config.output / "cache")
    assert not (config.output / "cache").exists() and unsafe.published


def test_problems_are_reported_again_when_nothing_changed(setup):
    archive, config = setup
    (archive / "broken.jsonl").write_text(
        '{"type":"user","sessionId":"x","uuid":"u","message":{"role":"user","content":"hi"}}\n{bad\n'
    )
    first = run(config)
    second = run(config)
    assert [str(p) for p in second.problems] == [str(p) for p in first.problems] and first.problems


def test_cli_clean_flag(setup):
    archive, config = setup
    args = ["build", str(archive), "-o", str(config.output), "--cache-dir", str(config.cache_dir)]
    assert CliRunner().invoke(main, args).exit_code == 0
    again = CliRunner().invoke(main, args)
    assert "unchanged" in again.stdout and "already up to date" in again.stdout
    clean = CliRunner().invoke(main, [*args, "--clean"])
    assert "unchanged" not in clean.stdout


def test_parallel_build_is_identical_to_serial(tmp_path, monkeypatch):
    import sessite.pipeline.pipeline as build_module

    monkeypatch.setattr(build_module, "PARALLEL_MIN_BYTES", 0)
    serial = build(
        SiteConfig(archive=EXAMPLE, output=tmp_path / "one", cache_dir=tmp_path / "c1", jobs=1, progress=False)
    )
    parallel = build(
        SiteConfig(archive=EXAMPLE, output=tmp_path / "two", cache_dir=tmp_path / "c2", jobs=2, progress=False)
    )
    assert serial.sessions == parallel.sessions and [str(p) for p in serial.problems] == [
        str(p) for p in parallel.problems
    ]
    one, two = tmp_path / "one", tmp_path / "two"
    names = sorted(p.relative_to(one).as_posix() for p in one.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(two).as_posix() for p in two.rglob("*") if p.is_file())
    for name in names:
        assert (one / name).read_bytes() == (two / name).read_bytes(), name


def test_damaged_cache_items_render_that_source_again(setup):
    archive, config = setup
    first = run(config)
    target = archive / "aics" / "rate-limiter.aics.json"
    target.write_text(target.read_text().replace("Rate limiter", "Rate limiter v2"))
    for item in (config.cache_dir / "items").glob("*.pickle"):
        item.write_bytes(b"garbage")
    report = run(config)
    assert report.sessions == first.sessions and report.problems == first.problems
    assert len((config.output / "index.html").read_text().split("<tr data-agent")) - 1 == first.sessions


def test_deferred_aggregates_keep_their_files_until_the_next_build(setup):
    archive, config = setup
    run(config)
    target = archive / "aics" / "rate-limiter.aics.json"
    target.write_text(target.read_text().replace("Rate limiter", "Speed limiter"))
    quick = build(config, defer=frozenset({"search", "refs", "insights"}))
    assert set(quick.deferred) and "index.html" in quick.changed_urls
    assert not any(u.startswith("search/") for u in quick.changed_urls)
    assert "Speed limiter" in (config.output / "index.html").read_text()
    full = run(config)
    assert full.deferred == [] and any(u.startswith("search/") for u in full.changed_urls)
    assert run(config).changed is False
