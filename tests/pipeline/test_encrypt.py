"""``sessite build --encrypt``: nothing of the sessions is readable in any file of the site
(raw, base64-decoded, inflated), the sealed pages open with the password, incremental builds
and ``sessite rekey`` leave the pages as they are."""

from __future__ import annotations

import base64
import contextlib
import re
import shutil
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import EXAMPLE
from test_output_scan import KEY, BlindToAnthropicKeys, _plant

import sessite.pipeline.worker as worker
from sessite.cli.app import main
from sessite.config import SiteConfig
from sessite.model import Problems, walk
from sessite.pipeline import build
from sessite.publish.minify import minified
from sessite.publish.vault import (
    KEYS_URL,
    MIN_BUCKET,
    Keyring,
    SiteKey,
    blob_url,
    padme,
    seal,
    unseal,
    url_key,
)
from sessite.publish.writer import _MARKER_TEXT as MARKER_TEXT
from sessite.readers import discover
from sessite.render.markup import pygments_css
from sessite.render.resources import static_dir, templates_dir
from sessite.site.urls import export_urls, opaque_urls, session_url

PASSWORD = "correct horse battery staple"
MARKERS = ("QZXPLANTEDTITLEMARK", "QZXPLANTEDTEXTMARK", "QZXPLANTEDTOOLMARK")
EXPORTS = ("aics", "hail", "markdown", "html")


def planted_archive(tmp: Path) -> Path:
    """The example archive with markers planted in a title (the first prompt), a message and a tool's output."""
    archive = tmp / "archive"
    shutil.copytree(EXAMPLE, archive)
    main_log = archive / "claude-code" / "-home-dev-webapp" / "7b3e9a52-4c1d-4f8e-9a2b-1d6c5e8f0a34.jsonl"
    text = main_log.read_text("utf-8")
    assert "login form" in text and "CSRFProtect" in text
    text = text.replace("login form", f"login form {MARKERS[0]}", 1).replace("login form", f"{MARKERS[1]} login", 3)
    main_log.write_text(text.replace("CSRFProtect", f"CSRFProtect {MARKERS[2]}"), "utf-8")
    return archive


def build_encrypted(archive: Path, site: Path, cache: Path, password: str = PASSWORD, **options):
    config = SiteConfig(
        archive=archive,
        output=site,
        encrypt=True,
        exports=EXPORTS,
        base_url="https://example.github.io/archive/",  # the feed and the sitemap too
        cache_dir=cache,
        progress=False,
        **options,
    )
    return build(config, password=password)


def opaque(key: SiteKey, plain_url: str) -> str:
    """A session page's or export's address in the encrypted site of ``key``."""
    match = re.fullmatch(r"sessions/([^/]+?)(\.html|\.md\.gz)", plain_url)
    assert match, plain_url
    with opaque_urls(url_key(key)):
        if match.group(2) == ".html":
            return session_url(match.group(1))
        return dict(export_urls(match.group(1), ["markdown"]))["markdown"]


def session_words(archive: Path) -> set[str]:
    """Every word of eight letters or more of the sessions' text and titles (lower case)."""
    problems = Problems()
    words: set[str] = set()
    for claim in discover([archive], problems).claims:
        for session in claim.read(problems):
            texts = [session.title or "", *(e.text or "" for e in walk(session.events))]
            for text in texts:
                words.update(w.lower() for w in re.findall(r"[^\W\d_]{8,}", text))
    return words


def public_words() -> set[str]:
    """Words any encrypted site holds whatever the sessions say: sessite's own scripts, styles, unlock page."""
    words: set[str] = set(re.findall(r"[^\W\d_]{8,}", pygments_css().lower() + MARKER_TEXT.decode().lower()))
    for path in [*static_dir().rglob("*"), templates_dir() / "unlock.html"]:
        if path.is_file():
            words.update(w.lower() for w in re.findall(r"[^\W\d_]{8,}", path.read_text("utf-8", "replace")))
    return words


_BASE64 = re.compile(rb"[A-Za-z0-9+/]{24,}={0,2}")


