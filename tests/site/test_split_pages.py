"""A big session is split into parts (sessite/parts.py): build a generated one with a small
part budget and check the real output: every event on exactly one part, pagers that
resolve, search results and ref mentions that open the right part, stale parts pruned,
and an old link to part 1 that lands on the part holding its event."""

from __future__ import annotations

import itertools
import json
import os
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from helpers import build_site, search_file_text
from helpers import follow_link as follow
from helpers import parse_html as parse

SID = "5151aaaa-0000-4000-8000-000000000001"
SESSION_ID = f"claude_code-{SID}"
BUDGET = 30_000  # estimated HTML per part: a few rounds of the generated session
SHA = "c0ffee1234567890abcdef1234567890abcdef12"
FILLER = "The quick brown fox checks the parser, the cache and the renderer once more. "


# ---------------------------------------------------------------- a generated Claude Code session


class _Lines:
    """JSONL records of one transcript, chained by parentUuid, one minute apart."""

    def __init__(self, start: datetime, prefix: str, agent: str | None = None) -> None:
        self.records: list[dict] = []
        self.clock = start
        self.prefix = prefix
        self.agent = agent

    def add(self, rec: dict) -> None:
        n = len(self.records)
        env = {
            "sessionId": SID,
            "cwd": "/home/dev/big",
            "gitBranch": "main",
            "version": "2.1.39",
            "userType": "external",
            "isSidechain": self.agent is not None,
            **({"agentId": self.agent} if self.agent else {}),
        }
        uuid = f"{self.prefix}-0000-4000-8000-{n:012d}"
        parent = self.records[-1]["uuid"] if self.records else None
        self.records.append(
            {**env, "uuid": uuid, "parentUuid": parent, "timestamp": self.clock.strftime("%Y-%m-%dT%H:%M:%SZ"), **rec}
        )
        self.clock += timedelta(minutes=1)

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(r) + "\n" for r in self.records))


def _user(text: str) -> dict:
    return {"type": "user", "message": {"role": "user", "content": text}}


def _assistant(key: str, content: list[dict]) -> dict:
    return {
        "type": "assistant",
        "message": {
            "id": f"msg_{key}",
            "model": "claude-test",
            "role": "assistant",
            "content": content,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        },
    }


def _result(tool_id: str, output: str, extra: dict | None = None) -> dict:
    rec = {
        "type": "user",
        "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": output}]},
    }
    if extra:
        rec["toolUseResult"] = extra
    return rec


def write_session(archive: Path, rounds: int, mention_round: int | None = None) -> Path:
    """One Claude Code session of ``rounds`` rounds (user, assistant, a Bash call and its output),
    a sub-agent every seventh round, the repository's remote in round 0 and a commit mentioned in ``mention_round``."""
    start = datetime(2026, 1, 1, tzinfo=UTC)
    main = _Lines(start, SID[:8])
    folder = archive / "-home-dev-big"
    for i in range(rounds):
        main.add(_user(f"Round {i}: please run the tests. " + FILLER * 6))
        said = f"Round {i} looks fine. " + FILLER * 4
        if i == mention_round:
            said += f"Fixed in commit {SHA}."
        main.add(_assistant(f"{i}a", [{"type": "text", "text": said}]))
        command = "git remote -v" if i == 0 else f"pytest -q tests/test_round_{i}.py"
        output = (
            "origin\tgit@github.com:acme/big.git (fetch)\n"
            if i == 0
            else "".join(f"tests/test_round_{i}.py::test_{k} PASSED\n" for k in range(40))
        )
        main.add(
            _assistant(
                f"{i}b", [{"type": "tool_use", "id": f"toolu_{i}", "name": "Bash", "input": {"command": command}}]
            )
        )
        main.add(_result(f"toolu_{i}", output))
        if i % 7 == 3:
            aid = f"a{i:07d}"
            main.add(
                _assistant(
                    f"{i}t",
                    [
                        {
                            "type": "tool_use",
                            "id": f"toolu_task_{i}",
                            "name": "Task",
                            "input": {"description": f"Check round {i}", "prompt": "Look around."},
                        }
                    ],
                )
            )
            agent = _Lines(main.clock, f"{aid[:8]}", agent=aid)
            agent.add(_user("Look around."))
            agent.add(_assistant(f"{i}s1", [{"type": "text", "text": f"Sub-agent of round {i}: " + FILLER * 3}]))
            agent.add(
                _assistant(
                    f"{i}s2", [{"type": "tool_use", "id": f"toolu_sub_{i}", "name": "Bash", "input": {"command": "ls"}}]
                )
            )
            agent.add(_result(f"toolu_sub_{i}", "README.md\nsrc\ntests\n"))
            agent.write(folder / SID / "subagents" / f"agent-{aid}.jsonl")
            (folder / SID / "subagents" / f"agent-{aid}.meta.json").write_text(
                json.dumps(
                    {"agentType": "general-purpose", "description": f"Check round {i}", "toolUseId": f"toolu_task_{i}"}
                )
            )
            main.add(_result(f"toolu_task_{i}", "Done.", {"agentId": aid, "status": "completed"}))
    main.write(folder / f"{SID}.jsonl")
    return archive


