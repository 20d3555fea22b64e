"""The redaction benchmark (benchmarks/redact_bench.py): its labels are well formed and hold no
secret, and both halves run on a tiny input."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

from redaction import planted  # noqa: E402  (benchmarks/ is not a package)
from redaction.real import CATEGORIES, FALSE, TRUE, corpus_findings, load_labels, match, score, sha  # noqa: E402

LABELS = REPO / "benchmarks" / "redaction" / "labels.jsonl"


def test_labels_are_well_formed():
    labels = load_labels(LABELS)
    assert len(labels) > 100
    keys = set()
    for x in labels:
        assert x.corpus in ("real", "real-agents", "fresh", "fresh2", "fresh3", "fresh4")
        assert re.fullmatch(r"[0-9a-f]{64}", x.sha)
        assert x.label in (TRUE, FALSE), x
        assert x.why
        assert (x.category in CATEGORIES) if x.label == FALSE else x.category is None
        assert not x.missed or x.label == TRUE
        assert x.start is not None and x.end is not None and x.end > x.start
        assert x.key not in keys, x.key
        keys.add(x.key)
    assert {x.label for x in labels} == {TRUE, FALSE}


def test_labels_quote_no_secret_shape():
    """Contexts are masked: no vendor-shaped key, private key body or JWT in the labels file."""
    text = LABELS.read_text(encoding="utf-8")
    shapes = r"gh[pousr]_[A-Za-z0-9]{30}|sk-ant-api\d\d-[\w-]{30}|AKIA[0-9A-Z]{16}|AIza[\w-]{35}|eyJ[\w-]{20,}\.eyJ"
    assert not re.search(shapes, text)
    for line in text.splitlines():
        assert json.loads(line)["context"].count("«") >= 1


def test_real_half_on_a_tiny_archive(tmp_path):
    key = "ghp_" + "Q7wX2mK9pL4v" * 3  # (not one short run repeated: that reads as an example key)
    records = [
        {
            "type": "user",
            "sessionId": "11111111-2222-4333-8444-555555555555",
            "uuid": "u1",
            "parentUuid": None,
            "cwd": "/home/dev/app",
            "timestamp": "2026-10-01T10:00:00.000Z",
            "message": {"role": "user", "content": f"export GITHUB_TOKEN={key}\nmax_tokens = total_tokens"},
        }
    ]
    folder = tmp_path / "projects" / "-home-dev-app"
    folder.mkdir(parents=True)
    (folder / "11111111-2222-4333-8444-555555555555.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    findings, sessions, files = corpus_findings("tiny", tmp_path)
    assert sessions == 1 and files == 1
    found = [f for f in findings if f.sha == sha(key)]
    assert found and key not in found[0].context
    rows, total, unlabelled = score(match(findings, []))
    assert total.made >= 1 and total.unlabelled == total.made and unlabelled


def test_the_fourth_batch_counts_in_the_held_aside_half(tmp_path):
    """fresh4 was labelled by someone who does not tune: its findings, its labels and its builds
    count in the held-aside half, which --held-totals-only shows as one total line."""
    import redact_bench

    assert redact_bench.half("fresh4", "owner_repo/.claude/projects/p/s.jsonl") == "held-aside"
    assert redact_bench.half("fresh3", "owner_repo/.claude/projects/p/s.jsonl") == "tuning"
    batch = tmp_path / "redact4"
    (batch / "owner_repo").mkdir(parents=True)
    assert redact_bench.corpora(None, fresh4=batch)[-1] == ("fresh4", batch)
    folders = redact_bench.corpus_folders(None, (None, None, batch))
    assert ("held-aside", "redact4/owner_repo", batch / "owner_repo") in folders
    labels = [x for x in load_labels(LABELS) if x.corpus == "fresh4"]
    assert labels and all(redact_bench.half(x.corpus, x.source) == "held-aside" for x in labels)


def test_planted_half_on_a_tiny_archive(tmp_path):
    result = planted.run(tmp_path, kinds=["github-ghp", "heroku-output"], places=["prompt", "glued-word"], jobs=1)
    assert result.build_ok, result.build_output
    cells = {(c.kind, c.place): c for c in result.cells}
    assert len(cells) == 4
    assert not cells["github-ghp", "prompt"].files  # a plain prompt holds a ghp_ token
    assert result.files > 0


def test_planted_recall_counts_the_knowable_cells_and_tells_the_others_apart(tmp_path):
    import redact_bench  # (benchmarks/redact_bench.py)

    result = planted.run(
        tmp_path, kinds=["github-ghp", "heroku-env"], places=["glued-mcp", "id-known"], jobs=1, id_offsets=(8,)
    )
    assert result.build_ok, result.build_output
    cells = {(c.kind, c.place): c for c in result.cells}
    assert not cells["heroku-env", "glued-mcp"].knowable  # a bare UUID in a tool name, its context nowhere
    assert cells["heroku-env", "id-known"].knowable and cells["github-ghp", "glued-mcp"].knowable
    assert cells["heroku-env", "glued-mcp"].files  # published as any id would be
    assert not cells["heroku-env", "id-known"].files  # its context in another session's file: found there
    peers = {"a peer": [False]}  # (one flag per unknowable value)
    lines, summary = redact_bench.planted_table(result, peers)
    assert summary["knowable"] == {"held": 3, "stopped": 0, "leaked": 0, "total": 3}
    assert summary["unknowable"] == {
        "held": 0,
        "leaked": 1,
        "total": 1,
        "values": 1,
        "peers": {"a peer": {"values": 0, "cells": 0, "of_values": 1}},
    }
    text = "\n".join(lines)
    assert "planted recall: 3/3 knowable cells held = 1.000" in text
    assert "1 cells hold a value with no shape and no context anywhere (1 kinds × glued-mcp; 1 values)" in text
    assert "a peer 0/1 values (0 cells)" in text
