"""Personal data redaction (``--redact-pii``): home folders, user names, e-mail addresses,
host names and IP addresses, everywhere the secrets redaction reaches.

An archive carries the same personal values in every field of every seed format
(``xss_archive`` with them as its payload), in every string of the Claude Code,
claude.ai and Codex fixtures, and in folder names, file names and session ids.
Built with ``redact_pii``, no file of the site (pages, search chunks, exports
decompressed, file names) holds any of them; built without, every one is there,
so the scan can fail. Then each rule on its own, what it must leave alone, the
allow-list, the settings and the command line.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import xss_archive
from click.testing import CliRunner
from helpers import ALL_EXPORTS, FIXTURES, build_site, files_under, parse_html, scan_site, search_text

from sessite.analyze.redact import Redactor
from sessite.cli import main
from sessite.config import ConfigFileError, settings_from_dict
from sessite.model import Event, Kind, Session, SourceRef

# The values planted, and what of each must not survive (lower case: the scan is case-blind).
PAYLOAD = (
    "jdoe/work/site ; cwd /home/jdoe/work/site ; mac /Users/jdoe/src ; win C:\\Users\\jdoe\\proj ; "
    "prompt jdoe@janes-laptop-7:~/work$ make ; mail jane.doe@acme-corp.com ; "
    "host buildbox-7.corp.internal ; ssh -p 22 deploy@ci-runner-3 uptime ; "
    "ip 10.20.30.40 and 81.2.69.160 ; v6 2001:db8:85a3::8a2e:370:7334 ; "
    "kept team@mycompany.com and nas.lan"
)
NEEDLES = {
    "user": ["jdoe"],
    "home": ["/home/jdoe", "/users/jdoe", "\\users\\jdoe"],
    "email": ["jane.doe@", "acme-corp.com"],
    "host": ["buildbox-7", "ci-runner-3", "janes-laptop-7"],
    "ip": ["10.20.30.40", "81.2.69.160", "8a2e:370:7334"],
}
# A user name is redacted where it stands as a word: xss_archive glues its payload to "evil" once.
WORD = re.compile(r"(?<![a-z0-9])jdoe")
ALLOW = ("*@mycompany.com", "nas.lan")
KEPT = {"allowed": ["team@mycompany.com", "nas.lan"]}

# Values a reader needs as they are to recognise a record.
_STRUCTURAL = {
    "type",
    "role",
    "sender",
    "status",
    "version",
    "kind",
    "name",
    "tool",
    "subtype",
    "mimeType",
    "media_type",
}


def _plant(value: Any, key: str | None = None) -> Any:
    """``value`` with the payload appended to every string (structural ones, times and ids kept)."""
    if isinstance(value, dict):
        return {k: _plant(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_plant(v, key) for v in value]
    if not isinstance(value, str) or key in _STRUCTURAL or not value.strip() or value[:4].isdigit():
        return value
    if key and key.lower().endswith(("id", "uuid", "timestamp")):
        return value
    return f"{value} {PAYLOAD}"


def _plant_fixtures(source: Path, target: Path) -> None:
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("*.py", "*.md", "__pycache__"))
    for path in sorted(p for p in target.rglob("*") if p.is_file()):
        if path.suffix == ".jsonl":
            lines = []
            for line in path.read_text("utf-8", errors="replace").splitlines():
                try:
                    lines.append(json.dumps(_plant(json.loads(line))))
                except ValueError:
                    lines.append(line)
            path.write_text("\n".join(lines) + "\n", "utf-8")
        elif path.suffix == ".json":
            with contextlib.suppress(ValueError):
                path.write_text(json.dumps(_plant(json.loads(path.read_text("utf-8")))), "utf-8")


def _write_names(root: Path) -> None:
    """The user's name in a folder name, a file name and a session id."""
    project = root / "claude" / "-home-jdoe-work-site"
    project.mkdir(parents=True)
    sid = "22222222-3333-4444-8555-777777777777"
    record = {
        "type": "user",
        "uuid": "u1",
        "parentUuid": None,
        "sessionId": sid,
        "cwd": "/home/jdoe/work/site",
        "gitBranch": "jdoe/fix-login",
        "timestamp": "2026-01-02T00:00:00Z",
        "message": {"role": "user", "content": "hello from jdoe@janes-laptop-7"},
    }
    (project / f"{sid}.jsonl").write_text(json.dumps(record) + "\n")
    hail = [
        {
            "type": "header",
            "version": "hail-1.0.0",
            "session_id": "jdoe-notes-10.20.30.40",
            "agent": {"provider": "x", "model": "m", "tool": "codex"},
            "context": {
                "title": "notes of jane.doe@acme-corp.com",
                "tags": [],
                "created_at": "2026-01-02T00:00:00Z",
                "updated_at": "2026-01-02T00:00:00Z",
                "attributes": {"cwd": "/Users/jdoe/notes", "user": "jdoe"},
            },
        },
        {
            "type": "event",
            "event_id": "e1",
            "timestamp": "2026-01-02T00:00:00Z",
            "event_type": {"type": "UserMessage"},
            "content": {"blocks": [{"type": "Text", "text": "hi"}]},
        },
    ]
    (root / "jdoe-notes.hail.jsonl").write_text("\n".join(json.dumps(r) for r in hail) + "\n")