# ---------------------------------------------------------------- reading the site


def part_files(site: Path) -> list[Path]:
    """The session's pages in part order: its own URL, then sessions/<id>/p2.html, p3.html, …"""
    later = sorted((site / "sessions" / SESSION_ID).glob("p*.html"), key=lambda p: int(p.stem[1:]))
    return [site / "sessions" / f"{SESSION_ID}.html", *later]


def event_ids(page: Path) -> list[str]:
    return [el["id"] for el in parse(page).find_all(id=re.compile(r"^e-"))]


def expected_anchors(archive: Path) -> set[str]:
    """Every event's anchor, from the model the build reads (redacted as the build does)."""
    from sessite.analyze.redact import Redactor
    from sessite.model import Problems
    from sessite.readers import discover
    from sessite.site.view import build_view

    problems = Problems(archive)
    claim = next(c for c in discover(archive, problems).claims if c.reader.name == "claude_code")
    session = next(iter(claim.reader.read(claim.path, problems)))
    return set(build_view(Redactor().value(session)).anchors.values())


@pytest.fixture(scope="module")
def split_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("split")
    archive = write_session(root / "archive", rounds=40, mention_round=33)
    report = build_site(archive, root / "site", part_bytes=BUDGET, cache_dir=root / "cache")
    assert report.published and not report.problems, report.problems
    return archive, root / "site"


# ---------------------------------------------------------------- the tests


def test_every_event_is_on_exactly_one_part_and_parts_stay_small(split_site):
    archive, site = split_site
    pages = part_files(site)
    assert len(pages) >= 5, "the generated session is split"
    seen = [anchor for page in pages for anchor in event_ids(page)]
    assert len(seen) == len(set(seen)), "no event is drawn twice"
    assert set(seen) == expected_anchors(archive), "every event is drawn somewhere"
    for page in pages:
        timeline = parse(page).select_one("ol.timeline")
        assert len(str(timeline).encode()) <= BUDGET, f"{page.name}: the timeline of a part stays under the budget"
        assert page.stat().st_size <= BUDGET + 25_000, f"{page.name}: header and pager add little"
    assert not list(site.parent.glob(".site.spool-*")), "the spool folder is gone"


def test_top_level_events_stay_whole(split_site):
    _, site = split_site
    for page in part_files(site):
        doc = parse(page)
        for li in doc.select("ol.timeline > li.k-tool_call"):
            if li.select_one(".tool-name").get_text() == "Task":
                assert li.select_one("li.k-subagent"), "a sub-agent is drawn inside the call that spawned it"
            else:
                assert li.select_one(".result"), "a result is drawn inside its call, on the same part"