def readable(data: bytes) -> list[str]:
    """What an attacker could read from a file: the bytes, every base64 run decoded, and all
    of those inflated (zlib, raw deflate, gzip) where they inflate."""
    layers = [data]
    for run in _BASE64.findall(data):
        try:
            layers.append(base64.b64decode(run + b"=" * (-len(run) % 4)))
        except ValueError:
            continue
    for layer in list(layers):
        for wbits in (15, -15, 31):
            with contextlib.suppress(zlib.error):
                layers.append(zlib.decompress(layer, wbits))
    return [layer.decode("utf-8", "replace").lower() for layer in layers]


def leaks(site: Path, markers: tuple[str, ...], words: set[str]) -> dict[str, set[str]]:
    """file -> the markers and session words found in it (static assets are checked to be sessite's own)."""
    found: dict[str, set[str]] = {}
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        url = path.relative_to(site).as_posix()
        if url.startswith("static/") and url != "static/pygments.css":
            relative = url.removeprefix("static/")
            assert path.read_bytes() == minified(relative, (static_dir() / relative).read_bytes()), url
            continue
        hits: set[str] = set()
        for text in readable(path.read_bytes()):
            hits.update(m for m in markers if m.lower() in text)
            hits.update(words & set(re.findall(r"[^\W\d_]{8,}", text)))
        if hits:
            found[url] = hits
    return found


# Every name an encrypted site may publish outside static/: fixed ones, and hashes.
OPAQUE_NAME = re.compile(
    r"index\.html|404\.html|keys\.js|\.nojekyll|\.sessite-site|insights\.html|search\.html"
    r"|insights(/projects\.html)?|refs(/index\.html)?|x(/[0-9a-f]{2}(/[0-9a-f]{32}\.js)?)?|p(/[0-9a-f]{24}\.html)?"
)
FIXED_WORDS = {"index", "html", "insights", "projects", "search", "refs", "keys", "sessite", "site", "nojekyll"}


def data_names(plain: Path, archive: Path) -> dict[str, set[str]]:
    """What a plain site's file names say (session ids, project slugs, repositories and refs), and
    the words of four letters or more of the sessions' titles, lower case."""
    urls = [p.relative_to(plain).as_posix() for p in plain.rglob("*.html")]
    ids = {u.split("/")[1].removesuffix(".html") for u in urls if u.startswith("sessions/") and u.count("/") == 1}
    projects = {u.split("/")[1].removesuffix(".html") for u in urls if re.fullmatch(r"insights/[^/]+\.html", u)}
    refs = set()
    for u in urls:
        if u.startswith("refs/") and u != "refs/index.html":
            refs.update(part.removesuffix(".html") for part in u.split("/")[1::2])  # repository, ref name
    titles: set[str] = set()
    problems = Problems()
    for claim in discover([archive], problems).claims:
        for session in claim.read(problems):
            titles.update(w.lower() for w in re.findall(r"[^\W\d_]{4,}", session.title or ""))
    names = {"id": ids, "project": projects - {"projects"}, "ref": refs - {"index"}, "title": titles}
    # (an issue number, a short hex ref: a hash may hold it by chance; the pattern checks those names)
    short_hex = re.compile(r"[0-9a-f]{1,11}")
    return {
        kind: {v.lower() for v in values if not short_hex.fullmatch(v.lower())} - FIXED_WORDS
        for kind, values in names.items()
    }


def test_padme_keeps_lengths_in_few_buckets() -> None:
    assert padme(1) == MIN_BUCKET
    sizes = range(MIN_BUCKET, 1 << 20, 97)
    assert all(n <= padme(n) <= n * 1.12 + 1 for n in sizes)
    assert len({padme(n) for n in sizes}) <= 256, "a few hundred buckets from 512 bytes to 1 MiB"


def test_a_sealed_page_opens_only_at_its_url_with_its_key() -> None:
    key = SiteKey.new()
    sealed = seal(key, "sessions/a.html", b"<p>hello</p>")
    assert unseal(key, "sessions/a.html", sealed) == b"<p>hello</p>"
    assert sealed == seal(key, "sessions/a.html", b"<p>hello</p>"), "an unchanged page seals to the same bytes"
    with pytest.raises(ValueError):
        unseal(key, "sessions/b.html", sealed)  # moved to another page
    with pytest.raises(ValueError):
        unseal(SiteKey.new(), "sessions/a.html", sealed)
    assert "sessions" not in blob_url(key, "sessions/a.html")


