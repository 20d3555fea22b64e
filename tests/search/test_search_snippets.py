"""Search results show why they matched: each snippet holds the matched words, marked, cut from
the matching event; an exact identifier ranks above its other spellings and above its parts apart.

A hand-made Claude Code archive plants the identifier ``flux_capacitor``:

- deep in a long tool result (past what the snippet files keep of an event's start),
- in a session's folder name (header metadata) and in a later answer,
- spelled ``FluxCapacitor``,
- as ``flux`` and ``capacitor`` apart, many times (lunr alone would rank this first),
- as ``flux`` in one event and ``capacitor`` in another.

The results page is driven in headless Chromium from file:// (the search runs on the page) and
over HTTP (in a Web Worker); the build side and the ranking are also checked with lunr.js in node.
"""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
import zlib
from pathlib import Path
from urllib.parse import quote

import pytest
from helpers import REPO, build_site, parse_html
from search_support import StaticServer, read_views

from sessite.outputs.search import session_events
from sessite.search import index as search_index
from sessite.search import item as search_item
from sessite.search.excerpts import EXCERPT_BUDGET, excerpts
from sessite.search.item import SNIPPET_CHARS, session_item

sys.path.insert(0, str(REPO / "benchmarks"))
import gen_archive  # noqa: E402

WORD = "flux_capacitor"
NODE_SCRIPT = Path(__file__).resolve().parents[1] / "search_snippets_node.js"

# ---------------------------------------------------------------------------
# the archive


def _filler(lines: int, start: int = 1) -> str:
    return "\n".join(f"{n:>4}\tdef helper_{n}(value):  # keeps the listing long" for n in range(start, start + lines))


def _session(sid: str, cwd: str, title: str, turns: list[tuple[str, str]]) -> list[dict]:
    """Claude Code records: a user prompt ``title``, then turns of ("answer", text) or ("read", output)."""
    env = {"sessionId": sid, "cwd": cwd, "version": "2.1.39", "isSidechain": False, "userType": "external"}
    records: list[dict] = []
    parent = None

    def add(kind: str, message: dict, **extra) -> None:
        nonlocal parent
        uuid = f"{sid[:8]}-{len(records)}"
        stamp = f"2026-03-01T10:{len(records):02d}:00Z"
        records.append(
            {**env, "type": kind, "uuid": uuid, "parentUuid": parent, "timestamp": stamp, "message": message, **extra}
        )
        parent = uuid

    add("user", {"role": "user", "content": title})
    for n, (kind, text) in enumerate(turns):
        if kind == "answer":
            content = [{"type": "text", "text": text}]
            add("assistant", {"id": f"m{n}", "model": "claude-sonnet-4", "role": "assistant", "content": content})
            continue
        tool = f"toolu_{sid[:4]}_{n}"
        call = {"type": "tool_use", "id": tool, "name": "Read", "input": {"file_path": f"{cwd}/src/listing_{n}.py"}}
        add("assistant", {"id": f"m{n}", "model": "claude-sonnet-4", "role": "assistant", "content": [call]})
        add("user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool, "content": text}]})
    return records


SESSIONS = {
    # the identifier only far down a long file listing: the snippet must come from there
    "deep": (
        "/home/dev/garage",
        "Look through the garage code for the time circuit",
        [
            ("answer", "I will read the module first."),
            ("read", _filler(120) + f"\n 121\tdef {WORD}(gw):\n 122\t    return gw  # gigawatts\n" + _filler(80, 123)),
            ("answer", "The module has what we need."),
        ],
    ),
    # the identifier in the folder name (session header) and in a later answer
    "header": (
        f"/home/dev/{WORD}",
        "Tidy the readme",
        [("answer", "Done with the readme wording."), ("answer", f"Renamed the helper to {WORD} as asked.")],
    ),
    "camel": (
        "/home/dev/delorean",
        "Port the Go service",
        [("answer", "The Go side calls FluxCapacitor.Charge() before every jump.")],
    ),
    # the parts apart, many times: lunr's score alone would put this first
    "apart": (
        "/home/dev/physics",
        "Notes on flux",
        [("answer", " ".join(["The magnetic flux grows and the capacitor charges."] * 12))],
    ),
    # one part in one event, the other part in another
    "split": (
        "/home/dev/lab",
        "Measure the flux",
        [
            ("answer", "The flux meter reads high today."),
            ("answer", "Then swap the capacitor on the bench."),
        ],
    ),
}
IDS = {name: f"{n + 1:08d}-1111-4222-8333-444444444444" for n, name in enumerate(SESSIONS)}


def write_archive(root: Path) -> Path:
    for name, (cwd, title, turns) in SESSIONS.items():
        folder = root / "projects" / cwd.replace("/", "-").replace("_", "-")
        folder.mkdir(parents=True, exist_ok=True)
        lines = [json.dumps(r) for r in _session(IDS[name], cwd, title, turns)]
        (folder / f"{IDS[name]}.jsonl").write_text("\n".join(lines) + "\n")
    return root


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("snippets")
    out = root / "site"
    report = build_site(write_archive(root / "archive"), out)
    assert report.sessions == len(SESSIONS) and not report.problems
    return out


def _page_of(site: Path, name: str) -> str:
    """The URL (relative to the site) of a session's page."""
    for page in (site / "sessions").glob("*.html"):
        if IDS[name] in page.read_text("utf-8"):
            return f"sessions/{page.name}"
    raise AssertionError(f"no page for {name}")


# ---------------------------------------------------------------------------
# the results page in Chromium


def _results(page, url: str) -> list[dict]:
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url)
    page.wait_for_function("() => document.querySelector('[data-search-status]').dataset.state === 'done'")
    page.wait_for_function("() => !document.querySelector('.search-result .muted')")  # snippets filled in
    assert errors == []
    return page.evaluate(
        """() => Array.from(document.querySelectorAll('.search-results > li')).map(li => ({
            divider: li.classList.contains('search-divider'),
            text: li.textContent,
            match: li.dataset.match || null,
            href: li.querySelector('.result-title a') && li.querySelector('.result-title a').getAttribute('href'),
            kind: li.querySelector('.result-kind') && li.querySelector('.result-kind').textContent,
            snippet: li.querySelector('.snippet') && li.querySelector('.snippet').textContent,
            marks: Array.from(li.querySelectorAll('.snippet:not(.snippet-also) mark')).map(m => m.textContent),
            also: Array.from(li.querySelectorAll('.snippet-also mark')).map(m => m.textContent),
            alsoKinds: Array.from(li.querySelectorAll('.snippet-also .snippet-kind')).map(a => a.textContent),
            markup: li.querySelector('.snippet') && li.querySelector('.snippet').innerHTML,
        }))"""
    )