def test_headers_and_pagers(split_site):
    _, site = split_site
    pages = part_files(site)
    first = parse(pages[0])
    assert first.select_one(".session-header dl.facts"), "part 1 keeps the full session header"
    assert first.select_one("article.session")["data-part"] == "1"
    for number, page in enumerate(pages, 1):
        doc = parse(page)
        navs = doc.select("nav.pager")
        assert len(navs) == 2, "a pager at the top and at the bottom"
        if number > 1:
            header = doc.select_one(".session-header.compact")
            assert header and not header.select_one("dl.facts")
            back = header.select_one(".part-of a")
            assert follow(page, back["href"])[0] == pages[0].resolve()
            assert f"part {number} of {len(pages)}" in doc.title.get_text()
        script = follow(page, doc.select_one("article.session")["data-parts"])[0]
        assert script == (site / "sessions" / SESSION_ID / "parts.js").resolve()
        for nav in navs:
            listed = [follow(page, a["href"])[0] for a in nav.select(".pager-list a")]
            assert listed == [p.resolve() for i, p in enumerate(pages, 1) if i != number], (
                "the list links every other part, in order"
            )
            assert nav.select_one("[aria-current=page]").get_text() == f"Part {number}"
            prev, nxt = nav.select_one("a.pager-prev"), nav.select_one("a.pager-next")
            assert (prev is None) == (number == 1) and (nxt is None) == (number == len(pages))
            if prev:
                assert follow(page, prev["href"])[0] == pages[number - 2].resolve()
            if nxt:
                assert follow(page, nxt["href"])[0] == pages[number].resolve()
            assert nav.select("time"), "each part shows its time range"


def test_every_link_to_an_event_lands_on_it(split_site):
    """Permalinks, the time strip and the edited files of part 1's figures: no link to an event needs a redirect."""
    _, site = split_site
    ids = {page.resolve(): set(event_ids(page)) for page in part_files(site)}
    strip = 0
    for page in part_files(site):
        for a in parse(page).select("a[href*='#e-']"):
            target, fragment = (
                follow(page, a["href"]) if not a["href"].startswith("#") else (page.resolve(), a["href"][1:])
            )
            assert fragment in ids[target], f"{page.name}: {a['href']} does not land on its event"
            strip += bool(a.find_parent("svg"))
    assert strip > 10, "the time strip links events on every part"


def test_every_relative_link_on_every_part_resolves(split_site):
    """Later parts sit one folder deeper than part 1: links in their text (a ref mention in
    tool output or a message) must climb one level more."""
    _, site = split_site
    mentions = 0
    for page in part_files(site):
        doc = parse(page)
        for el in doc.select("a[href], link[href], script[src]"):
            url = el.get("href") or el["src"]
            if url.startswith(("#", "mailto:")) or "://" in url:
                continue
            follow(page, url)
            mentions += page != part_files(site)[0] and "gitref" in (el.get("class") or [])
    assert mentions, "a later part links a ref mentioned in its text"


def test_parts_script_maps_every_anchor_to_its_part(split_site):
    _, site = split_site
    text = (site / "sessions" / SESSION_ID / "parts.js").read_text()
    assert text.startswith("sessiteParts(") and text.endswith(");\n")
    data = json.loads(text[len("sessiteParts(") : -len(");\n")])
    pages = part_files(site)
    assert data["parts"] == [p.relative_to(site).as_posix() for p in pages]
    for page, anchors in zip(pages, data["anchors"]):
        assert sorted(anchors) == sorted(event_ids(page))


def _search_snippets(site: Path) -> list[dict]:
    """Every snippet pack of search/f/, unpacked."""
    return [json.loads(search_file_text(path.read_bytes())) for path in (site / "search" / "f").rglob("*.js")]


def test_search_results_open_the_part_that_holds_the_event(split_site):
    _, site = split_site
    packs = [p for p in _search_snippets(site) if p["u"] == f"sessions/{SESSION_ID}.html"]
    assert packs
    where = {}
    for page in part_files(site):
        for anchor in event_ids(page):
            where[anchor] = page.relative_to(site).as_posix()
    checked = later = 0
    kept = set()
    for pack in packs:
        for at, entry in enumerate(pack["ev"], pack["i"]):
            if not entry:
                continue  # an event no result opens at
            kept.add(at)
            anchor = entry[0]
            if not anchor:
                continue
            page = entry[3] if len(entry) > 3 else pack["u"]
            assert where[anchor] == page, f"{anchor} is on {where[anchor]}, its result opens {page}"
            checked += 1
            later += len(entry) > 3
    assert kept == _opened_events(site, _doc_of(site, f"sessions/{SESSION_ID}.html")) and later > checked // 2


def _doc_of(site: Path, url: str) -> int:
    """The session number the search index gives the session at ``url``."""
    for path in (site / "search" / "f").rglob("*.js"):
        if json.loads(search_file_text(path.read_bytes()))["u"] == url:
            return int(path.stem.split("-")[0])
    raise AssertionError(f"no snippet file for {url}")


