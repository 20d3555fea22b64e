"""No secret survives anywhere in the built site: pages, search index, exports, feed, sitemap, file names.

Secrets of every kind are planted in every field of every format
(``secrets_archive``); the site is built with exports, feed and sitemap on;
then every byte of every file (and every file name) is scanned for each
secret's random part and for any 12 characters of it; a gzip file (the
exports) is scanned both as stored and decompressed. Built again with
redaction off, the same scan must find every secret, so the test can fail.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import ALL_EXPORTS, build_site, scan_site
from secrets_archive import CORES, write

WINDOW = 12


def _needles(core: str) -> list[str]:
    lines = [line for line in core.lower().split("\n") if line]
    out = []
    for line in lines:
        if len(line) <= WINDOW:
            out.append(line)
        else:
            out += [line[i : i + WINDOW] for i in range(0, len(line) - WINDOW + 1)]
    return out


NEEDLES = {label: _needles(core) for label, core in CORES.items()}


def scan(site: Path) -> dict[str, list[str]]:
    """label -> files (and names) where a piece of that secret was found."""
    return scan_site(site, NEEDLES)


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> Path:
    return write(tmp_path_factory.mktemp("planted") / "archive")


@pytest.fixture(scope="module")
def redacted_site(planted, tmp_path_factory):
    out = tmp_path_factory.mktemp("planted-site") / "site"
    report = build_site(
        planted,
        out,
        exports=ALL_EXPORTS,
        base_url="https://example.github.io/sessions/",
        jobs=1,
        cache_dir=out.parent / "cache",
    )
    assert report.published, report.problems[:5]
    return report, out


def test_the_archive_holds_every_format(planted):
    from sessite.model import Problems
    from sessite.readers import discover

    formats = {claim.reader.name for claim in discover(planted, Problems()).claims}
    assert formats >= {
        "aics",
        "claude_code",
        "hail",
        "claude_ai",
        "sage",
        "codex",
        "gemini",
        "opencode",
        "cline",
        "amp",
        "cursor",
    }


def test_no_secret_survives_anywhere_in_the_site(redacted_site):
    report, site = redacted_site
    files = [p for p in site.rglob("*") if p.is_file()]
    kinds = {p.name.split(".", 1)[1] for p in (site / "sessions").iterdir() if "." in p.name}
    assert {"html", "aics.json.gz", "hail.jsonl.gz", "md.gz", "md"} <= kinds, "the exports must be in the scanned site"
    assert (
        (site / "feed.xml").is_file()
        and (site / "llms.txt").is_file()
        and (site / "sitemap.xml").is_file()
        and any(p.parts[-2] == "f" or "search" in p.parts for p in files)
    )
    leaks = scan(site)
    assert not leaks, "secrets survived: " + "; ".join(
        f"{label} in {', '.join(where[:5])}" for label, where in leaks.items()
    )
    assert report.sessions > 60
    assert sum(report.redactions.values()) > 1000


def test_every_kind_is_counted_in_the_summary(redacted_site):
    report, _ = redacted_site
    expected = {
        "anthropic-key",
        "openai-key",
        "aws-access-key",
        "aws-secret-key",
        "github-token",
        "slack-token",
        "slack-webhook",
        "google-api-key",
        "jwt",
        "bearer-token",
        "authorization-header",
        "private-key",
        "secret-assignment",
        "url-password",
        "gitlab-token",
        "huggingface-token",
        "npm-token",
        "stripe-key",
        "credit-card",
        "us-ssn",
    }
    assert expected <= set(report.redactions), sorted(expected - set(report.redactions))


def test_without_redaction_every_secret_is_found(planted, tmp_path):
    """The scan can fail: with --no-redact every planted secret is there."""
    out = tmp_path / "site"
    report = build_site(
        planted,
        out,
        exports=ALL_EXPORTS,
        base_url="https://example.github.io/sessions/",
        redact=False,
        jobs=1,
        cache_dir=tmp_path / "cache",
    )
    assert report.published and not report.redactions
    found = scan(out)
    assert set(found) == set(CORES), sorted(set(CORES) - set(found))
    # in every kind of output, not just the pages
    for suffix in (".html", ".aics.json.gz", ".hail.jsonl.gz", ".md.gz"):
        assert any(f.endswith(suffix) for f in found["github-classic"]), suffix


def test_convert_redacts_by_default(planted, tmp_path):
    from click.testing import CliRunner

    from sessite.cli import main

    for fmt in ("aics", "hail", "markdown"):
        out = tmp_path / fmt
        result = CliRunner().invoke(main, ["convert", str(planted / "typed"), "--to", fmt, "-o", str(out)])
        assert result.exit_code == 0, result.output
        assert "secrets redacted" in result.output
        assert not scan(out), fmt
    result = CliRunner().invoke(
        main, ["convert", str(planted / "typed"), "--to", "aics", "-o", str(tmp_path / "raw"), "--no-redact"]
    )
    assert result.exit_code == 0 and scan(tmp_path / "raw")
