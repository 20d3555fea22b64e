"""The build scans its own staged output before publishing: a value the Redactor missed
keeps the previous site, byte for byte, and the build says which file holds it."""

from __future__ import annotations

import base64
import gzip
import json
import shutil
import struct
import zlib
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ALL_EXPORTS, EXAMPLE
from secret_fakes import alnum

import sessite.pipeline.output_scan as output_scan
import sessite.pipeline.worker as worker
from sessite.analyze.redact import Redactor
from sessite.analyze.redact.findings import mask
from sessite.cli import main
from sessite.config import SiteConfig
from sessite.pipeline import build
from sessite.pipeline.output_scan import scan_files
from sessite.search.item import fragment_url, packed, terms_url, unpacked

CLAUDE = "claude_code-7b3e9a52-4c1d-4f8e-9a2b-1d6c5e8f0a34"
SOURCE = "claude-code/-home-dev-webapp/7b3e9a52-4c1d-4f8e-9a2b-1d6c5e8f0a34.jsonl"
KEY = f"sk-ant-api03-{alnum(40)}-{alnum(20)}"


class BlindToAnthropicKeys(Redactor):
    """The redactor the build's workers use, made to miss one kind: what the scan is there for."""

    def text(self, value: str) -> str:
        return value if "sk-ant-" in value else super().text(value)


def _snapshot(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def _plant(archive: Path) -> None:
    """The key in a user's prompt of the Claude Code session."""
    path = archive / SOURCE
    text = path.read_text("utf-8")
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if '"type":"user"' in line and '"content":"' in line)
    lines[at] = lines[at].replace('"content":"', f'"content":"use {KEY} for this: ', 1)
    path.write_text("\n".join(lines) + "\n", "utf-8")


@pytest.fixture
def published(tmp_path: Path) -> tuple[Path, Path]:
    archive = tmp_path / "archive"
    shutil.copytree(EXAMPLE, archive)
    site = tmp_path / "site"
    report = build(SiteConfig(archive=archive, output=site, jobs=1, cache_dir=tmp_path / "cache", exports=ALL_EXPORTS))
    assert report.published and not report.leaks
    return archive, site


def test_a_secret_the_redactor_missed_keeps_the_previous_site(published, monkeypatch):
    archive, site = published
    before = _snapshot(site)
    _plant(archive)
    monkeypatch.setattr(worker, "Redactor", BlindToAnthropicKeys)
    result = CliRunner().invoke(main, ["build", str(archive), "-o", str(site), "-q", "-j", "1", "--exports", "all"])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    page = f"sessions/{CLAUDE}.html: anthropic-key (sk-ant-api03-…[{len(KEY) - len('sk-ant-api03-')} chars])"
    assert page in lines
    assert f"sessions/{CLAUDE}.md.gz: anthropic-key (sk-ant-api03-…[61 chars])" in lines  # a download, unpacked
    assert lines[-1].startswith("error: ") and "nothing was published" in lines[-1]
    assert KEY not in result.output and KEY[20:40] not in result.output
    assert _snapshot(site) == before  # the previous site, byte for byte
    assert sorted(p.name for p in site.parent.iterdir()) == sorted(["archive", "site", "cache"])  # no staging left

    monkeypatch.setattr(worker, "Redactor", Redactor)  # the real redactor: it catches the key, the site publishes
    report = build(SiteConfig(archive=archive, output=site, jobs=1, exports=ALL_EXPORTS))
    assert report.published and not report.leaks
    assert KEY not in (site / "sessions" / f"{CLAUDE}.html").read_text("utf-8")


def test_no_redact_skips_the_scan(published, monkeypatch):
    archive, site = published
    _plant(archive)
    calls = []
    monkeypatch.setattr(output_scan, "_content_leaks", lambda *a: calls.append(a) or [])
    report = build(SiteConfig(archive=archive, output=site, jobs=1, redact=False))
    assert report.published and not calls
    assert KEY in (site / "sessions" / f"{CLAUDE}.html").read_text("utf-8")