def leaks(site: Path) -> dict[str, list[str]]:
    """label -> the files (and file names) of the site still holding a planted value."""
    found = scan_site(site, {k: v for k, v in NEEDLES.items() if k != "user"})
    for path in files_under(site):
        data = path.read_bytes()
        texts = [data.decode("utf-8", "replace"), path.relative_to(site).as_posix()]
        if path.suffix == ".gz":
            texts.append(gzip.decompress(data).decode("utf-8", "replace"))
        if any(WORD.search(t.lower()) for t in texts):
            found.setdefault("user", []).append(path.relative_to(site).as_posix())
    return found


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("pii") / "archive"
    xss_archive.write(root / "typed", PAYLOAD)
    for name in ("claude_code", "claude_ai", "codex"):
        _plant_fixtures(FIXTURES / name, root / "fixtures" / name)
    _write_names(root / "names")
    return root


def _build(archive: Path, out: Path, **options: Any):
    report = build_site(archive, out, jobs=1, cache_dir=out.parent / "cache", exports=ALL_EXPORTS, **options)
    assert report.published, report.problems[:5]
    return report


@pytest.fixture(scope="module")
def redacted_site(archive, tmp_path_factory):
    out = tmp_path_factory.mktemp("pii-site") / "site"
    return _build(archive, out, redact_pii=True, pii_allow=ALLOW), out


@pytest.fixture(scope="module")
def plain_site(archive, tmp_path_factory):
    out = tmp_path_factory.mktemp("plain-site") / "site"
    return _build(archive, out), out


def test_no_planted_value_survives_anywhere_in_the_site(redacted_site):
    report, site = redacted_site
    assert leaks(site) == {}
    assert report.sessions > 20
    for kind in ("home", "user", "email", "host", "ip"):
        assert report.redactions[kind] > 0, kind


def test_without_the_flag_every_value_is_kept(plain_site):
    report, site = plain_site
    assert set(leaks(site)) == set(NEEDLES)
    assert not {"home", "user", "email", "host", "ip"} & set(report.redactions)


def test_the_home_folder_becomes_a_tilde_and_the_rest_of_the_path_stays(redacted_site):
    _, site = redacted_site
    texts = [p.read_text("utf-8", "replace") for p in files_under(site) if p.suffix == ".html"]
    assert any("~/work/site" in t for t in texts)
    assert any("~/src" in t for t in texts)
    assert any("~\\proj" in t for t in texts)


def test_allowed_values_are_kept(redacted_site):
    _, site = redacted_site
    assert set(scan_site(site, KEPT)) == {"allowed"}


def test_every_session_has_its_page_and_an_id_holding_a_name_gets_a_new_url_safe_one(redacted_site, plain_site):
    (_, redacted), (_, plain) = redacted_site, plain_site
    pages = sorted(p.name for p in (redacted / "sessions").glob("*.html"))
    plain_pages = sorted(p.name for p in (plain / "sessions").glob("*.html"))
    assert len(pages) == len(plain_pages)
    assert "hail-jdoe-notes-10.20.30.40.html" in plain_pages
    assert [p for p in pages if p.startswith("hail-REDACTED-user-notes-REDACTED-ip-")]
    assert all(re.fullmatch(r"[A-Za-z0-9._\-]+", p) for p in pages)


def test_the_search_index_and_downloads_are_redacted_too(redacted_site, plain_site):
    """The search terms and the downloads come from the redacted sessions (the plain site has the terms)."""
    (_, redacted), (_, plain) = redacted_site, plain_site

    for term in ('"buildbox"', '"jdoe"'):
        assert term in search_text(plain).lower() and term not in search_text(redacted).lower()
    downloads = "".join(gzip.decompress(p.read_bytes()).decode() for p in (redacted / "sessions").glob("*.gz"))
    assert "[REDACTED:email]" in downloads and "~/work/site" in downloads and "jane.doe" not in downloads


