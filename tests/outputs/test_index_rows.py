"""The index lists sessions, not fragments: no row for a session with no messages or for sub-agents'
logs without their session (they are counted and linked below the table); its Duration is active time;
a ``summary`` record titles only the session whose conversation it names."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from helpers import FIXTURES, build_site, parse_html

BASIC = FIXTURES / "claude_code" / "basic.jsonl"
FLAT = FIXTURES / "claude_code" / "flat_sidechains"


def _archive(root: Path) -> Path:
    project = root / "projects" / "-home-dev-shop"
    project.mkdir(parents=True)
    lines = [line for line in BASIC.read_text().splitlines() if '"custom-title"' not in line]
    # a summary of another session's conversation (its leaf is not in this file), then one of this file's
    foreign = {"type": "summary", "summary": "Someone else's session", "leafUuid": "not-in-this-file"}
    (project / "11111111-2222-4333-8444-555555555555.jsonl").write_text("\n".join([json.dumps(foreign), *lines]) + "\n")
    own = {"type": "summary", "summary": "Cart rounding fixed", "leafUuid": "u-0001"}
    first, second = "11111111-2222-4333-8444-555555555555", "22222222-2222-4333-8444-555555555555"
    other = [line.replace(first, second) for line in lines]
    (project / "22222222-2222-4333-8444-555555555555.jsonl").write_text("\n".join([json.dumps(own), *other]) + "\n")
    shutil.copytree(FLAT, root / "projects" / "-home-dev-tool")
    chats = [
        {
            "uuid": "c-empty-1",
            "name": "Opened, never asked",
            "created_at": "2024-10-01T10:00:00Z",
            "updated_at": "2024-10-16T10:00:00Z",  # 15 days "long", with nothing in it
            "chat_messages": [],
        }
    ]
    (root / "conversations.json").write_text(json.dumps(chats))
    return root


def test_index_rows_are_sessions_with_messages(tmp_path: Path) -> None:
    site = tmp_path / "site"
    build_site(_archive(tmp_path / "archive"), site)
    doc = parse_html(site / "index.html")
    rows = {tr.select_one("td.c-title a").get_text(): tr for tr in doc.select("table.sessions tbody tr")}
    assert set(rows) == {"Fix the cart total rounding bug", "Cart rounding fixed", "Make the CLI installable with uv"}
    apart = doc.select_one("details.apart#apart")
    assert apart is not None
    summary = apart.summary.get_text(" ", strip=True)
    assert summary.startswith("3 sessions listed apart") and "1 with no messages" in summary
    assert "2 sub-agents’ logs" in summary
    linked = {a.get_text(): a["href"] for a in apart.select("li a")}
    assert "Opened, never asked" in linked and "Sub-agents of session 0a0a0a0a" in linked
    for href in linked.values():
        assert (site / href).is_file()  # one click away: each still has its page
    assert doc.select_one("p.lede a[href='#apart']").get_text() == "3 more listed apart"
    cards = {c.dt.get_text(strip=True): c.dd.get_text(" ", strip=True) for c in doc.select("dl.cards .card")}
    assert cards["Sessions"].startswith("6 ") and "3 listed apart" in cards["Sessions"]
    # active time in the column and its sort value; the span beside it only where it differs
    cell = rows["Fix the cart total rounding bug"].select_one("td.c-duration")
    page = parse_html(site / rows["Fix the cart total rounding bug"].a["href"])
    facts = {div.dt.get_text(): div.dd.get_text(" ", strip=True) for div in page.select("dl.facts > div")}
    active = facts["Active time"].split(" over ")[0]
    assert cell.contents[0].strip() == active
    assert int(cell["data-value"]) > 0