def test_a_rebuild_scans_only_what_changed(published, monkeypatch):
    archive, site = published
    scanned: list[str] = []
    real = output_scan._content_leaks

    def spy(config, files):
        scanned.extend(url for url, _ in files)
        return real(config, files)

    monkeypatch.setattr(output_scan, "_content_leaks", spy)
    cache = published[0].parent / "cache"
    report = build(SiteConfig(archive=archive, output=site, jobs=1, cache_dir=cache, exports=ALL_EXPORTS))
    assert report.published and scanned == []  # the published site passed this scan under the same theme
    (archive / SOURCE).write_text((archive / SOURCE).read_text("utf-8").replace("login", "sign-in"), "utf-8")
    build(SiteConfig(archive=archive, output=site, jobs=1, cache_dir=cache, exports=ALL_EXPORTS))
    assert f"sessions/{CLAUDE}.html" in scanned
    assert not any(url.startswith("static/") for url in scanned)
    assert "sessions/amp-T-5c1e9a2b-3d4f-4a5b-8c6d-7e8f9a0b1c2d.html" not in scanned  # kept as published


def test_downloads_file_names_and_highlighted_pages(tmp_path):
    config = SiteConfig(archive=tmp_path, output=None)
    gz = tmp_path / "x.md.gz"
    gz.write_bytes(gzip.compress(f"text {KEY} more\n".encode()))
    name = f"sessions/{KEY}.html"
    (tmp_path / "named.html").write_text("<p>nothing here</p>", "utf-8")
    split = tmp_path / "split.html"  # highlighting splits a key into spans: the page's text still holds it
    split.write_text(f'<span class="n">{KEY[:10]}</span><span class="o">{KEY[10:]}</span>', "utf-8")
    markup = tmp_path / "markup.html"  # a name ending one highlighted line is not a secret with the next line's tags
    markup.write_text(
        '<span class="l">for item in render_view_token:</span><span class="l i" data-n="53">+ if x:</span>'
        '<p>Authorization: Bearer <span class="o">[</span>REDACTED:jwt<span class="o">]</span></p>',
        "utf-8",
    )
    leaks = scan_files(
        config, [("sessions/a.md.gz", gz), (name, tmp_path / "named.html"), ("s.html", split), ("m.html", markup)]
    )
    assert sorted(str(leak) for leak in leaks) == sorted(
        [
            "sessions/a.md.gz: anthropic-key (sk-ant-api03-…[61 chars])",
            f"{name} (file name): anthropic-key (sk-ant-api03-…[61 chars])",
            "s.html: anthropic-key (sk-ant-api03-…[61 chars])",
        ]
    )


def test_static_assets_are_not_scanned(published, tmp_path):
    """Static files come from the package and the user's --static folders, never from sessions."""
    archive, site = published
    static = tmp_path / "mystatic"
    static.mkdir()
    (static / "keys.js").write_text(f'// example: "{KEY}"\n', "utf-8")
    report = build(SiteConfig(archive=archive, output=site, jobs=1, static_dirs=(static,)))
    assert report.published and (site / "static" / "keys.js").is_file()