def test_the_keyring_opens_with_each_password_and_no_other() -> None:
    key = SiteKey.new()
    ring = Keyring.new("first password", key, iterations=1000)
    second = ring.add("second password", key)
    again = Keyring.from_js(ring.to_js())
    assert again.iterations == 1000
    first = again.open("first password")
    assert first is not None and first[1] == key
    assert again.open("Second password") is None
    assert again.open("second password".replace("o", "o\u0301")) is None
    composed = Keyring.new("caf\u00e9 au lait", key, iterations=1000)
    assert composed.open("cafe\u0301 au lait") is not None, "NFC: one password however it was typed"
    again.remove(second)
    assert again.open("second password") is None


def test_no_session_text_in_any_file_of_an_encrypted_site(tmp_path: Path) -> None:
    archive = planted_archive(tmp_path)
    words = session_words(archive) - public_words()
    assert len(words) > 100 and all(m.lower() in words for m in MARKERS)

    plain = tmp_path / "plain"
    report = build(
        SiteConfig(archive=archive, output=plain, exports=EXPORTS, cache_dir=tmp_path / "c0", progress=False)
    )
    assert report.published
    in_plain = leaks(plain, MARKERS, words)
    assert {m for hits in in_plain.values() for m in hits} >= set(MARKERS), "the scan finds what is there"

    site = tmp_path / "site"
    report = build_encrypted(archive, site, tmp_path / "c1")
    assert report.published and report.sessions == 13
    assert leaks(site, MARKERS, words) == {}
    names = "\n".join(p.relative_to(site).as_posix() for p in site.rglob("*")).lower()
    assert not any(m.lower() in names for m in MARKERS)
    # No file name tells a session id, a project, a title word or a ref name: each is hashed.
    named = data_names(plain, archive)
    assert len(named["id"]) == 13 and named["project"] and named["ref"] and len(named["title"]) > 20
    for path in site.rglob("*"):
        url = path.relative_to(site).as_posix()
        if url == "static" or url.startswith("static/"):
            continue
        assert OPAQUE_NAME.fullmatch(url), f"{url}: not a hashed name nor one of the site's fixed ones"
        for kind, values in named.items():
            for part in url.lower().split("/"):
                assert not any(v in part for v in values), f"{url} holds a {kind}"
    # What stays plain: the unlock pages, the static files, the keyring, the sealed pages.
    kinds = {p.relative_to(site).parts[0] for p in site.rglob("*") if p.is_file() and p.suffix != ".html"}
    assert kinds <= {"static", "x", KEYS_URL, ".nojekyll", ".sessite-site"}
    pages = [p for p in site.rglob("*.html") if not p.relative_to(site).as_posix().startswith("static/")]
    assert len({p.read_bytes() for p in pages if p.name != "404.html"}) <= 4, "one unlock page per depth"


def test_every_page_opens_with_the_password(tmp_path: Path) -> None:
    site = tmp_path / "site"
    build_encrypted(EXAMPLE, site, tmp_path / "cache")
    opened = Keyring.from_js((site / KEYS_URL).read_bytes()).open(PASSWORD)
    assert opened is not None
    key = opened[1]
    home = unseal(key, "index.html", (site / blob_url(key, "index.html")).read_bytes()).decode()
    assert "<table" in home and "login form" in home
    sealed = {p.relative_to(site).as_posix() for p in (site / "x").rglob("*.js")}
    for page in site.rglob("*.html"):
        url = page.relative_to(site).as_posix()
        if not url.startswith("static/"):
            assert blob_url(key, url) in sealed, url
    assert any(unseal(key, "search/meta.js", (site / blob_url(key, "search/meta.js")).read_bytes()))


def test_a_wrong_password_publishes_nothing(tmp_path: Path) -> None:
    site = tmp_path / "site"
    build_encrypted(EXAMPLE, site, tmp_path / "cache")
    before = {p: p.stat().st_mtime_ns for p in site.rglob("*")}
    result = CliRunner(env={"SESSITE_PASSWORD": "not the password"}).invoke(
        main, ["build", str(EXAMPLE), "-o", str(site), "--encrypt", "-q", "--cache-dir", str(tmp_path / "cache")]
    )
    assert result.exit_code == 1
    assert "the password opens none of this site's keys" in result.output
    assert "Traceback" not in result.output
    assert {p: p.stat().st_mtime_ns for p in site.rglob("*")} == before