def _check_results(site: Path, items: list[dict]) -> None:
    results = [i for i in items if not i["divider"]]
    pages = {name: _page_of(site, name) for name in SESSIONS}
    order = [next(n for n, p in pages.items() if p in r["href"]) for r in results]
    # the exact identifier first (its two sessions), then its other spelling, then the parts apart
    assert set(order[:2]) == {"deep", "header"}, order
    assert order[2] == "camel", order
    assert set(order[3:]) == {"apart", "split"}, order
    assert [r["match"] for r in results] == ["whole"] * 3 + ["apart"] * 2
    dividers = [n for n, i in enumerate(items) if i["divider"]]
    assert dividers == [3], "one divider, just before the results that hold the parts apart"
    assert items[3]["text"] == "Sessions with flux and capacitor apart, not as “flux_capacitor”:"
    for name, r in zip(order, results):
        assert r["marks"], f"{name}: its snippet marks nothing: {r['snippet']!r}"
        assert re.fullmatch(r"(<mark>[^<]*</mark>|[^<>])*", r["markup"]), "snippets are text and <mark>s only"
        for mark in r["marks"]:
            assert mark.lower().replace("_", "") in {"fluxcapacitor", "flux", "capacitor"}, (name, mark)
    by = dict(zip(order, results))
    deep = by["deep"]
    assert WORD in deep["marks"] and deep["kind"] == "tool result"
    assert deep["snippet"].startswith("…") and "helper_1(" not in deep["snippet"], "not the start of the listing"
    assert "121" in deep["snippet"] and "gigawatts" in deep["snippet"], "the words around the match"
    header = by["header"]
    assert WORD in header["marks"] and header["kind"] == "assistant", "the answer, not the session header"
    assert "Renamed the helper" in header["snippet"]
    assert by["camel"]["marks"] == ["FluxCapacitor"]
    assert {"flux", "capacitor"} <= set(by["apart"]["marks"]), "both parts, in one window"
    assert by["split"]["marks"] and set(by["split"]["marks"]) <= {"flux", "capacitor"}


def test_snippets_show_the_match_from_file_url(site, page):
    items = _results(page, (site / "search.html").as_uri() + "?q=" + quote(WORD))
    assert page.locator("[data-search-status]").get_attribute("data-engine") == "page"
    status = page.locator("[data-search-status]").inner_text()
    assert status == "3 sessions match “flux_capacitor”; 2 more only with flux and capacitor apart.", status
    _check_results(site, items)


