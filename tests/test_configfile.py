"""sessite.toml: every key checked, unknown keys named, command-line options win, include/exclude globs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import EXAMPLE, FIXTURES

from sessite.cli import main
from sessite.config import ConfigFileError, load_config_file, parse_exports, settings_from_dict
from sessite.model import Problems
from sessite.readers import discover


def test_a_full_file_becomes_settings(tmp_path):
    path = tmp_path / "sessite.toml"
    path.write_text("""
title = "Team sessions"
base_url = "https://example.github.io/sessions"
redact = true
redact_allow = ["AKIAIOSFODNN7EXAMPLE"]
include = ["claude-code/**"]
exclude = ["scratch"]
forge_url = "gitlab"
exports = ["markdown", "aics"]

[[redact_patterns]]
kind = "internal-token"
pattern = "itk_[A-Za-z0-9]{32}"
""")
    assert load_config_file(path) == {
        "title": "Team sessions",
        "base_url": "https://example.github.io/sessions/",
        "redact": True,
        "redact_allow": ("AKIAIOSFODNN7EXAMPLE",),
        "include": ("claude-code/**",),
        "exclude": ("scratch",),
        "forge_url": ("gitlab",),
        "exports": ("aics", "markdown"),
        "redact_patterns": (("internal-token", "itk_[A-Za-z0-9]{32}"),),
    }


@pytest.mark.parametrize(
    "data, message",
    [
        ({"titel": "x"}, "unknown key 'titel'"),
        ({"redact": "no"}, "'redact' must be true or false"),
        ({"base_url": "example.com/x"}, "not an absolute http(s) URL"),
        ({"exports": ["pdf"]}, "unknown export format pdf"),
        ({"include": [1]}, "'include' must be a list of glob strings"),
        ({"redact_patterns": [{"kind": "x", "pattern": "a[", "flags": "i"}]}, "unknown key 'redact_patterns[0].flags'"),
        (
            {"redact_patterns": [{"kind": "x", "pattern": "a["}]},
            "'redact_patterns[0]': redaction pattern 'x' is not a valid regular expression",
        ),
        ({"redact_patterns": [{"kind": "x"}]}, "needs a string 'kind' and a string 'pattern'"),
        ({"forge_url": ["https://git.example.com/{nonsense}"]}, "forge_url"),
    ],
)
def test_errors_name_the_key(data, message):
    with pytest.raises(ConfigFileError) as info:
        settings_from_dict(data, "sessite.toml")
    assert str(info.value).startswith("sessite.toml: ") and message in str(info.value)


def test_bad_toml_is_an_error(tmp_path):
    path = tmp_path / "sessite.toml"
    path.write_text("title = \n")
    with pytest.raises(ConfigFileError, match="not valid TOML"):
        load_config_file(path)


@pytest.mark.parametrize(
    "value, expected",
    [
        ("aics,hail,markdown", ("aics", "hail", "markdown")),
        ("none", ()),
        ("all", ("aics", "hail", "markdown")),
        ("Markdown", ("markdown",)),
        (["hail"], ("hail",)),
        ([], ()),
    ],
)
def test_parse_exports(value, expected):
    assert parse_exports(value) == expected


def _archive(tmp_path: Path, config: str | None) -> Path:
    archive = tmp_path / "archive"
    shutil.copytree(EXAMPLE / "hail", archive / "hail")
    shutil.copytree(EXAMPLE / "claude-code", archive / "claude-code")
    if config is not None:
        (archive / "sessite.toml").write_text(config)
    return archive


def _build(args: list[str]):
    return CliRunner().invoke(main, ["build", *args, "-q", "-j", "1"])


def test_build_reads_the_archives_file_and_options_win(tmp_path):
    archive = _archive(tmp_path, 'title = "From the file"\nexports = "markdown"\n')
    result = _build([str(archive), "-o", str(tmp_path / "a"), "--cache-dir", str(tmp_path / "c1")])
    assert result.exit_code == 0, result.output
    assert "From the file" in (tmp_path / "a" / "index.html").read_text()
    sessions = sorted(p.name for p in (tmp_path / "a" / "sessions").iterdir())
    # markdown only (gzip, and its plain twin for agents)
    assert {n.split(".", 1)[1] for n in sessions if not n.endswith(".html")} == {"md.gz", "md"}
    assert {n.rsplit(".", 1)[1] for n in sessions} == {"html", "gz", "md"}

    result = _build(
        [
            str(archive),
            "-o",
            str(tmp_path / "b"),
            "--title",
            "From the command",
            "--exports",
            "none",
            "--cache-dir",
            str(tmp_path / "c2"),
        ]
    )
    assert result.exit_code == 0, result.output
    assert "From the command" in (tmp_path / "b" / "index.html").read_text()
    assert {p.suffix for p in (tmp_path / "b" / "sessions").iterdir()} == {".html"}


def test_the_build_honours_include_and_exclude(tmp_path):
    archive = _archive(tmp_path, 'exclude = ["hail"]\n')
    result = _build([str(archive), "-o", str(tmp_path / "a"), "--cache-dir", str(tmp_path / "c1")])
    assert result.exit_code == 0, result.output
    sessions = sorted(p.name for p in (tmp_path / "a" / "sessions").iterdir())
    assert sessions and all(n.startswith("claude_code-") for n in sessions), sessions


def test_the_build_uses_the_files_redaction_patterns_and_allow_list(tmp_path):
    archive = tmp_path / "archive"
    archive.mkdir()
    hail = [
        {
            "type": "header",
            "version": "hail-1.0.0",
            "session_id": "s1",
            "agent": {"provider": "x", "model": "m", "tool": "codex"},
            "context": {
                "title": "t",
                "tags": [],
                "created_at": "2026-01-02T00:00:00Z",
                "updated_at": "2026-01-02T00:00:00Z",
            },
        },
        {
            "type": "event",
            "event_id": "e1",
            "timestamp": "2026-01-02T00:00:00Z",
            "event_type": {"type": "UserMessage"},
            "content": {"blocks": [{"type": "Text", "text": "itk_0123456789abcdef and AKIAIOSFODNN7EXAMPLE"}]},
        },
    ]
    (archive / "s.hail.jsonl").write_text("\n".join(json.dumps(r) for r in hail) + "\n")
    (archive / "sessite.toml").write_text(
        'redact_allow = ["AKIAIOSFODNN7EXAMPLE"]\n'
        '[[redact_patterns]]\nkind = "internal"\npattern = "itk_[0-9a-f]{16}"\n'
    )
    result = CliRunner().invoke(
        main, ["build", str(archive), "-o", str(tmp_path / "site"), "-j", "1", "--cache-dir", str(tmp_path / "c")]
    )
    assert result.exit_code == 0, result.output
    page = (tmp_path / "site" / "sessions" / "hail-s1.html").read_text()
    assert "[REDACTED:internal]" in page and "itk_0123" not in page and "AKIAIOSFODNN7EXAMPLE" in page
    assert "redacted: internal 1" in result.output


def test_an_unknown_key_stops_the_build(tmp_path):
    archive = _archive(tmp_path, 'colour = "blue"\n')
    result = _build([str(archive), "-o", str(tmp_path / "site")])
    assert result.exit_code != 0 and "unknown key 'colour'" in result.output
    assert not (tmp_path / "site").exists()


def test_config_option_and_bad_cli_values(tmp_path):
    archive = _archive(tmp_path, None)
    other = tmp_path / "other.toml"
    other.write_text('title = "Other"\n')
    result = _build(
        [str(archive), "-o", str(tmp_path / "site"), "--config", str(other), "--cache-dir", str(tmp_path / "c")]
    )
    assert result.exit_code == 0 and "Other" in (tmp_path / "site" / "index.html").read_text()
    assert "unknown export format" in _build([str(archive), "-o", str(tmp_path / "x"), "--exports", "pdf"]).output
    assert (
        "not an absolute http(s) URL"
        in _build([str(archive), "-o", str(tmp_path / "x"), "--base-url", "/relative"]).output
    )


def test_include_and_exclude_globs_filter_discovery(tmp_path):
    root = tmp_path / "archive"
    shutil.copytree(FIXTURES / "hail", root / "hail")
    shutil.copytree(FIXTURES / "cline", root / "cline")
    shutil.copytree(FIXTURES / "codex", root / "deep" / "codex")

    def found(**globs):
        return sorted(c.path.relative_to(root).as_posix() for c in discover(root, Problems(root), **globs).claims)

    everything = found()
    assert found(exclude=["cline"]) == [p for p in everything if not p.startswith("cline")]
    assert found(include=["*.hail.jsonl"]) == sorted(p for p in everything if p.endswith(".hail.jsonl"))
    assert found(include=["deep/**"], exclude=["*damaged*"]) == sorted(
        p for p in everything if p.startswith("deep/") and "damaged" not in p
    )
    assert found(include=["cline/tasks/1735725600000"]) == ["cline/tasks/1735725600000"]
    # an excluded folder source does not turn into loose files
    problems = Problems(root)
    discover(root, problems, exclude=["cline/tasks/1704103200000"])
    assert not any("1704103200000" in str(p) for p in problems.items)


def test_serve_takes_the_config_too(tmp_path, monkeypatch):
    archive = _archive(tmp_path, 'title = "Served"\n')
    seen = {}

    def fake_serve(config, **kwargs):
        seen["config"] = config

    monkeypatch.setattr("sessite.cli.serve.serve", fake_serve)  # the serve command imports serve at module level
    result = CliRunner().invoke(main, ["serve", str(archive), "--exports", "hail"])
    assert result.exit_code == 0, result.output
    assert seen["config"].title == "Served" and seen["config"].exports == ("hail",)
    json.dumps(seen["config"].exports)
