"""One session as one self-contained HTML file (``sessite convert --to html``, ``--exports html``):
opened in Chromium from file:// with every other request refused, it loads nothing, logs no error,
folds, filters, finds and draws both themes; its Content-Security-Policy allows exactly its two
inline blocks; no planted secret is in its bytes; a big image is shrunk to the size budget and the
file says so; a build links the file from each session page only when asked."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import secrets_archive
import xss_archive
from bs4 import BeautifulSoup
from click.testing import CliRunner
from helpers import build_site, follow_link, parse_html
from PIL import Image

from sessite.analyze.image_metadata import LEFT_OUT
from sessite.cli import main
from sessite.outputs.single_file import SingleFileError, keep_links_that_resolve, parse_size

SID = "5e551011-aaaa-4bbb-8ccc-000000000019"
SESSION = f"claude_code-{SID}"
FIND_WORD = "zebraquartz"  # only in a long tool output, folded twice: in its call and in its run
OUTPUT_LINES = 60


def _png(width: int, height: int, noisy: bool, seed: int = 19) -> str:
    """A PNG as a data: URI: flat colour, or noise (which no encoder can compress)."""
    if noisy:
        pixels = random.Random(seed).randbytes(width * height * 3)
        image = Image.frombytes("RGB", (width, height), pixels)
    else:
        image = Image.new("RGB", (width, height), (200, 30, 30))
    out = io.BytesIO()
    image.save(out, "PNG")
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


SMALL_PNG = _png(40, 30, noisy=False)
# 5.8 MB of PNG, 7.7 MB as a data: URI. Seed 19's base64 happens to hold "AIZa" and 35 letters, which
# the secrets redaction takes for a Google API key (and so breaks the image); seed 20's does not.
BIG_PNG = _png(1600, 1200, noisy=True, seed=20)


def _record(n: int, kind: str, content: Any, parent: str | None, **extra: Any) -> dict[str, Any]:
    role = "user" if kind == "user" else "assistant"
    message: dict[str, Any] = {"role": role, "content": content}
    if role == "assistant":
        message |= {"model": "claude-opus-4-6", "id": f"msg_{n}", "type": "message"}
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "cwd": "/home/dev/shop",
        "sessionId": SID,
        "version": "2.1.39",
        "gitBranch": "main",
        "type": kind,
        "message": message,
        "uuid": f"x-{n:04d}",
        "timestamp": f"2026-10-01T10:{n // 60:02d}:{n % 60:02d}.000Z",
        **extra,
    }


def _session_lines(images: list[str]) -> list[dict[str, Any]]:
    """A Claude Code session with prompts, thinking, code, a run of tool calls with a long output,
    links in and out of the page, planted secrets, and the given images."""
    output = "\n".join(f"line {i} of the test run" for i in range(OUTPUT_LINES - 5))
    output += f"\nthe {FIND_WORD} marker line\n" + "\n".join(f"tail {i}" for i in range(4))
    content: list[tuple[str, Any]] = [
        ("user", f"Fix the cart rounding. Keys for the test:\n{secrets_archive.PAYLOAD}"),
        (
            "assistant",
            [{"type": "thinking", "thinking": "The total is summed in floats; use Decimal.", "signature": "s"}],
        ),
        ("assistant", [{"type": "text", "text": "Plan:\n\n```python\ndef total(items):\n    return sum(items)\n```"}]),
    ]
    calls = [
        ("Bash", {"command": f"pytest -q  # {secrets_archive.SECRETS['github-classic']}", "description": "Run tests"}),
        ("Read", {"file_path": "/home/dev/shop/cart.py"}),
        ("Grep", {"pattern": "total", "path": "/home/dev/shop"}),
    ]
    for i, (name, tool_input) in enumerate(calls):
        content.append(("assistant", [{"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": tool_input}]))
        text = output if name == "Bash" else f"{name} result"
        content.append(("user", [{"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": text}]))
    content.append(
        (
            "assistant",
            [{"type": "text", "text": "See [the notes](docs/notes.md) and [the spec](https://example.com/spec)."}],
        )
    )
    blocks: list[dict[str, Any]] = [{"type": "text", "text": "Here is what the page looks like now."}]
    for uri in images:
        mime, data = uri[5:].split(";base64,")
        blocks.append({"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}})
    content.append(("user", blocks))
    content.append(("assistant", [{"type": "text", "text": "The rounding is fixed."}]))
    records, parent = [], None
    for n, (kind, body) in enumerate(content):
        records.append(_record(n, kind, body, parent))
        parent = records[-1]["uuid"]
    return records


def _archive(root: Path, images: list[str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    lines = _session_lines(images)
    (root / f"{SID}.jsonl").write_text("\n".join(json.dumps(r) for r in lines) + "\n", "utf-8")
    return root


def _convert(*args: Any) -> Any:
    return CliRunner().invoke(main, ["convert", *map(str, args)])


@pytest.fixture(scope="module")
def packed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test session with a small and a big image, converted with the default budget."""
    root = tmp_path_factory.mktemp("single")
    result = _convert(_archive(root / "archive", [SMALL_PNG, BIG_PNG]), "--to", "html", "-o", root / "one.html")
    assert result.exit_code == 0, result.output
    return root / "one.html"