# ---------------------------------------------------------------- each rule


def _redact(text: str, **options: Any) -> str:
    return Redactor(pii=True, **options).text(text)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("cd /home/jdoe/work && ls", "cd ~/work && ls"),
        ("/Users/jdoe/proj/x.py", "~/proj/x.py"),
        ("/var/home/jdoe/x", "~/x"),
        ("C:\\Users\\Jane Doe\\proj\\x.py", "~\\proj\\x.py"),
        ("C:/Users/jdoe/proj", "~/proj"),
        ("file:///home/jdoe/a.html", "file://~/a.html"),
        ("cat /root/.bashrc", "cat ~/.bashrc"),
        ("mail jane.doe@acme-corp.com now", "mail [REDACTED:email] now"),
        ('"to:\\n\\njane@acme-corp.com"', '"to:\\n\\n[REDACTED:email]"'),
        (
            '{"out": "a\\n10.20.30.40\\njdoe@box-7:~$ ls\\n/home/jdoe/x"}',
            '{"out": "a\\n[REDACTED:ip]\\n[REDACTED:user]@[REDACTED:host]:~$ ls\\n~/x"}',
        ),
        ("jdoe@janes-laptop-7:~/work$ make", "[REDACTED:user]@[REDACTED:host]:~/work$ make"),
        ("[jdoe@buildbox site]$ make", "[[REDACTED:user]@[REDACTED:host] site]$ make"),
        ("jane@Janes-MBP ~ % ls", "[REDACTED:user]@[REDACTED:host] ~ % ls"),
        ("git clone git@gitlab.corp.internal:team/x", "git clone git@[REDACTED:host]:team/x"),
        ("https://jdoe@bitbucket.org/team/repo", "https://[REDACTED:user]@bitbucket.org/team/repo"),
        ("ping buildbox-7.corp.internal", "ping [REDACTED:host]"),
        ("hostname: Janes-MacBook-Pro.local", "hostname: [REDACTED:host]"),
        ("$ ssh -i key -p 2222 prod-db-01 uptime", "$ ssh -i key -p 2222 [REDACTED:host] uptime"),
        ("ssh -l alice bastion.acme.io", "ssh -l [REDACTED:user] [REDACTED:host]"),
        ("and then ssh deploy@ci-runner-3", "and then ssh deploy@[REDACTED:host]"),
        ("scp a.txt buildbox:/tmp/", "scp a.txt [REDACTED:host]:/tmp/"),
        ("inet 10.20.30.40/24 gw 192.168.1.1", "inet [REDACTED:ip]/24 gw [REDACTED:ip]"),
        ("curl http://81.2.69.160:8080/", "curl http://[REDACTED:ip]:8080/"),
        ("addr 2001:db8:85a3::8a2e:370:7334 up", "addr [REDACTED:ip] up"),
        ("fe80::1ff:fe23:4567:890a%eth0", "[REDACTED:ip]"),
    ],
)
def test_each_kind_is_redacted(text, expected):
    assert _redact(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "pip install foo==1.2.3.4 and version 1.2.3.4, v1.2.3.4, Chrome/120.0.0.0",
        "listen on 127.0.0.1 and 0.0.0.0, mask 255.255.255.0, ::1, mdns 224.0.0.251",
        "brew install node@20 python@3.11; npx create-app@latest; uses: actions/checkout@v4",
        "npm i @scope/pkg @types/node",
        "@dataclass\nclass A: ...\n@pytest.fixture",
        "git push git@github.com:org/repo.git main",
        "ssh -T git@github.com",
        "Co-Authored-By: Claude <noreply@anthropic.com>; see user@example.com",
        "x = threading.local(); edit settings.local.json; ls ~/.local/share; .env.local",
        "std::vector<int> and A::B2 at 12:34:56",
        "use ssh to reach the server, then rsync: done",
        "https://docs.python.org/3/library/ipaddress.html and pypi.org",
        "/home/$USER/x and /Users/Shared/x and C:\\Users\\Public\\x",
        "OID 1.3.6.1.4.1.2021 and 2024.01.02.03",
        "{\"new_str\": \"bp = Blueprint('api')\\n\\n@bp.get('/healthz')\"}",
        '"ignore:\\n.env.local\\n.DS_Store"',
        "FROM docker.io/library/ubuntu:jammy@sha256:104ae83764a5119017b8e8d6218fa0832b09df65aae7d5a6de29",
        "using NUnit.Framework.Internal; import com.google.common.internal.Foo;",
        'diff:\n+@bp.get("/items")\n+@app.route("/x")',
    ],
)
def test_what_is_no_personal_data_is_kept(text):
    assert _redact(text) == text