def _png_holding(base64_text: str) -> bytes:
    """A well-formed PNG container (images that are not one are left out) whose base64 holds
    ``base64_text``: its IDAT data starts on a 3-byte boundary, so the text encodes as itself."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
    lead = b"\0" * (-(len(header) + 8) % 3)
    body = lead + base64.b64decode(base64_text + "B" * (-len(base64_text) % 4))
    return header + chunk(b"IDAT", body) + chunk(b"IEND", b"")


def test_an_image_and_a_long_id_that_only_look_like_secrets_publish(tmp_path: Path) -> None:
    """Pixels and the search index's lone words are not what redaction reads: a base64 body
    holding ``AIza`` and 35 letters stays an image, and a 19-digit id that passes Luhn's
    check, redacted nowhere because a dash stood after it, does not stop the build."""
    lookalike = "AIza" + "B" * 35
    image = "data:image/png;base64," + base64.b64encode(_png_holding(lookalike)).decode()
    assert lookalike in image
    assert Redactor().text(image) == image
    assert Redactor().text(f"key {lookalike}") != f"key {lookalike}"  # as text it is a Google key
    archive = tmp_path / "archive" / "claude-code" / "-p"
    archive.mkdir(parents=True)
    card_like = "4029117178837806305"
    assert Redactor().text(f"{card_like} ") == f"{card_like} "  # 19 digits in one run: an id, not a card
    record = {
        "type": "user",
        "sessionId": "s",
        "uuid": "u1",
        "timestamp": "2026-01-01T00:00:00Z",
        "message": {
            "role": "user",
            "content": [
                {"type": "text", "text": f"see {card_like}-dec398c07.png in the log"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": image[22:]}},
            ],
        },
    }
    (archive / "s.jsonl").write_text(json.dumps(record) + "\n")
    site = tmp_path / "site"
    config = SiteConfig(archive=archive.parent.parent, output=site, jobs=1, cache_dir=tmp_path / "cache")
    report = build(replace(config, exports=ALL_EXPORTS))
    assert report.published and not report.leaks, report.leaks
    page = next((site / "sessions").glob("*.html")).read_text()
    assert image in page and f"{card_like}-dec398c07" in page
    terms = " ".join(unpacked(p.read_bytes()).decode() for p in (site / "search" / "t").glob("*.js"))
    assert f'"{card_like}"' in terms


def test_many_small_files_are_asked_together_and_each_leak_named_by_its_file(tmp_path: Path) -> None:
    """Small files and file names are looked at in groups; a finding still names its own file,
    two in one group both, and a user's pattern anchored to a whole text still holds file by file."""
    files = []
    for n in range(300):
        path = tmp_path / f"r{n}.html"
        body = f"<p>ref page {n}</p>"
        if n in (7, 8, 250):
            body = f"<p>ref page {n}: <code>{KEY}</code></p>"
        path.write_text(body, "utf-8")
        files.append((f"refs/r{n}.html", path))
    files.append((f"refs/{KEY}.html", tmp_path / "r0.html"))
    config = SiteConfig(archive=tmp_path, output=None)
    assert sorted(str(leak) for leak in scan_files(config, files)) == sorted(
        [f"refs/r{n}.html: anthropic-key (sk-ant-api03-…[61 chars])" for n in (7, 8, 250)]
        + [f"refs/{KEY}.html (file name): anthropic-key (sk-ant-api03-…[61 chars])"]
    )
    whole = replace(config, redact_patterns=(("whole-page", r"^ref page 12$"),))
    (tmp_path / "r12.html").write_text("ref page 12", "utf-8")
    assert [str(leak) for leak in scan_files(whole, files[10:20])] == ["refs/r12.html: whole-page (…[11 chars])"]


def test_a_page_is_read_as_its_text_with_its_escapes_undone(tmp_path: Path) -> None:
    """A value a rule knows by the quotes around it is found where the page wrote them as
    entities, among non-ASCII text and a byte that is no UTF-8; markup between its parts is dropped."""
    secret = alnum(40)
    page = tmp_path / "p.html"
    page.write_bytes(
        "<p>café &lt;b&gt; ünïcode</p>".encode()
        + b"\xff"
        + f'<span class="s">aws_secret_access_key&#34;: &#34;{secret[:12]}</span>'.encode()
        + f"<span>{secret[12:]}&#34;</span>".encode()
    )
    leaks = [str(leak) for leak in scan_files(SiteConfig(archive=tmp_path, output=None), [("p.html", page)])]
    assert leaks == [f"p.html: aws-secret-key ({mask(secret)})"]