# ---------------------------------------------------------------- the file's own bytes


def test_the_file_loads_nothing_and_links_only_what_is_there(packed: Path) -> None:
    soup = parse_html(packed)
    assert not soup.select("link"), "no stylesheet, icon or feed link"
    assert not soup.select("script[src], iframe, object, embed, base")
    assert len(soup.select("style")) == 1 and len(soup.select("script")) == 1
    assert [img["src"][:15] for img in soup.select("img")] == ["data:image/png;", "data:image/webp"]
    ids = {el["id"] for el in soup.select("[id]")}
    hrefs = [a["href"] for a in soup.select("a[href]")]
    assert any(h.startswith("#e-") for h in hrefs), "permalinks and the outline stay"
    for href in hrefs:
        if href.startswith("#"):
            assert href[1:] in ids or href == "#unsafe-link-removed", f"{href} leads nowhere in the file"
        else:
            assert href.startswith(("https://", "http://", "mailto:")), f"{href}: a file that will not be there"
    # a relative link in the text is its words; a link to the web stays
    answer = next(li for li in soup.select("li.k-assistant") if "the notes" in li.get_text())
    assert answer.find("a", string="the spec")["href"] == "https://example.com/spec"
    assert answer.find("a", string="the notes") is None and "the notes" in answer.get_text()
    # the site's header, search and project links are not there; the find box is
    assert not soup.select("form[action], [data-site-search], [data-session-nav], [data-parts]")
    assert soup.select_one("form[data-find] input[type=search]")