def test_snippets_show_the_match_over_http(site, page):
    with StaticServer(site) as server:
        items = _results(page, server.url + "search.html?q=" + quote(WORD))
        assert page.locator("[data-search-status]").get_attribute("data-engine") == "worker"
        _check_results(site, items)
        # the first result opens its session at the matching event, the identifier marked there
        page.locator(".search-result .result-title a").first.click()
        page.wait_for_url(re.compile(r"\?hl=.*#.+$"))
        mark = page.locator(":target mark.search-hit").first
        mark.wait_for()
        assert mark.inner_text() == WORD and mark.is_visible()


def test_two_words_find_the_identifier_they_make_and_the_words_apart(site, page):
    items = _results(page, (site / "search.html").as_uri() + "?q=" + quote("flux capacitor"))
    results = [i for i in items if not i["divider"]]
    pages = {name: _page_of(site, name) for name in SESSIONS}
    order = [next(n for n, p in pages.items() if p in r["href"]) for r in results]
    # every session holds both words (the identifier they make only adds a little to its score);
    # "split" has the words in no one event
    assert sorted(order) == sorted(SESSIONS), order
    assert [r["match"] for r in results] == ["whole"] * len(SESSIONS)
    assert not any(i["divider"] for i in items), "every result holds both words"
    for r in results:
        assert r["marks"], r
    by = dict(zip(order, results))
    assert WORD in by["deep"]["marks"]
    split = by["split"]
    assert len(split["marks"]) == 1 and len(split["also"]) == 1, "one word from each of the two events"
    assert {*split["marks"], *split["also"]} == {"flux", "capacitor"} and split["alsoKinds"] == ["assistant"]


def test_results_page_screenshots(site, browser):
    """Both themes, phone and laptop widths, into /tmp/shots/h7-search (looked at by hand)."""
    shots = Path("/tmp/shots/h7-search")
    shots.mkdir(parents=True, exist_ok=True)
    for scheme in ("light", "dark"):
        for width, height in ((390, 844), (1280, 900)):
            context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
            tab = context.new_page()
            _results(tab, (site / "search.html").as_uri() + "?q=" + quote(WORD))
            # the results fit (the page frame around them, header box included, is not this test's)
            widest = tab.evaluate(
                "() => Math.max(...Array.from(document.querySelectorAll("
                "'.search-results, .search-results *, .search-status')).map(e => e.getBoundingClientRect().right))"
            )
            assert widest <= width
            tab.screenshot(path=str(shots / f"results-{scheme}-{width}.png"), full_page=True)
            context.close()


# ---------------------------------------------------------------------------
# the build side: which event a term opens at, and the excerpts kept for it


def test_an_identifier_deep_in_a_long_event_gets_an_excerpt_there():
    head = "x " * SNIPPET_CHARS
    events = [("", "session", "title flux_capacitor"), ("e1", "user", "hello"), ("e2", "tool result", head + WORD)]
    _, _, _, _, terms, records, _, _ = session_item("t", "a", "p", "", "sessions/s.html", events)
    record = list(records[terms.index(WORD) * 6 : terms.index(WORD) * 6 + 6])
    assert record[3:] == [2, -1, -1], "opens at the event that holds it, not at the header"
    hello = terms.index("hello")
    assert list(records[hello * 6 + 3 : hello * 6 + 6]) == [1, -1, -1]
    only_header = terms.index("titl")
    assert list(records[only_header * 6 + 3 : only_header * 6 + 6]) == [0, -1, -1]


def test_visible_events_come_before_deep_ones():
    long = "y " * SNIPPET_CHARS + "gizmo"
    events = [("", "session", "t"), ("e1", "tool result", long), ("e2", "user", "a gizmo here")]
    _, _, _, _, terms, records, _, _ = session_item("t", "a", "", "", "sessions/s.html", events)
    i = terms.index("gizmo")
    assert list(records[i * 6 + 3 : i * 6 + 6]) == [2, -1, -1]


def test_excerpts_are_windows_around_whole_tokens_and_bounded():
    text = "prefix_flux_capacitor and " + "pad " * 100 + "the flux_capacitor( call" + " pad" * 100
    (window,) = excerpts(text, {WORD})
    assert "the flux_capacitor( call" in window and "prefix_" not in window and len(window) < 200
    many = " ".join(f"w{n}" + " z" * 60 for n in range(2000))
    kept = excerpts(many, {f"w{n}" for n in range(2000)})
    assert 0 < sum(map(len, kept)) <= EXCERPT_BUDGET


