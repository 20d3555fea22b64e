"""Several files of one session: snapshots merge, identical copies are skipped, true conflicts keep both."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

from helpers import FIXTURES, build_site, parse_html

from sessite.model import Event, Kind, Problems, Session, SourceRef
from sessite.readers import Claim, group_copies, registry
from sessite.readers.merge import distinct_ids, merge_copies, merge_sessions

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _event(n: int, text: str | None = None, children: tuple[Event, ...] = ()) -> Event:
    return Event(
        id=f"e{n}",
        kind=Kind.SUBAGENT if children else Kind.USER,
        text=text if text is not None else f"message {n}",
        timestamp=T0 + timedelta(minutes=n),
        children=children,
        line=n,
    )


def _session(path: str, events: list[Event], sid: str = "fmt-one") -> Session:
    stamps = [e.timestamp for e in events if e.timestamp]
    return Session(
        id=sid,
        source=SourceRef(path, "fmt"),
        agent="x",
        events=tuple(events),
        started=min(stamps, default=None),
        ended=max(stamps, default=None),
    )


def test_a_later_snapshot_is_merged_with_the_earlier_one_each_event_once_in_order() -> None:
    early = _session("a/full.jsonl", [_event(1), _event(2), _event(3)])
    later = _session("b/full.jsonl", [_event(1), _event(2), _event(3), _event(4), _event(5)])
    merged = merge_sessions(early, later)
    assert merged is not None
    assert [e.id for e in merged.events] == ["e1", "e2", "e3", "e4", "e5"]
    assert merged.meta["merged_from"] == ["b/full.jsonl", "a/full.jsonl"]
    assert merged.started == T0 + timedelta(minutes=1) and merged.ended == T0 + timedelta(minutes=5)


def test_events_only_one_file_has_go_after_the_event_that_precedes_them_there() -> None:
    one = _session("a", [_event(1), _event(2), _event(5)])
    two = _session("b", [_event(1), _event(3), _event(4), _event(5)])
    merged = merge_sessions(one, two)
    assert merged is not None
    # the fuller file is the base; e2 follows e1, the event before it in its own file
    assert [e.id for e in merged.events] == ["e1", "e2", "e3", "e4", "e5"]


def test_a_sub_agent_still_running_in_one_snapshot_keeps_its_fuller_transcript() -> None:
    short = _session("a", [_event(1), _event(2, "agent", children=(_event(10),))])
    full = _session("b", [_event(1), _event(2, "agent", children=(_event(10), _event(11), _event(12)))])
    merged = merge_sessions(full, short)
    assert merged is not None
    assert [c.id for c in merged.events[1].children] == ["e10", "e11", "e12"]


def test_files_that_share_an_id_but_differ_are_both_kept_and_a_problem_says_so() -> None:
    one = _session("a/x.jsonl", [_event(1, "first words"), _event(2)])
    other = _session("b/x.jsonl", [_event(1, "other words"), _event(2, "other words")])
    problems = Problems()
    kept = merge_copies([[one], [other]], problems)
    assert [s.id for s in kept][0] == "fmt-one"
    assert len(kept) == 2 and kept[1].id.startswith("fmt-one-") and kept[1].events == other.events
    assert len(problems) == 1 and "both are kept" in str(problems.items[0]) and kept[1].id in str(problems.items[0])


def test_discovery_groups_the_claims_of_one_session_key_into_the_first() -> None:
    reader = registry()[0]
    claims = [
        Claim(reader, Path("a"), key="s1"),
        Claim(reader, Path("b"), key=None),
        Claim(reader, Path("c"), (Path("c-sub"),), key="s1"),
    ]
    grouped = group_copies(claims)
    assert [c.path for c in grouped] == [Path("a"), Path("b")]
    assert grouped[0].group == (Path("c"),) and grouped[0].companions == (Path("c"), Path("c-sub"))
    assert grouped[0].sources == (Path("a"), Path("c"))


def _amp_archive(tmp_path: Path, change: bool) -> Path:
    archive = tmp_path / "archive"
    source = next((FIXTURES / "amp").glob("T-0b9c*.json"))
    for folder in ("one", "two"):
        (archive / folder).mkdir(parents=True)
        shutil.copy(source, archive / folder / source.name)
    if change:
        copy = archive / "two" / source.name
        data = json.loads(copy.read_text())
        data["messages"][0]["content"][0]["text"] = "A different first prompt in the second file."
        copy.write_text(json.dumps(data))
    return archive


def test_an_identical_copy_in_the_archive_is_skipped_with_one_line(tmp_path: Path) -> None:
    report = build_site(_amp_archive(tmp_path, change=False), tmp_path / "site")
    assert report.sessions == 1
    assert any("identical copy" in str(p) for p in report.problems)


def test_two_files_with_one_session_id_and_different_content_are_both_published(tmp_path: Path) -> None:
    site = tmp_path / "site"
    report = build_site(_amp_archive(tmp_path, change=True), site)
    assert report.sessions == 2
    (problem,) = [p for p in report.problems if "kept as" in str(p)]
    new_id = str(problem).rsplit("kept as ", 1)[1]
    pages = {p.stem: p for p in site.glob("sessions/*.html")}
    assert new_id in pages, pages
    texts = " ".join(parse_html(p).get_text(" ") for p in pages.values())
    assert "A different first prompt in the second file." in texts
    assert "Delete the old build folder" in texts


def test_slices_of_one_session_with_nothing_in_common_are_joined_in_time_order() -> None:
    first = _session("a", [_event(1), _event(2)])
    second = _session("b", [_event(3), _event(4)])
    joined = merge_sessions(second, first)
    assert joined is not None and [e.id for e in joined.events] == ["e1", "e2", "e3", "e4"]


def test_sessions_with_nothing_in_common_whose_times_overlap_conflict() -> None:
    assert merge_sessions(_session("a", [_event(1), _event(3)]), _session("b", [_event(2), _event(4)])) is None


def test_one_file_giving_one_id_twice_keeps_both_under_distinct_ids() -> None:
    problems = Problems()
    sessions = list(distinct_ids([_session("a", [_event(1)]), _session("a", [_event(2)])], problems))
    assert len({s.id for s in sessions}) == 2 and len(problems) == 1 and "given twice" in str(problems.items[0])