def inodes(site: Path) -> dict[str, int]:
    return {p.relative_to(site).as_posix(): p.stat().st_ino for p in site.rglob("*") if p.is_file()}


def test_an_incremental_build_seals_only_what_changed(tmp_path: Path) -> None:
    archive = planted_archive(tmp_path)
    site, cache = tmp_path / "site", tmp_path / "cache"
    build_encrypted(archive, site, cache)
    first = inodes(site)
    report = build_encrypted(archive, site, cache)
    assert report.reused == report.files and not report.changed
    assert inodes(site) == first, "a build that changes nothing touches nothing"

    codex = next((archive / "codex").rglob("*.jsonl"))
    codex.write_text(codex.read_text("utf-8").replace("duration", "span", 1), "utf-8")
    report = build_encrypted(archive, site, cache)
    assert report.published and report.reused == report.files - 1
    now = inodes(site)
    changed = {url for url in first if now.get(url) != first[url]}
    ring = Keyring.from_js((site / KEYS_URL).read_bytes())
    opened = ring.open(PASSWORD)
    assert opened is not None
    key = opened[1]
    claude_page = blob_url(key, opaque(key, "sessions/claude_code-7b3e9a52-4c1d-4f8e-9a2b-1d6c5e8f0a34.html"))
    assert claude_page in first and claude_page not in changed, "an unchanged session's sealed page is untouched"
    download = blob_url(key, opaque(key, "sessions/claude_code-7b3e9a52-4c1d-4f8e-9a2b-1d6c5e8f0a34.md.gz"))
    assert download in first and download not in changed, "and so are its sealed downloads"
    assert set(now) >= set(first) - {u for u in first if u.startswith("x/")} | {claude_page, download}
    assert all(not url.endswith(".html") for url in changed), "unlock pages stay as they are"
    assert 0 < len(changed) < len(first) / 2


def test_rekey_changes_adds_and_revokes_passwords_without_touching_a_page(tmp_path: Path) -> None:
    site = tmp_path / "site"
    build_encrypted(EXAMPLE, site, tmp_path / "cache")
    before = inodes(site)
    runner = CliRunner()

    def rekey(*args: str, old: str, new: str = "") -> str:
        result = runner.invoke(
            main, ["rekey", str(site), *args], env={"SESSITE_PASSWORD": old, "SESSITE_NEW_PASSWORD": new}
        )
        assert "Traceback" not in result.output
        return result.output if result.exit_code == 0 else f"error: {result.output}"

    assert "2 passwords open" in rekey("--add", old=PASSWORD, new="a second long password")
    assert "replaced" in rekey(old=PASSWORD, new="a third long password")
    assert "error" in rekey(old=PASSWORD, new="another long password"), "the old password is gone"
    assert "too short" not in rekey("--add", old="a third long password", new="short")
    assert "at least 12" in rekey("--add", old="a third long password", new="short")
    assert "revoked" in rekey("--remove", old="a second long password")
    assert "only password" in rekey("--remove", old="a third long password")
    ring = Keyring.from_js((site / KEYS_URL).read_bytes())
    assert len(ring.entries) == 1 and ring.open("a third long password") is not None
    after = inodes(site)
    assert {u for u in before if after.get(u) != before[u]} == {KEYS_URL}
    # the next build with the new password keeps every page
    report = build_encrypted(EXAMPLE, site, tmp_path / "cache", password="a third long password")
    assert report.published and not report.changed


REAL_AGENTS = Path(__file__).resolve().parents[3] / "shared" / "formats" / "real-agents"


def test_no_word_of_the_real_agent_logs_in_their_encrypted_site(tmp_path: Path) -> None:
    if not REAL_AGENTS.is_dir():
        pytest.skip(f"real agent logs not found at {REAL_AGENTS}")
    words = session_words(REAL_AGENTS) - public_words()
    assert len(words) > 1000
    site = tmp_path / "site"
    report = build_encrypted(REAL_AGENTS, site, tmp_path / "cache")
    assert report.published and report.sessions > 100
    assert leaks(site, (), words) == {}
    names = [p.relative_to(site).as_posix() for p in site.rglob("*")]
    assert [u for u in names if not (u.startswith("static") or OPAQUE_NAME.fullmatch(u))] == []
    assert sum(u.startswith("p/") for u in names) > report.sessions, "sessions, projects, refs: all hashed"