def _snippet_entries(site: Path) -> dict[str, list]:
    """anchor -> its entry in the snippet files, decoded as search.js decodes them."""
    entries = {}
    for path in (site / "search" / "f").rglob("*.js"):
        match = re.fullmatch(r'sessiteSearch\.frag\((\d+),(\d+),"([A-Za-z0-9+/=]*)"\);\n', path.read_text())
        assert match, path
        pack = json.loads(zlib.decompress(base64.b64decode(match[3])))
        entries.update({entry[0]: entry for entry in pack["ev"] if entry and entry[0]})
    return entries


def test_the_snippet_files_keep_an_excerpt_for_the_deep_match(site):
    views = read_views(site.parent / "archive")
    view = next(v for v in views if IDS["deep"] in v.summary.id)
    (anchor,) = [anchor for anchor, _, text in session_events(view) if WORD in text]
    entry = _snippet_entries(site)[anchor]
    head, excerpts_kept = entry[2], entry[4]
    assert WORD not in head and SNIPPET_CHARS - 40 < len(head) <= SNIPPET_CHARS  # (cut between words)
    assert any(f"def {WORD}(gw)" in e for e in excerpts_kept)
    # every line of the listing has a word of its own (helper_N): the excerpts stop at the budget
    assert sum(map(len, excerpts_kept)) <= EXCERPT_BUDGET
    assert parse_html(site / _page_of(site, "deep")).find(id=anchor) is not None


# ---------------------------------------------------------------------------
# lunr.js in node on a generated archive: every top snippet shows its match


def _node_snippets(node: str, site: Path, queries: list[str], top: int = 10) -> list[dict]:
    request = json.dumps({"site": str(site), "queries": queries, "top": top})
    proc = subprocess.run([node, str(NODE_SCRIPT)], input=request, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)["results"]


@pytest.mark.parametrize("pack", [None, 3])
def test_every_top_snippet_shows_its_match_on_a_generated_archive(node, tmp_path, monkeypatch, pack):
    """``pack``: events per snippet file, small so that results open at events of later packs too."""
    if pack is not None:
        monkeypatch.setattr(search_item, "PACK_EVENTS", pack)
        monkeypatch.setattr(search_index, "PACK_EVENTS", pack)
    archive = gen_archive.generate(tmp_path / "archive", 60, seed=5)
    site = tmp_path / "site"
    build_site(archive, site)
    packs = {p.stem.split("-")[1] for p in (site / "search" / "f").rglob("*.js")}
    assert (len(packs) > 1) == (pack is not None)
    texts = " ".join(text for view in read_views(archive)[:20] for _, _, text in session_events(view)[1:])
    idents = sorted(set(re.findall(r"\b[a-z]+_[a-z]+(?:_[a-z]+)?\b", texts)))[:15]
    words = sorted(set(re.findall(r"\b[a-z]{5,}\b", texts)))[:15]
    assert len(idents) >= 10 and len(words) >= 10
    queries = idents + words + [f"{a} {b}" for a, b in zip(words[::2], words[1::2])]
    shown = total = 0
    for result in _node_snippets(node, site, queries):
        order = [(r["group"], -r["tier"]) for r in result["top"]]
        assert order == sorted(order), result["query"]  # every word first, then by how well they matched
        for r in result["top"]:
            total += 1
            shown += bool(r["marks"])
            assert r["marks"], (result["query"], r["text"][:200])
    assert total >= 200 and shown == total


def test_the_results_page_loads_the_snippet_script(site):
    html = (site / "search.html").read_text("utf-8")
    scripts = [s["src"] for s in parse_html(site / "search.html").find_all("script")]
    assert "static/search-snippet.js" in scripts and "static/search-core.js" in scripts
    assert 'href="static/search.css"' in html and (site / "static" / "search.css").is_file()


def test_a_snippet_window_never_cuts_a_word_out_of_its_run():
    """A window widened into a run with no space would keep a piece of a token; cut out of its run
    a stand-in key reads like a real one to the build's scan of its output."""
    from sessite.search.excerpts import excerpts

    text = "word " * 200 + "xoxb-123456789012-abcdefghijklmnopqrstuvwxyzABCDEFGHIJ" + "needle" + " tail"
    (piece,) = excerpts(text, {"tail"}, 0)
    assert "xoxb" not in piece and piece.endswith("tail")