def test_a_learnt_user_name_is_redacted_wherever_it_stands_as_a_word():
    redactor = Redactor(pii=True)
    assert redactor.text("cwd /home/jdoe/w") == "cwd ~/w"
    assert redactor.text("-home-jdoe-work; JDoe wrote it; jdoe_notes; jdoes") == (
        "-home-[REDACTED:user]-work; [REDACTED:user] wrote it; [REDACTED:user]_notes; jdoes"
    )


def test_generic_accounts_and_common_words_are_not_learnt():
    redactor = Redactor(pii=True)
    redactor.text("/home/user/x /home/will/x root@server:~# /Users/admin/y")
    assert redactor.text("the user will run it as admin on the server") == (
        "the user will run it as admin on the server"
    )


def test_a_name_seen_deep_in_a_session_is_redacted_in_its_earlier_events_too():
    """The second walk: "jdoe" in the first message is only known as a name once the
    home folder in the last output shows it."""
    events = (
        Event(id="1", kind=Kind.USER, text="ask jdoe about the deploy"),
        Event(id="2", kind=Kind.TOOL_RESULT, text="ls: /home/jdoe/secret: no such file"),
    )
    session = Session(id="s1", source=SourceRef("a.jsonl", "x"), agent="x", events=events, title="jdoe's session")
    redactor = Redactor(pii=True)
    out = redactor.value(session)
    assert [e.text for e in out.events] == [
        "ask [REDACTED:user] about the deploy",
        "ls: ~/secret: no such file",
    ]
    assert out.title == "[REDACTED:user]'s session"
    assert redactor.counts == Counter({"user": 2, "home": 1})


def test_a_mapping_entry_naming_the_user_is_redacted_and_learnt():
    redactor = Redactor(pii=True)
    out = redactor.value({"username": "jsmith", "note": "by jsmith", "role": "user"})
    assert out == {"username": "[REDACTED:user]", "note": "by [REDACTED:user]", "role": "user"}


def test_the_home_folder_of_the_account_building_is_a_home_wherever_it_is(monkeypatch, tmp_path):
    home = tmp_path / "srv" / "people" / "kquinn"
    monkeypatch.setenv("HOME", str(home))
    redactor = Redactor(pii=True)
    assert redactor.text(f"open {home}/notes.md") == "open ~/notes.md"
    assert redactor.text("kquinn was here") == "[REDACTED:user] was here"


def test_an_archive_inside_the_home_folder_keeps_its_paths_relative(monkeypatch, tmp_path):
    """The source path is shown relative to the archive before redaction: the home above it never shows."""
    home = tmp_path / "people" / "kquinn"
    monkeypatch.setenv("HOME", str(home))
    archive = home / "archive"
    archive.mkdir(parents=True)
    shutil.copy(FIXTURES / "claude_code" / "basic.jsonl", archive)
    _build(archive, tmp_path / "site", redact_pii=True)
    (page,) = (tmp_path / "site" / "sessions").glob("*.html")
    text = page.read_text("utf-8")
    assert "basic.jsonl" in text and "~/archive" not in text and "kquinn" not in text
    out = tmp_path / "converted.aics.json"
    result = CliRunner().invoke(main, ["convert", str(archive), "--to", "aics", "-o", str(out), "--redact-pii"])
    assert result.exit_code == 0, result.output
    assert "kquinn" not in out.read_text("utf-8") and "~/archive" not in out.read_text("utf-8")


@pytest.mark.parametrize(
    "allow, text",
    [
        (["*@mycompany.com"], "write to team@mycompany.com"),
        (["mycompany.com"], "write to team@mycompany.com or ops@eu.mycompany.com"),
        (["nas.lan"], "rsync -a x/ nas.lan:/backup"),
        (["10.0.*"], "ping 10.0.0.7"),
        (["jdoe"], "cd /home/jdoe/x"),
    ],
)
def test_the_allow_list_keeps_what_the_user_wants_public(allow, text):
    assert _redact(text, pii_allow=allow) == text
    assert _redact(text) != text  # (without it, it is redacted)


def test_exact_values_of_redact_allow_are_kept_too():
    assert _redact("ping 10.1.2.3", allow=["10.1.2.3"]) == "ping 10.1.2.3"


