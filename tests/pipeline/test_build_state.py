"""Issue 30: what the build cache knows and who may read it. A source is stamped before it is
read, so lines appended while a build reads it are published by the next build (stamped after,
they never were); the cache is private (0600 files, 0700 folders) and sealed, so a planted
pickle never runs."""

from __future__ import annotations

import json
import os
import pickle
import stat
from pathlib import Path

import pytest

from sessite.config import SiteConfig
from sessite.pipeline import build, sealed, worker

SID = "11111111-2222-4333-8444-555555555555"


def line(n: int, text: str) -> str:
    return json.dumps(
        {
            "parentUuid": f"u-{n - 1}" if n else None,
            "cwd": "/home/dev/shop",
            "sessionId": SID,
            "type": "user",
            "message": {"role": "user", "content": text},
            "uuid": f"u-{n}",
            "timestamp": f"2026-10-01T10:00:0{n}.000Z",
        }
    )


def test_lines_appended_during_a_read_are_published_next_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    archive = tmp_path / "archive"
    archive.mkdir()
    source = archive / f"{SID}.jsonl"
    source.write_text(line(0, "the first prompt") + "\n")
    config = SiteConfig(archive=archive, output=tmp_path / "site", cache_dir=tmp_path / "cache", progress=False, jobs=1)
    original = worker.SourceWorker.run

    def run_then_append(self: worker.SourceWorker, task: worker.SourceTask) -> worker.SourceResult:
        result = original(self, task)
        with open(source, "a") as fh:  # the agent writes on while the build renders
            fh.write(line(1, "appendedwhilereading") + "\n")
        return result

    monkeypatch.setattr(worker.SourceWorker, "run", run_then_append)
    build(config)
    monkeypatch.setattr(worker.SourceWorker, "run", original)
    pages = "".join(p.read_text() for p in (tmp_path / "site").rglob("sessions/*.html"))
    assert "appendedwhilereading" not in pages  # not read this time: fine
    second = build(config)
    assert second.reused == 0
    pages = "".join(p.read_text() for p in (tmp_path / "site").rglob("sessions/*.html"))
    assert "appendedwhilereading" in pages
    assert build(config).reused == 1  # and then it is unchanged


def _simple_archive(tmp_path: Path) -> SiteConfig:
    archive = tmp_path / "archive"
    archive.mkdir()
    (archive / f"{SID}.jsonl").write_text(line(0, "the first prompt") + "\n")
    return SiteConfig(archive=archive, output=tmp_path / "site", cache_dir=tmp_path / "cache", progress=False, jobs=1)


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_the_cache_is_private(tmp_path: Path) -> None:
    config = _simple_archive(tmp_path)
    (tmp_path / "cache").mkdir(mode=0o755)
    build(config)
    found = [tmp_path / "cache", *(tmp_path / "cache").rglob("*")]
    assert len(found) >= 4  # the folder, its key, build.pickle, items/ and a file in it
    for path in found:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode == (0o700 if path.is_dir() else 0o600), f"{path}: {oct(mode)}"


class _Planted:
    """Unpickling this runs code: what a hostile cache file does."""

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, ("touch planted-ran",))


def test_a_planted_pickle_never_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = _simple_archive(tmp_path)
    build(config)
    cache = tmp_path / "cache"
    for path in [cache / "build.pickle", *(cache / "items").glob("*.pickle")]:
        path.write_bytes(pickle.dumps(_Planted()))
    again = build(config)
    assert not (tmp_path / "planted-ran").exists()
    assert again.sessions == 1 and again.reused == 0  # the cache was not trusted: a full build
    assert build(config).reused == 1  # and the next one is incremental again


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_a_key_others_could_have_written_is_not_trusted(tmp_path: Path) -> None:
    config = _simple_archive(tmp_path)
    build(config)
    key = tmp_path / "cache" / sealed.KEY_NAME
    sealed._KEYS.clear()
    key.chmod(0o644)
    report = build(config)
    assert report.reused == 0
    assert any("could not save the build cache" in p.message for p in report.problems)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown needs root")
def test_files_another_user_put_in_the_cache_are_never_used(tmp_path: Path) -> None:
    """Jinja's compiled templates are code: one another user planted is removed, not loaded;
    a key of theirs is not trusted."""
    config = _simple_archive(tmp_path)
    build(config)
    cache = tmp_path / "cache"
    planted = cache / "templates" / "__jinja2_planted.cache"
    planted.write_bytes(b"not ours")
    os.chown(planted, 65534, 65534)
    sealed._KEYS.clear()
    os.chown(cache / sealed.KEY_NAME, 65534, 65534)
    report = build(config)
    assert not planted.exists()
    assert report.reused == 0 and any("could not save the build cache" in p.message for p in report.problems)