@pytest.mark.parametrize("kind", ["frag", "chunk"])
def test_a_packed_search_file_is_read_unpacked(tmp_path: Path, kind: str) -> None:
    """A snippet pack or a term chunk is deflated JSON in base64: the scan reads what it holds
    (a snippet's text; a term, a word as the index writes it, lower case), where a secret would
    be, and not its base64 body, which hides them and holds random runs."""
    token = f"ghp_{alnum(36)}".lower()  # one word: a term the index could hold

    def packed_file(number: int, texts: list[str]) -> tuple[str, Path]:
        path = tmp_path / f"{kind}{number}.js"
        if kind == "frag":
            body = packed(json.dumps({"i": 0, "ev": [["e-1", "Prompt", s] for s in texts]}).encode())
            path.write_bytes(b"sessiteSearch.frag(0,%d,%s);\n" % (number, body))
            return fragment_url(0, number), path
        body = packed(json.dumps([[s, [], [], [1], [1000], [0]] for s in texts]).encode())
        path.write_bytes(b"sessiteSearch.chunk(%d,%s);\n" % (number, body))
        return terms_url(number), path

    config = SiteConfig(archive=tmp_path, output=None)
    secret = f"the key\n{KEY} here" if kind == "frag" else token
    url, path = packed_file(0, ["clean", secret])
    assert secret.encode() not in path.read_bytes()
    leaks = [str(leak) for leak in scan_files(config, [(url, path)])]
    expected = "anthropic-key (sk-ant-api03-…[61 chars])" if kind == "frag" else "github-token (ghp_…[36 chars])"
    assert leaks == [f"{url}: {expected}"]
    # A pattern that matches the base64 of any deflated JSON (zlib's header is "eJ…" in base64)
    probe = replace(config, redact_patterns=(("probe", r"\beJ[wxyz][A-Za-z0-9+/]{8}"),))
    assert scan_files(probe, [packed_file(1, ["nothing", "here"])]) == []


def test_a_site_whose_fragments_only_look_like_secrets_in_base64_publishes(published: tuple[Path, Path]) -> None:
    archive, site = published
    config = SiteConfig(
        archive=archive,
        output=site,
        jobs=1,
        cache_dir=site.parent / "cache2",
        redact_patterns=(("probe", r"\beJ[wxyz][A-Za-z0-9+/]{8}"),),
    )
    report = build(config)
    assert report.published and not report.leaks
    assert list((site / "search" / "f").rglob("*.js"))


def test_the_background_scan_of_the_session_pages_stops_the_publish(published, monkeypatch):
    """With two processes the session pages are scanned in a forked process while the
    site-wide pages are written: what it finds stops the publish as the main scan's would."""
    import sessite.pipeline.pipeline as pipeline

    archive, site = published
    before = _snapshot(site)
    _plant(archive)
    monkeypatch.setattr(worker, "Redactor", BlindToAnthropicKeys)
    started = []

    def spy(*args):
        early = output_scan.start_early_scan(*args)
        started.append(early)
        return early

    monkeypatch.setattr(pipeline, "start_early_scan", spy)
    report = build(SiteConfig(archive=archive, output=site, jobs=2, cache_dir=site.parent / "cache", exports=()))
    assert started and started[0] is not None and f"sessions/{CLAUDE}.html" in started[0].urls
    assert not report.published
    assert f"sessions/{CLAUDE}.html: anthropic-key (sk-ant-api03-…[61 chars])" in report.leaks
    assert _snapshot(site) == before


def test_the_search_snippets_are_read_where_they_are_made(published, monkeypatch):
    """A worker reads a session's snippet strings before they are packed: what the redactor missed is
    named by the session's page. The packed files are unpacked again only for secrets learnt in the
    sources: none in the first build, so none is read; the key in the second, which the first one's
    findings start (the blind redactor still misses it), and then only the file whose JSON holds it
    is read as its strings."""
    archive, site = published
    _plant(archive)
    monkeypatch.setattr(worker, "Redactor", BlindToAnthropicKeys)
    unpacked_files: list[str] = []
    pack_text = output_scan._pack_text

    def spy(data: bytes, json_data: bytes | None) -> str:
        unpacked_files.append("x")
        return pack_text(data, json_data)

    monkeypatch.setattr(output_scan, "_pack_text", spy)
    result = CliRunner().invoke(main, ["build", str(archive), "-o", str(site), "-q", "-j", "1"])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert f"sessions/{CLAUDE}.html (its search snippets): anthropic-key (sk-ant-api03-…[61 chars])" in lines
    in_files = [line for line in lines if line.startswith("search/f/")]
    assert in_files and all("redacted in another session" in line for line in in_files)  # (no shape finding)
    assert len(unpacked_files) == len({line.split(":")[0] for line in in_files}) == 1