def test_the_policy_allows_exactly_the_inline_blocks(packed: Path) -> None:
    soup = parse_html(packed)
    policy = soup.select_one('meta[http-equiv="Content-Security-Policy"]')["content"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["default-src"] == "'none'" and directives["img-src"] == "data:"
    assert "unsafe" not in policy and "'self'" not in policy

    def sha(text: str) -> str:
        return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"

    raw = packed.read_text("utf-8")  # the blocks as the browser hashes them (the parser keeps them verbatim)
    style = re.search(r"<style>(.*?)</style>", raw, re.S).group(1)
    script = re.search(r"<script>(.*?)</script>", raw, re.S).group(1)
    assert directives["style-src"] == sha(style) and directives["script-src"] == sha(script)
    assert "sessite page behaviour" in script and "prefers-color-scheme: dark" in style
    head = raw[: raw.index("<style>")]
    assert "Content-Security-Policy" in head, "the policy comes before the blocks it governs"


def test_no_planted_secret_is_in_the_file(packed: Path, tmp_path: Path) -> None:
    data = packed.read_bytes()
    found = [label for label, core in secrets_archive.CORES.items() if core.encode() in data]
    assert found == []
    assert b"[REDACTED:" in data and b"Secrets are redacted" in data
    raw = tmp_path / "raw.html"
    result = _convert(_archive(tmp_path / "archive", []), "--to", "html", "-o", raw, "--no-redact")
    assert result.exit_code == 0, result.output
    assert secrets_archive.CORES["github-classic"].encode() in raw.read_bytes(), "the check has teeth"
    assert b"Not redacted" in raw.read_bytes()


def test_the_big_image_is_shrunk_to_the_budget_and_the_file_says_so(packed: Path, tmp_path: Path) -> None:
    assert len(BIG_PNG) > 5_000_000
    assert packed.stat().st_size <= 5_000_000
    note = parse_html(packed).select_one(".single-note").get_text()
    assert "2 images" in note and "1 shrunk to fit the file's 5.0 MB budget" in note, note
    small = tmp_path / "small.html"
    result = _convert(packed.parent / "archive", "--to", "html", "-o", small, "--max-size", "500KB")
    assert result.exit_code == 0, result.output
    assert small.stat().st_size <= 500_000
    assert "shrunk to fit the file's 500 KB budget" in result.output  # convert says it too
    images = parse_html(small).select("img")
    assert len(images) == 2
    sizes = [Image.open(io.BytesIO(base64.b64decode(img["src"].split(",", 1)[1]))).size for img in images]
    assert max(sizes[1]) < 1600 and sizes[1][0] / sizes[1][1] == pytest.approx(4 / 3, rel=0.02)


def test_images_that_cannot_fit_are_left_out_where_they_stood(tmp_path: Path) -> None:
    out = tmp_path / "tiny.html"
    result = _convert(_archive(tmp_path / "archive", [BIG_PNG]), "--to", "html", "-o", out, "--max-size", "40KB")
    assert result.exit_code == 0, result.output
    soup = parse_html(out)
    assert not soup.select("img")
    place = soup.select_one(".block-image").get_text()
    assert "left out of this file (over the file's size budget, 7.7 MB)" in place, place
    note = soup.select_one(".single-note").get_text()
    assert "1 left out" in note and "Its text alone is" in note and "text is never cut" in note


def test_text_over_the_budget_is_kept_whole_and_said(tmp_path: Path) -> None:
    out = tmp_path / "text.html"
    result = _convert(_archive(tmp_path / "archive", []), "--to", "html", "-o", out, "--max-size", "20KB")
    assert result.exit_code == 0, result.output
    assert f"{SESSION}: Its text alone is" in result.output and "over the 20 KB budget" in result.output
    soup = parse_html(out)
    assert "text is never cut" in soup.select_one(".single-note").get_text()
    assert FIND_WORD in soup.select_one("article.session").get_text(), "nothing of the text is left out"
    assert out.stat().st_size > 20_000


def test_unreadable_and_metadata_laden_images(tmp_path: Path) -> None:
    """An image no decoder reads is left out with a note; a photo's EXIF (where it was taken) is dropped."""
    photo = Image.new("RGB", (64, 48), (10, 120, 200))
    exif = Image.Exif()
    exif[0x010F] = "PlantedCameraMaker"  # Make
    buf = io.BytesIO()
    photo.save(buf, "JPEG", exif=exif)
    assert b"PlantedCameraMaker" in buf.getvalue()
    jpeg = "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode()
    broken = "data:image/png;base64," + base64.b64encode(b"\x89PNG not really").decode()
    out = tmp_path / "x.html"
    assert _convert(_archive(tmp_path / "a", [jpeg, broken]), "--to", "html", "-o", out).exit_code == 0
    soup = parse_html(out)
    (img,) = soup.select("img")
    data = base64.b64decode(img["src"].split(",", 1)[1])
    assert img["src"].startswith("data:image/jpeg") and b"PlantedCameraMaker" not in data
    assert Image.open(io.BytesIO(data)).size == (64, 48)
    assert LEFT_OUT in soup.get_text()  # cut before packing, as from every page (analyze/image_metadata.py)


def test_the_file_is_the_same_every_time(packed: Path, tmp_path: Path) -> None:
    again = tmp_path / "again.html"
    assert _convert(packed.parent / "archive", "--to", "html", "-o", again).exit_code == 0
    assert again.read_bytes() == packed.read_bytes()


def test_keep_links_that_resolve_leaves_the_head_alone() -> None:
    html = (
        '<head><script>"<a href=x>y</a>"</script></head>'
        '<body><a class="chip" href="../index.html?tool=Read" title="t">Read <b>2</b></a> <a href="#e-1">#</a></body>'
    )
    out = keep_links_that_resolve(html)
    assert out.startswith('<head><script>"<a href=x>y</a>"</script></head>')
    assert '<span class="chip" title="t">Read <b>2</b></span> <a href="#e-1">#</a>' in out


# ---------------------------------------------------------------- the command


def test_sizes_and_refusals() -> None:
    assert parse_size("5MB") == 5_000_000 and parse_size("500KB") == 500_000 and parse_size("1234") == 1234
    assert parse_size("1.5 mb") == 1_500_000 and parse_size("2MiB") == 2 * 1024 * 1024
    for bad in ("lots", "5 parsecs", "0", "-3MB", ""):
        with pytest.raises(SingleFileError):
            parse_size(bad)
    result = _convert(xss_archive.__file__, "--to", "html", "-o", "x.html", "--max-size", "lots")
    assert result.exit_code == 2 and "--max-size" in result.output and "Traceback" not in result.output


def test_several_sessions_go_to_a_folder_not_a_file(tmp_path: Path) -> None:
    archive = xss_archive.write(tmp_path / "archive")
    result = _convert(archive, "--to", "html", "-o", tmp_path / "one.html")
    assert result.exit_code == 1 and "give a folder for -o" in result.output
    result = _convert(archive, "--to", "html", "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    files = sorted((tmp_path / "out").glob("*.html"))
    assert len(files) > 3 and all(parse_html(f).select_one("article.session") for f in files)


# ---------------------------------------------------------------- in a browser, from file://


@pytest.fixture
def offline(browser: Any) -> Iterator[Any]:
    """A tab that refuses every request but the file it opened, and records what went wrong."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    tab.set_default_timeout(10_000)
    tab.seen = {"requests": [], "failed": [], "errors": [], "dialogs": []}
    tab.on("request", lambda r: tab.seen["requests"].append(r.url))
    tab.on("requestfailed", lambda r: tab.seen["failed"].append(r.url))
    tab.on("console", lambda m: tab.seen["errors"].append(m.text) if m.type in ("error", "warning") else None)
    tab.on("pageerror", lambda exc: tab.seen["errors"].append(str(exc)))
    tab.on("dialog", lambda d: (tab.seen["dialogs"].append(d.message), d.dismiss()))
    yield tab
    context.close()


def _open(tab: Any, path: Path) -> None:
    url = path.as_uri()
    tab.route("**/*", lambda route: route.continue_() if route.request.url == url else route.abort())
    tab.goto(url)
    tab.wait_for_load_state("load")


def _clean(tab: Any, path: Path) -> None:
    assert tab.seen["requests"] == [path.as_uri()], "the file asks for nothing else"
    assert tab.seen["failed"] == [] and tab.seen["errors"] == [] and tab.seen["dialogs"] == []


def test_it_reads_like_the_session_page_with_nothing_else(offline: Any, packed: Path) -> None:
    tab = offline
    _open(tab, packed)
    assert tab.locator("[data-toolbar]").is_visible(), "the script runs (its hash is allowed)"
    assert tab.locator("nav.outline li").count() == 2
    # folding: the run of three calls is one closed line; Expand all opens it, Collapse all closes it
    run = tab.locator("ol.tl > li.run > details")
    assert run.count() == 1 and not run.evaluate("d => d.open")
    tab.click("[data-action=expand-all]")
    assert run.evaluate("d => d.open") and tab.locator("li.cat-shell pre").first.is_visible()
    tab.click("[data-action=collapse-all]")
    assert not run.evaluate("d => d.open")
    # kind filters
    tab.uncheck("[data-kind-filters] input[value=tool]")
    assert not tab.locator("ol.tl > li.f-tool").first.is_visible()
    assert tab.locator("ol.tl > li.f-prompt").first.is_visible()
    # highlighting: the fenced Python's keyword has the theme's colour
    keyword = tab.locator(".hl .k").first
    assert keyword.inner_text() == "def"
    assert keyword.evaluate("e => getComputedStyle(e).color") != tab.evaluate("getComputedStyle(document.body).color")
    # both images drawn from their data: URIs
    assert tab.locator("img").evaluate_all("els => els.map(e => e.complete && e.naturalWidth > 0)") == [True, True]
    _clean(tab, packed)


def test_find_opens_what_hides_the_match(offline: Any, packed: Path) -> None:
    tab = offline
    _open(tab, packed)
    tab.uncheck("[data-kind-filters] input[value=tool]")  # the match is in a tool's output: hidden thrice
    box = tab.locator("form[data-find] input[type=search]")
    assert box.is_visible()
    box.fill(FIND_WORD)
    box.press("Enter")
    hit = tab.locator("mark.find-hit.current")
    assert hit.inner_text() == FIND_WORD
    assert tab.locator("[data-find-count]").inner_text() == "1 of 1"
    assert hit.is_visible(), "its run, its call, its long output and the tools filter all opened"
    assert tab.is_checked("[data-kind-filters] input[value=tool]")
    # a word in many places: Enter steps through them, a match across highlighted code's spans included
    box.fill("return sum")
    box.press("Enter")
    assert tab.locator("[data-find-count]").inner_text() == "1 of 1"
    assert tab.locator("mark.find-hit").count() > 1, "one match, marked in each span it crosses"
    box.fill("line 1")
    box.press("Enter")
    count = tab.locator("[data-find-count]").inner_text()
    assert re.fullmatch(r"1 of \d+", count) and int(count.split()[-1]) > 10
    box.press("Enter")
    assert tab.locator("[data-find-count]").inner_text().startswith("2 of ")
    box.press("Shift+Enter")
    assert tab.locator("[data-find-count]").inner_text().startswith("1 of ")
    box.fill("no-such-words-here")
    box.press("Enter")
    assert tab.locator("[data-find-count]").inner_text() == "no match" and tab.locator("mark.find-hit").count() == 0
    # the browser's own find reaches folded text too (what Ctrl+F rests on)
    assert tab.evaluate("w => window.find(w, false, false, true)", "tail 3")
    _clean(tab, packed)


def test_both_themes_render(browser: Any, packed: Path) -> None:
    colours = {}
    for scheme in ("light", "dark"):
        context = browser.new_context(color_scheme=scheme)
        tab = context.new_page()
        errors: list[str] = []
        tab.on("console", lambda m, errors=errors: errors.append(m.text) if m.type == "error" else None)
        tab.goto(packed.as_uri())
        colours[scheme] = (
            tab.evaluate("getComputedStyle(document.body).backgroundColor"),
            tab.locator(".hl .k").first.evaluate("e => getComputedStyle(e).color"),
        )
        context.close()
        assert errors == []
    assert colours["light"][0] == "rgb(255, 255, 255)" and colours["dark"][0] != colours["light"][0]
    assert colours["dark"][1] != colours["light"][1], "code is highlighted with the dark theme's colours"


def test_session_text_never_runs(offline: Any, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert _convert(xss_archive.write(tmp_path / "archive"), "--to", "html", "-o", out).exit_code == 0
    tab = offline
    for path in sorted(out.glob("*.html"))[:4]:
        tab.seen["requests"].clear()
        tab.unroute("**/*")
        _open(tab, path)
        assert tab.evaluate("window.__xss") is None, path.name
        assert "<script>window.__xss=1" in tab.locator("article.session").inner_text()  # shown as text
        _clean(tab, path)


# ---------------------------------------------------------------- in a build


def test_exports_html_writes_the_file_and_the_page_links_it(tmp_path: Path) -> None:
    archive = _archive(tmp_path / "archive", [SMALL_PNG])
    site = tmp_path / "site"
    report = build_site(archive, site, exports=("aics", "html"), part_bytes=8_000)
    assert report.published
    page = site / "sessions" / f"{SESSION}.html"
    assert (site / "sessions" / SESSION / "p2.html").is_file(), "the site splits this session into parts"
    (link,) = parse_html(page).select(".share a")
    assert link.get_text() == "Download as one file" and link["download"] == f"{SESSION}.html"
    target, _ = follow_link(page, link["href"])
    assert target == (site / "sessions" / SESSION / f"{SESSION}.html").resolve()
    single = parse_html(target)
    page_ids = {el["id"] for p in (site / "sessions").rglob("*.html") for el in parse_html(p).select("li.event[id]")}
    assert {el["id"] for el in single.select("li.event[id]")} == page_ids, "every event, on one page"
    assert [a.get_text() for a in parse_html(page).select(".downloads a")] == ["AICS"]
    assert secrets_archive.CORES["github-classic"].encode() not in target.read_bytes()
    # without html among the exports: no file, no link
    build_site(archive, site, exports=("aics",))
    assert not parse_html(page).select(".share") and not (site / "sessions" / SESSION).exists()


def test_exports_html_in_sessite_toml_and_on_the_command_line(tmp_path: Path) -> None:
    archive = _archive(tmp_path / "archive", [])
    (archive / "sessite.toml").write_text('exports = ["html"]\n', "utf-8")
    result = CliRunner().invoke(main, ["build", str(archive), "-o", str(tmp_path / "a"), "-q"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "a" / "sessions" / SESSION / f"{SESSION}.html").is_file()
    result = CliRunner().invoke(main, ["build", str(archive), "-o", str(tmp_path / "b"), "-q", "--exports", "none"])
    assert result.exit_code == 0 and not (tmp_path / "b" / "sessions" / SESSION).exists()
    result = CliRunner().invoke(main, ["build", str(archive), "-o", str(tmp_path / "c"), "--exports", "html,pdf"])
    assert result.exit_code == 1 and "unknown export format pdf" in result.output and "html" in result.output
    soup = BeautifulSoup((tmp_path / "a" / "sessions" / f"{SESSION}.html").read_text(), "html.parser")
    assert soup.select_one(".share a") and not soup.select(".downloads")


def test_the_preview_serves_the_file_as_it_is(tmp_path: Path) -> None:
    """``sessite serve`` adds its reload script to pages, never to a single file (it is downloaded to open alone)."""
    import http.client
    import threading

    from sessite.config import SiteConfig
    from sessite.serve.server import PreviewState, make_server

    archive = _archive(tmp_path / "archive", [])
    state = PreviewState(SiteConfig(archive=archive, output=tmp_path / "site", progress=False, exports=("html",)))
    state.rebuild(log=lambda line: None)
    server = make_server(state, port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()

    def get(path: str) -> bytes:
        conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=10)
        conn.request("GET", path)
        body = conn.getresponse().read()
        conn.close()
        return body

    try:
        assert b"/__sessite__/reload.js" in get(f"/sessions/{SESSION}.html")
        single = get(f"/sessions/{SESSION}/{SESSION}.html")
        assert b"data-find" in single and b"__sessite__" not in single
        assert single == (tmp_path / "site" / "sessions" / SESSION / f"{SESSION}.html").read_bytes()
    finally:
        server.shutdown()
        server.server_close()