def test_without_pii_nothing_personal_is_touched_and_short_strings_are_not_even_looked_at():
    redactor = Redactor()
    assert redactor.personal is None
    text = "cd /home/jdoe && mail jane.doe@acme-corp.com from 10.20.30.40"
    assert redactor.text(text) == text
    assert Redactor(pii=True).text("jdoe@x.io") == "[REDACTED:email]"


# ---------------------------------------------------------------- settings and command line


def test_the_settings_file_takes_redact_pii_and_pii_allow():
    assert settings_from_dict({"redact_pii": True, "pii_allow": ["*@mycompany.com", "nas.lan"]}) == {
        "redact_pii": True,
        "pii_allow": ("*@mycompany.com", "nas.lan"),
    }
    with pytest.raises(ConfigFileError, match="'redact_pii' must be true or false"):
        settings_from_dict({"redact_pii": "yes"})
    with pytest.raises(ConfigFileError, match="'pii_allow' must be a list of strings"):
        settings_from_dict({"pii_allow": [1]})


def _one_session_archive(root: Path, config: str | None = None) -> Path:
    root.mkdir(parents=True)
    _write_names(root)
    if config is not None:
        (root / "sessite.toml").write_text(config)
    return root


def _page_texts(site: Path) -> str:
    return "\n".join(parse_html(p).get_text(" ") for p in files_under(site) if p.suffix == ".html")


def test_build_with_the_flag_and_with_the_setting(tmp_path):
    archive = _one_session_archive(tmp_path / "a")
    result = CliRunner().invoke(main, ["build", str(archive), "-o", str(tmp_path / "s1"), "--redact-pii", "-j", "1"])
    assert result.exit_code == 0, result.output
    assert "redacted:" in result.output and "user " in result.output and "home " in result.output
    assert "jdoe" not in _page_texts(tmp_path / "s1")

    configured = _one_session_archive(tmp_path / "b", 'redact_pii = true\npii_allow = ["acme-corp.com"]\n')
    result = CliRunner().invoke(main, ["build", str(configured), "-o", str(tmp_path / "s2"), "-j", "1"])
    assert result.exit_code == 0, result.output
    text = _page_texts(tmp_path / "s2")
    assert "jdoe" not in text and "jane.doe@acme-corp.com" in text

    result = CliRunner().invoke(main, ["build", str(archive), "-o", str(tmp_path / "s3"), "-j", "1"])
    assert "jdoe" in _page_texts(tmp_path / "s3")


def test_no_redact_turns_personal_data_redaction_off_too(tmp_path):
    archive = _one_session_archive(tmp_path / "a", "redact_pii = true\n")
    result = CliRunner().invoke(main, ["build", str(archive), "-o", str(tmp_path / "s"), "--no-redact", "-j", "1"])
    assert result.exit_code == 0, result.output
    assert "jdoe" in _page_texts(tmp_path / "s")


def test_convert_with_the_flag(tmp_path):
    archive = _one_session_archive(tmp_path / "a")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["convert", str(archive), "--to", "markdown", "-o", str(out), "--redact-pii"])
    assert result.exit_code == 0, result.output
    written = "\n".join(p.read_text("utf-8") for p in out.iterdir())
    assert "jdoe" not in written and "jane.doe" not in written and "10.20.30.40" not in written
    assert "~/notes" in written
    result = CliRunner().invoke(main, ["convert", str(archive), "--to", "markdown", "-o", str(tmp_path / "plain")])
    assert "jdoe" in "\n".join(p.read_text("utf-8") for p in (tmp_path / "plain").iterdir())


def test_a_login_that_is_a_common_word_is_redacted_only_as_the_login():
    """A user called python or github: their login goes where it stands as the login, the word stays
    in code and URLs (issue 30: ``python -m pytest`` became ``[REDACTED:user] -m pytest``)."""
    r = Redactor(pii=True)
    assert r.text("cd /home/python/proj && python -m pytest") == "cd ~/proj && python -m pytest"
    assert r.text("project -home-python-proj") == "project -home-[REDACTED:user]-proj"
    assert r.text("python@laptop:~$ ls").startswith("[REDACTED:user]@")
    r = Redactor(pii=True)
    assert r.text("/home/github/x") == "~/x"
    assert r.text("open https://github.com/a/b") == "open https://github.com/a/b"
    r = Redactor(pii=True)
    assert r.text("ls /home/vwestberg/x; vwestberg said") == "ls ~/x; [REDACTED:user] said"