def test_the_output_scan_reads_the_plain_pages_before_encryption(tmp_path: Path, monkeypatch) -> None:
    archive = tmp_path / "archive"
    shutil.copytree(EXAMPLE, archive)
    _plant(archive)
    monkeypatch.setattr(worker, "Redactor", BlindToAnthropicKeys)
    report = build_encrypted(archive, tmp_path / "site", tmp_path / "cache", jobs=1)
    assert not report.published and not (tmp_path / "site").exists()
    # the hashed address, and the plain one that tells the user which session to look at
    assert any(
        "anthropic-key" in line and re.match(r"sessions/\S+\.html → p/[0-9a-f]{24}\.html: ", line)
        for line in report.leaks
    )
    assert not any(KEY in line for line in report.leaks)


def test_the_password_never_comes_from_the_command_line(tmp_path: Path) -> None:
    runner = CliRunner()
    archive = tmp_path / "archive"
    shutil.copytree(EXAMPLE / "codex", archive)
    site = tmp_path / "site"
    common = ["build", str(archive), "-o", str(site), "-q", "--cache-dir", str(tmp_path / "cache")]
    refused = runner.invoke(main, [*common, "--encrypt", "--password", PASSWORD])
    assert refused.exit_code == 2 and "No such option" in refused.output

    short = runner.invoke(main, [*common, "--encrypt"], input="short\nshort\n", env={"SESSITE_PASSWORD": ""})
    assert short.exit_code == 1 and "at least 12" in short.output and not site.exists()

    prompted = runner.invoke(
        main, [*common, "--encrypt"], input=f"{PASSWORD}\n{PASSWORD}\n", env={"SESSITE_PASSWORD": ""}
    )
    assert prompted.exit_code == 0, prompted.output
    assert "Site password" in prompted.output and PASSWORD not in prompted.output
    ring = Keyring.from_js((site / KEYS_URL).read_bytes())
    assert ring.open(PASSWORD) is not None

    secret = tmp_path / "password.txt"
    secret.write_text(PASSWORD + "\n", "utf-8")
    (archive / "sessite.toml").write_text("encrypt = true\n", "utf-8")  # the settings file turns it on
    from_file = runner.invoke(main, [*common, "--password-file", str(secret)], env={"SESSITE_PASSWORD": ""})
    assert from_file.exit_code == 0, from_file.output
    assert "already up to date" in from_file.output


def test_a_lost_sealed_page_or_unlock_page_is_made_again(tmp_path: Path) -> None:
    site, cache = tmp_path / "site", tmp_path / "cache"
    build_encrypted(EXAMPLE, site, cache)
    opened = Keyring.from_js((site / KEYS_URL).read_bytes()).open(PASSWORD)
    assert opened is not None
    key = opened[1]
    claude = opaque(key, "sessions/claude_code-7b3e9a52-4c1d-4f8e-9a2b-1d6c5e8f0a34.html")
    codex = opaque(key, "sessions/codex-019e2b7c-4a10-7c3e-9d21-5f8a0b6c1e42.html")
    (site / blob_url(key, claude)).unlink()
    (site / codex).unlink()
    report = build_encrypted(EXAMPLE, site, cache)
    assert report.published and report.reused == report.files - 2
    assert unseal(key, claude, (site / blob_url(key, claude)).read_bytes()).startswith(b"<!doctype html>")
    assert (site / codex).read_bytes() == (site / claude).read_bytes(), "the unlock page, as at every depth-1 page"


def test_a_plain_site_turns_encrypted_and_back(tmp_path: Path) -> None:
    archive = planted_archive(tmp_path)
    site, cache = tmp_path / "site", tmp_path / "cache"
    plain = SiteConfig(archive=archive, output=site, exports=EXPORTS, cache_dir=cache, progress=False)
    assert build(plain).published
    assert leaks(site, MARKERS, set()), "the plain site shows the markers"
    report = build_encrypted(archive, site, cache)
    assert report.published
    assert leaks(site, MARKERS, session_words(archive) - public_words()) == {}
    assert build(plain).published
    assert not (site / KEYS_URL).exists() and not (site / "x").exists()
    assert MARKERS[1] in (site / "sessions" / "claude_code-7b3e9a52-4c1d-4f8e-9a2b-1d6c5e8f0a34.html").read_text()
