"""What only the output scan saw, standing in the model's text, is healed: the build runs once
more with those values redacted everywhere and publishes, telling one line per value. What a
second build still finds stops the publish, as before; there is never a third build.

The walk's rules are made blind to one prompt here (a field the walk does not see); the values
the settings know (``redact_known``) are still replaced wherever they stand, as in every build.
"""

from __future__ import annotations

import random
import string
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import count_build_runs, scan_site, write_claude_session

import sessite.pipeline.worker as worker
from sessite.analyze.redact import Redactor
from sessite.cli import main
from sessite.config import SiteConfig
from sessite.pipeline import build
from sessite.pipeline.cache import load

_rng = random.Random(28)
_B64 = string.ascii_letters + string.digits + "+/"
ANTHROPIC = "sk-ant-api03-" + "".join(_rng.choice(string.ascii_letters + string.digits) for _ in range(80)) + "AA"
BODY = ["".join(_rng.choice(_B64) for _ in range(64)) for _ in range(6)]
PRIVATE_KEY = "\n".join(["-----BEGIN RSA PRIVATE KEY-----", *BODY, "-----END RSA PRIVATE KEY-----"])
SECOND = "22222222-aaaa-4bbb-8ccc-000000000002"
PAGE = f"sessions/claude_code-{SECOND}.html"


def _archive(root: Path, secret: str) -> Path:
    archive = root / "archive"
    project = archive / "claude-code" / "-home-dev-app"
    write_claude_session(project, "11111111-aaaa-4bbb-8ccc-000000000001", ["Set up the deploy script."])
    write_claude_session(project, SECOND, [f"Use this one for the staging box:\n\n{secret}\n\nthen restart it."])
    return archive


def _blind(secret: str, spread_too: bool) -> type[Redactor]:
    """A redactor whose rules skip the prompt holding ``secret``; with ``spread_too`` the values
    the settings know are not replaced there either (then nothing can heal it)."""

    class Blind(Redactor):
        def text(self, value: str) -> str:
            if secret.split("\n")[1 if "\n" in secret else 0] in value and (spread_too or not self.spreading):
                return value
            return super().text(value)

    return Blind


def _needles(secret: str) -> dict[str, list[str]]:
    if "\n" not in secret:
        return {"secret": [secret[i : i + 12].lower() for i in range(13, len(secret) - 11, 6)]}  # (not sk-ant-api03-)
    pieces = [line for line in secret.split("\n") if "-----" not in line]
    return {"secret": [piece[i : i + 12].lower() for piece in pieces for i in range(0, len(piece) - 11, 6)]}


@pytest.mark.parametrize(
    ("secret", "kind", "preview"),
    [
        (ANTHROPIC, "anthropic-key", f"sk-ant-api03-…[{len(ANTHROPIC) - 13} chars]"),
        (PRIVATE_KEY, "private-key", f"-----BEGIN RSA PRIVATE KEY-----…[{len(PRIVATE_KEY) - 31} chars]"),
    ],
    ids=["anthropic-key", "private-key"],
)
def test_a_value_only_the_output_scan_saw_is_redacted_everywhere(tmp_path, monkeypatch, secret, kind, preview):
    archive = _archive(tmp_path, secret)
    site, cache = tmp_path / "site", tmp_path / "cache"
    monkeypatch.setattr(worker, "Redactor", _blind(secret, spread_too=False))
    runs = count_build_runs(monkeypatch)
    result = CliRunner().invoke(
        main, ["build", str(archive), "-o", str(site), "-q", "-j", "1", "--cache-dir", str(cache)]
    )
    assert result.exit_code == 0, result.output
    assert len(runs) == 2 and runs[0] == ()  # the first build stopped at its scan; the second knew the values
    line = f"{PAGE}: {kind} found only by the output scan ({preview}); redacted everywhere and built again"
    assert line in result.output.splitlines()
    assert not any(piece in result.output.lower() for piece in _needles(secret)["secret"])
    assert scan_site(site, _needles(secret)) == {}  # no piece of it in any file, any file name
    page = (site / PAGE).read_text("utf-8")
    assert "[REDACTED:" in page and "then restart it." in page  # the prompt is there, the value is not
    assert {value for value, _ in load(cache / "build.pickle").known} <= set(secret.split("\n")) | {secret}

    runs.clear()  # the cache remembers them: the next build redacts them in one pass
    (archive / "claude-code" / "-home-dev-app" / "note.txt").write_text("unrelated", "utf-8")
    report = build(SiteConfig(archive=archive, output=site, jobs=1, cache_dir=cache))
    assert report.published and not report.leaks and len(runs) == 1 and runs[0]


def test_what_a_second_build_still_finds_stops_the_publish(tmp_path, monkeypatch):
    archive = _archive(tmp_path, ANTHROPIC)
    site = tmp_path / "site"
    assert build(SiteConfig(archive=archive, output=site, jobs=1, cache_dir=tmp_path / "cache")).published
    before = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    (archive / "claude-code" / "-home-dev-app" / "note.txt").write_text("unrelated", "utf-8")
    monkeypatch.setattr(worker, "Redactor", _blind(ANTHROPIC, spread_too=True))
    runs = count_build_runs(monkeypatch)
    report = build(SiteConfig(archive=archive, output=site, jobs=1, cache_dir=tmp_path / "cache", clean=True))
    assert not report.published and len(runs) == 2  # tried once more, then stopped: never a third
    assert f"{PAGE}: anthropic-key (sk-ant-api03-…[{len(ANTHROPIC) - 13} chars])" in report.leaks
    assert report.leaks[-1].startswith("error: ") and "nothing was published" in report.leaks[-1]
    assert not any("built again" in str(problem) for problem in report.problems)
    assert {p: p.read_bytes() for p in site.rglob("*") if p.is_file()} == before


def test_a_finding_with_nothing_to_look_for_stops_at_once(tmp_path, monkeypatch):
    """A value the page shows but no redaction could look for (a short one, here a user pattern's
    match) is not healed: one build, stopped."""
    archive = _archive(tmp_path, "the code is QZ-417")
    monkeypatch.setattr(worker, "Redactor", _blind("QZ-417", spread_too=True))
    runs = count_build_runs(monkeypatch)
    config = SiteConfig(archive=archive, output=tmp_path / "site", jobs=1, redact_patterns=(("ticket", r"QZ-\d+"),))
    report = build(config)
    assert not report.published and len(runs) == 1
    assert any(line.startswith(f"{PAGE}: ticket") for line in report.leaks)
