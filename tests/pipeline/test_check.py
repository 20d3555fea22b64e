"""``sessite check ARCHIVE``: what a build would redact (kind, path:line, masked preview,
counts), whether its output scan would pass, exit codes, --json, and the settings it honours."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import EXAMPLE
from secret_fakes import alnum

import sessite.pipeline.worker as worker
from sessite.analyze.redact import Redactor
from sessite.analyze.redact.allow import digest
from sessite.analyze.redact.findings import mask, text_differences
from sessite.cli import main

SOURCE = "claude-code/-home-dev-webapp/7b3e9a52-4c1d-4f8e-9a2b-1d6c5e8f0a34.jsonl"
CLAUDE = "claude_code-7b3e9a52-4c1d-4f8e-9a2b-1d6c5e8f0a34"
KEY = f"sk-ant-api03-{alnum(40)}-{alnum(20)}"
GHP = f"ghp_{alnum(36)}"
PASSWORD = f"Pw{alnum(14)}7"


def _check(*args: str):
    return CliRunner().invoke(main, ["check", *args, "-j", "1"])


@pytest.fixture
def planted(tmp_path: Path) -> tuple[Path, dict[str, int]]:
    """The example archive with a key in a prompt, a token and a password in a Bash command;
    returns the archive and the line each was planted on."""
    archive = tmp_path / "archive"
    shutil.copytree(EXAMPLE, archive)
    path = archive / SOURCE
    lines = path.read_text("utf-8").splitlines()
    prompt = next(i for i, line in enumerate(lines) if '"type":"user"' in line and '"content":"' in line)
    lines[prompt] = lines[prompt].replace('"content":"', f'"content":"use {KEY} here. ', 1)
    bash = next(i for i, line in enumerate(lines) if '"name":"Bash"' in line and '"command":"' in line)
    lines[bash] = lines[bash].replace('"command":"', f'"command":"GH_TOKEN={GHP} DB_PASSWORD={PASSWORD} ', 1)
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return archive, {"prompt": prompt + 1, "bash": bash + 1}


def test_a_clean_archive_exits_0():
    result = _check(str(EXAMPLE))
    assert result.exit_code == 0, result.output
    assert result.output.strip().splitlines()[-1] == "checked 13 sessions from 11 files: nothing would be redacted"


def test_planted_secrets_are_listed_with_where_and_a_masked_preview(planted):
    archive, at = planted
    result = _check(str(archive))
    assert result.exit_code == 1
    listing = result.output.strip().splitlines()
    lines = [re.sub(r"^\[\d+\] ", "", line) for line in listing if not line.startswith("      ")]
    # Each finding is numbered, with its line below it, only the value masked (the others are markers).
    assert f"      GH_TOKEN=[REDACTED:github-token] DB_PASSWORD=«…[{len(PASSWORD)} chars]» pytest" in "\n".join(listing)
    assert f"{SOURCE}:{at['prompt']}: anthropic-key sk-ant-api03-…[61 chars] (events[0].text)" in lines
    bash = [line for line in lines if line.startswith(f"{SOURCE}:{at['bash']}: ")]
    kinds = sorted(line.split(": ", 1)[1].split(" ", 1)[0] for line in bash)
    assert "github-token" in kinds and "secret-assignment" in kinds
    assert any("github-token ghp_…[36 chars] " in line for line in bash)
    assert any(f"secret-assignment …[{len(PASSWORD)} chars] " in line for line in bash)
    for secret in (KEY, GHP, PASSWORD):
        assert secret not in result.output and secret[-12:] not in result.output
    summary = lines[-1]
    assert summary.startswith("checked 13 sessions from 11 files: ") and "would be redacted" in summary
    total = len([line for line in lines if line.startswith(SOURCE)])
    assert f"{total} values would be redacted (" in summary
    assert "anthropic-key 2" in summary and "github-token 2" in summary  # the prompt, and the title taken from it
    assert f"{SOURCE}: anthropic-key sk-ant-api03-…[61 chars] (title)" in lines  # the session's line: none


def test_json_is_one_document_for_scripts(planted):
    archive, at = planted
    result = _check(str(archive), "--json")
    assert result.exit_code == 1
    doc = json.loads(result.output)
    assert doc["clean"] is False and doc["sessions"] == 13 and doc["rendered"] is True and doc["output"] == []
    key = next(f for f in doc["findings"] if f["kind"] == "anthropic-key")
    assert key == {
        "kind": "anthropic-key",
        "path": SOURCE,
        "line": at["prompt"],
        "preview": "sk-ant-api03-…[61 chars]",
        "session": CLAUDE,
        "field": "events[0].text",
        "context": key["context"],
        "allow": digest(KEY),
    }
    assert key["context"].startswith("use «sk-ant-api03-…[61 chars]» here. ")
    assert doc["counts"]["anthropic-key"] == 2 and sum(doc["counts"].values()) == len(doc["findings"])
    assert KEY not in result.output

    clean = json.loads(_check(str(EXAMPLE), "--json").output)
    assert clean["clean"] is True and clean["findings"] == [] and clean["counts"] == {}


@pytest.mark.parametrize(
    "settings",
    [
        f'redact_allow = ["{KEY}", "{GHP}", "{PASSWORD}"]',
        f'redact_allow = ["{digest(KEY)}", "{digest(GHP)}", "{digest(PASSWORD)}"]',  # (what --allow writes)
        f'exclude_sessions = ["{CLAUDE}"]',
        'hide_events = [{pattern = "^use |GH_TOKEN"}]',  # (matched on the redacted text, as the page shows it)
        'exclude = ["claude-code"]',
    ],
)
def test_the_settings_file_is_honoured(planted, settings):
    archive, _ = planted
    (archive / "sessite.toml").write_text(settings + "\n", "utf-8")
    result = _check(str(archive), "--quick")
    assert result.exit_code == 0, result.output
    assert "nothing would be redacted" in result.output


def test_a_user_pattern_is_a_finding(planted):
    archive, _ = planted
    (archive / "sessite.toml").write_text(
        '[[redact_patterns]]\nkind = "webapp-branch"\npattern = "feature/login"\n', "utf-8"
    )
    doc = json.loads(_check(str(archive), "--json", "--quick").output)
    assert doc["counts"]["webapp-branch"] >= 1 and doc["rendered"] is False


def test_what_would_stop_a_build_is_listed(planted, monkeypatch):
    """A build's workers render with a redactor that misses a kind: check renders like them and
    scans like the build, so it says the build would stop."""
    archive, _ = planted
    monkeypatch.setattr(worker, "Redactor", _BlindToAnthropicKeys)
    result = _check(str(archive))
    assert result.exit_code == 1
    assert (
        f"sessions/{CLAUDE}.html: anthropic-key (sk-ant-api03-…[61 chars]) "
        "(redaction misses it: a build redacts it everywhere and builds again)" in result.output.splitlines()
    )
    assert "would survive redaction (a build would run twice)" in result.output.splitlines()[-1]


def test_settings_errors_exit_2(tmp_path):
    archive = tmp_path / "a"
    shutil.copytree(EXAMPLE, archive)
    (archive / "sessite.toml").write_text('hide_events = [{kind = "thinkin"}]\n', "utf-8")
    result = _check(str(archive))
    assert result.exit_code == 2
    assert "hide_events[0]: unknown kind 'thinkin'" in result.output and "Traceback" not in result.output


def test_pii_findings_when_asked(tmp_path):
    """--redact-pii (part of the same issue) lists the home folders a build would turn into ~."""
    doc = json.loads(_check(str(EXAMPLE), "--json", "--quick", "--redact-pii").output)
    assert doc["counts"].get("home", 0) > 0
    previews = {f["preview"] for f in doc["findings"] if f["kind"] == "home"}
    assert "…[9 chars]" in previews and all(p.startswith("…[") for p in previews)  # /home/dev, never shown


@pytest.mark.parametrize(
    ("value", "preview"),
    [
        (KEY, "sk-ant-api03-…[61 chars]"),
        (GHP, "ghp_…[36 chars]"),
        ("AKIA" + "A" * 16, "AKIA…[16 chars]"),
        ("hunter2hunter2", "…[14 chars]"),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIE", "-----BEGIN RSA PRIVATE KEY-----…[5 chars]"),
        ("sk-", "…[3 chars]"),  # nothing but a prefix: the prefix is not shown either
    ],
)
def test_mask_keeps_only_a_public_prefix(value, preview):
    assert mask(value) == preview


def test_differences_find_each_replaced_value():
    text = f"a {KEY} b [REDACTED:old] c postgres://app:{PASSWORD}@db d"
    redacted = Redactor().text(text)
    found = text_differences(text, redacted)
    assert ("anthropic-key", KEY) in found
    assert all(value != "[REDACTED:old]" for _, value in found)  # a marker the text already held
    assert any(PASSWORD in value for _, value in found)


class _BlindToAnthropicKeys(Redactor):
    def text(self, value: str) -> str:
        return value if "sk-ant-" in value else super().text(value)


def test_allow_writes_digests_and_the_next_check_and_build_keep_those_values(planted, tmp_path):
    archive, _ = planted
    (archive / "sessite.toml").write_text(
        'title = "Mine"\n\n[[redact_patterns]]\nkind = "x"\npattern = "zz_[0-9]{9}"\n'
    )
    listing = _check(str(archive), "--quick").output.splitlines()
    numbers = [line.split("]", 1)[0][1:] for line in listing if line.startswith("[") and "anthropic-key" in line]
    result = _check(str(archive), "--quick", "--allow", ",".join(numbers))
    assert result.exit_code == 1 and f"added 1 entry to redact_allow in {archive / 'sessite.toml'}" in result.output
    settings = (archive / "sessite.toml").read_text()
    assert KEY not in settings and digest(KEY) in settings and "anthropic-key sk-ant-api03-…[61 chars] at " in settings
    assert settings.startswith('title = "Mine"\n') and '[[redact_patterns]]\nkind = "x"' in settings
    again = _check(str(archive), "--quick", "--json")
    assert "anthropic-key" not in json.loads(again.output)["counts"]
    assert _check(str(archive), "--quick", "--allow", "all").exit_code == 1
    assert _check(str(archive), "--quick").exit_code == 0  # every finding allowed: nothing would be redacted
    site = tmp_path / "site"
    result = CliRunner().invoke(main, ["build", str(archive), "-o", str(site), "-j", "1", "--quiet"])
    assert result.exit_code == 0, result.output  # (the output scan honours the digests too)
    assert KEY in (site / "sessions" / f"{CLAUDE}.html").read_text()
    assert _check(str(archive), "--quick", "--allow", "99").exit_code == 2


def test_a_sub_agent_finding_names_the_sub_agent_file_and_its_own_line(tmp_path):
    project = tmp_path / "archive" / "proj"
    (project / "s1" / "subagents").mkdir(parents=True)
    env = {"sessionId": "s1", "cwd": "/srv", "version": "2.1.39"}
    main_lines = [
        {
            **env,
            "type": "user",
            "uuid": "u1",
            "timestamp": "2026-03-01T10:00:00Z",
            "message": {"role": "user", "content": "review the deploy script"},
        },
        {
            **env,
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "timestamp": "2026-03-01T10:00:01Z",
            "message": {
                "id": "m1",
                "role": "assistant",
                "model": "claude-opus-4-6",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "Task",
                        "input": {"description": "Review", "prompt": "Review deploy.sh", "subagent_type": "general"},
                    }
                ],
            },
        },
    ]
    agent = {**env, "isSidechain": True, "agentId": "abc123"}
    sub_lines = [
        {
            **agent,
            "type": "user",
            "uuid": "s-u1",
            "timestamp": "2026-03-01T10:00:02Z",
            "message": {"role": "user", "content": "Review deploy.sh"},
        },
        {
            **agent,
            "type": "assistant",
            "uuid": "s-a1",
            "parentUuid": "s-u1",
            "timestamp": "2026-03-01T10:00:03Z",
            "message": {
                "id": "m2",
                "role": "assistant",
                "model": "claude-opus-4-6",
                "content": [{"type": "text", "text": f"It exports GH_TOKEN={GHP} in line 3."}],
            },
        },
    ]
    (project / "s1.jsonl").write_text("".join(json.dumps(line) + "\n" for line in main_lines))
    (project / "s1" / "subagents" / "agent-abc123.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in sub_lines)
    )
    doc = json.loads(_check(str(tmp_path / "archive"), "--quick", "--json").output)
    (finding,) = [f for f in doc["findings"] if f["kind"] == "github-token"]
    assert (finding["path"], finding["line"]) == ("proj/s1/subagents/agent-abc123.jsonl", 2), finding