def _opened_events(site: Path, doc: int) -> set[int]:
    """The events of session ``doc`` a result can open at, as static/search-core.js reads them from
    the term chunks (per body posting a first event and the distances to the next), and the header."""
    opened = {0}
    for path in (site / "search" / "t").glob("*.js"):
        for entry in json.loads(search_file_text(path.read_bytes())):
            docs = list(itertools.accumulate(entry[3]))
            if doc not in docs:
                continue
            at = docs.index(doc)
            event = entry[5][at]
            opened.add(event)
            for later in entry[6:]:
                if not later[at] > 0:
                    break
                event += later[at]
                opened.add(event)
    return opened


def test_a_ref_mention_links_the_part_with_its_event(split_site):
    _, site = split_site
    ref = next(
        p for p in (site / "refs").rglob("*.html") if p.parent.name == "commit" and SHA[:7] in p.read_text("utf-8")
    )
    links = parse(ref).select("a.mention")
    assert links
    for a in links:
        target, fragment = follow(ref, a["href"])
        assert target != part_files(site)[0].resolve(), "the mention is on a later part"
        assert parse(target).find(id=fragment) is not None


def test_small_sessions_render_as_one_page_without_a_pager(example_site):
    _, site = example_site
    assert not [p for p in (site / "sessions").iterdir() if p.is_dir()]
    for page in (site / "sessions").glob("*.html"):
        doc = parse(page)
        assert not doc.select("nav.pager") and not doc.select_one("article.session").has_attr("data-parts")


def test_an_incremental_build_keeps_parts_and_removes_stale_ones(tmp_path):
    archive = write_session(tmp_path / "archive", rounds=30)
    site, cache = tmp_path / "site", tmp_path / "cache"
    build_site(archive, site, part_bytes=BUDGET, cache_dir=cache)
    before = part_files(site)
    assert len(before) >= 3
    again = build_site(archive, site, part_bytes=BUDGET, cache_dir=cache)
    assert again.reused == 1 and not again.changed, "an unchanged source keeps its parts"
    assert part_files(site) == before and all(p.is_file() for p in before)
    write_session(tmp_path / "archive", rounds=2)  # the session shrinks to one part
    shrunk = build_site(archive, site, part_bytes=BUDGET, cache_dir=cache)
    assert shrunk.reused == 0 and shrunk.changed
    assert not (site / "sessions" / SESSION_ID).exists(), "stale parts and parts.js are removed"
    assert not parse(site / "sessions" / f"{SESSION_ID}.html").select("nav.pager")


def test_an_old_link_to_part_one_lands_on_the_part_with_its_event(split_site, page):
    _, site = split_site
    pages = part_files(site)
    anchor = event_ids(pages[2])[3]
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(pages[0].as_uri() + "?hl=round#" + anchor)
    page.wait_for_url(re.compile(re.escape(f"/{SESSION_ID}/p3.html?hl=round#{anchor}") + "$"))
    assert page.locator(f"#{anchor}").count() == 1
    assert errors == []


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_forked_helper_renders_half_the_parts_and_the_exports(tmp_path, monkeypatch):
    """A split session is built by two processes (a helper started by parallel.fork_call); the
    site is the one a single process builds, and a helper that dies leaves no gap: its share is
    done again."""
    from sessite import parallel
    from sessite.pipeline import worker as work

    archive = tmp_path / "archive"
    write_session(archive, rounds=40, mention_round=7)
    build_site(archive, tmp_path / "one", part_bytes=BUDGET, cache_dir=tmp_path / "c1", jobs=1)
    started = []
    start = work.fork_call

    def counted(fn):
        helper = start(fn)
        started.append(helper)
        return helper

    monkeypatch.setattr(work, "fork_call", counted)
    build_site(archive, tmp_path / "two", part_bytes=BUDGET, cache_dir=tmp_path / "c2")
    assert started and all(h is not None for h in started), "the split session was rendered with a helper"
    one = _files(tmp_path / "one")
    assert len([u for u in one if u.startswith("sessions/")]) > 5 and _files(tmp_path / "two") == one

    monkeypatch.setattr(parallel.Forked, "result", lambda self: (self.conn.close(), os.waitpid(self.pid, 0), None)[-1])
    report = build_site(archive, tmp_path / "three", part_bytes=BUDGET, cache_dir=tmp_path / "c3")
    assert not report.problems and _files(tmp_path / "three") == one