class _Staged:
    """The one thing ``_learned_in_snippets`` asks of a site writer: where a staged file is now."""

    def __init__(self, paths: dict[str, Path]) -> None:
        self.paths = paths

    def current_path(self, url: str) -> Path:
        return self.paths[url]


@pytest.mark.parametrize("value", [f"Vq{alnum(14)}", f'Vq"{alnum(14)}', f"Vq\\{alnum(14)}"])
def test_a_learnt_secret_in_a_snippet_file_is_found(tmp_path: Path, value: str) -> None:
    """The snippet files are read again for the secrets a rule replaced in some source, once all
    are known: a file whose JSON holds none of them as written is passed after one look; a value
    JSON writes otherwise (a quote, a backslash) has every file read as its strings."""
    paths = {}
    for number, text in enumerate(["nothing here", f"the password {value} again", "more"]):
        path = tmp_path / f"{number}.js"
        body = packed(json.dumps({"i": 0, "ev": [["e-1", "Prompt", text]]}, ensure_ascii=False).encode())
        path.write_bytes(b"sessiteSearch.frag(0,%d,%s);\n" % (number, body))
        paths[fragment_url(0, number)] = path
    scan = output_scan._Scan(SiteConfig(archive=tmp_path, output=None), {value: "secret-assignment"})
    leaks = output_scan._learned_in_snippets(_Staged(paths), scan, sorted(paths))  # type: ignore[arg-type]
    assert [(leak.url, leak.value, leak.learned) for leak in leaks] == [(fragment_url(0, 1), value, True)]
    nothing = output_scan._Scan(SiteConfig(archive=tmp_path, output=None), {})
    assert output_scan._learned_in_snippets(_Staged(paths), nothing, sorted(paths)) == []  # type: ignore[arg-type]


def test_a_page_keeps_its_angle_brackets_and_ampersands_escaped_and_finds_alike(tmp_path: Path) -> None:
    """A page is read with ``&lt;``, ``&gt;`` and ``&amp;`` as written (undoing every entity took a sixth
    of the scan): a key beside them is found; a learnt value holding ``&`` or ``<`` is found and
    reported as the session wrote it, so a build can redact it; and a user's pattern, which may mean
    anything, reads the page with every entity undone."""
    token = f"ghp_{alnum(36)}"
    learnt = f"Pw&{alnum(6)}<{alnum(6)}"
    page = tmp_path / "p.html"
    page.write_text(
        f"<pre>&lt;{token}&gt;</pre><p>x&amp;{token}&amp;y</p>"
        f"<p>pass {learnt.replace('&', '&amp;').replace('<', '&lt;')}</p><p>&lt;ticket&gt;123456</p>",
        "utf-8",
    )
    config = SiteConfig(archive=tmp_path, output=None)
    scan = output_scan._Scan(config, {learnt: "secret-assignment"})
    found = [(leak.kind, leak.value, leak.learned) for leak in output_scan._content_leaks(scan, [("p.html", page)])]
    assert found == [
        ("github-token", token, False),
        ("github-token", token, False),
        ("secret-assignment", learnt, True),
    ]
    mine = replace(config, redact_patterns=(("ticket", r"<ticket>[0-9]{6}"),))
    leaks = scan_files(mine, [("p.html", page)])
    assert ("ticket", "<ticket>123456") in [(leak.kind, leak.value) for leak in leaks]
