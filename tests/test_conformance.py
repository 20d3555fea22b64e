"""Every real sample is claimed by exactly one reader and builds into pages without a crash."""

from pathlib import Path

from conftest import EXAMPLE, build_site

from sitegen.model import Problems
from sitegen.readers import discover, registry


def claims_by_file(root: Path):
    found = discover(root, Problems(root))
    owner: dict[Path, str] = {}
    for claim in found.claims:
        for path in [claim.path, *claim.companions]:
            files = [p for p in path.rglob("*") if p.is_file()] if path.is_dir() else [path]
            for f in files:
                assert f not in owner or owner[f] == claim.reader.name, (
                    f"{f} claimed by {owner[f]} and {claim.reader.name}"
                )
                owner[f] = claim.reader.name
    return found, owner


def test_each_sample_file_is_claimed_by_exactly_one_reader(samples):
    found, owner = claims_by_file(samples)
    unclaimed = sorted(str(p.relative_to(samples)) for p in samples.rglob("*") if p.is_file() and p not in owner)
    assert unclaimed == [], f"files no reader claims: {unclaimed}"
    for path in owner:
        if path.is_file():
            detected = [r.name for r in registry() if not r.claims_directories and r.detect_path(path)]
            assert len(detected) <= 1, f"{path.name} detected by {detected}"


def test_example_archive_files_are_each_claimed_once():
    _, owner = claims_by_file(EXAMPLE)
    unclaimed = sorted(str(p.relative_to(EXAMPLE)) for p in EXAMPLE.rglob("*") if p.is_file() and p not in owner)
    assert unclaimed == []


def test_all_samples_build_without_a_crash(samples, tmp_path):
    report = build_site(samples, tmp_path / "site")
    assert report.published
    crashes = [str(p) for p in report.problems if "reader failed" in p.message or p.stage == "render"]
    assert crashes == []
    pages = list((tmp_path / "site" / "sessions").glob("*.html"))
    assert len(pages) == report.sessions >= 20
