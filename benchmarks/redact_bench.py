#!/usr/bin/env python3
"""Redaction benchmark: how well ``sessite.analyze.redact.Redactor`` hides secrets without
mangling ordinary text, on hand-labelled real logs and on planted secrets through a real build.

    python benchmarks/redact_bench.py [--real] [--planted] [--fresh DIR] [--fresh2 DIR] [--fresh3 DIR]
                                      [--fresh4 DIR] [--json]
                                      [--labels FILE] [--write-unlabelled FILE] [--no-baseline]
                                      [--held-totals-only]
    python benchmarks/redact_bench.py --builds     # does a real build of each corpus publish?

(neither --real nor --planted: both). It runs the worktree's own ``sessite`` (the folder
above this one comes first on ``sys.path``), in a few minutes on two cores.

What it measures
----------------
Real half. Every session of ``../shared/formats/real``, ``../shared/formats/real-agents`` and
the fetched logs in ``--fresh`` (default ``/work/fresh/redact``; missing: skipped, with its
labels) is read as a build reads it and redacted with ``Redactor().value``; each value it
replaces is a finding (``redaction/real.py``). Findings are matched to the hand labels in
``redaction/labels.jsonl`` by (corpus, source file, sha256 of the value), or, when a rule now
takes a slightly different stretch, by an overlapping span in the same string. Per kind: the
distinct values redacted (per source file), how many are labelled true (must not be
published) or false (ordinary text mangled), unlabelled, and missed (true labels, including
``missed`` ones the labelling run did not redact, that no finding covers now);
precision = true / (true + false), recall = true / (true + missed). The same numbers for a
simple baseline, ``detect-secrets`` (its vendor and keyword plugins, no entropy; optional:
``pip install detect-secrets``), on the same strings against the same labels.

Planted half. ``redaction/planted.py`` plants fake, correctly shaped secrets of 30 kinds in
18 places (prompt, command, output, escaped JSON output, ``\\u`` escape, line continuation,
glued to identifiers (bare, or known from its context), zero-width joiner, soft hyphen, split
across events, repeated bare later in the session or in another session's file, session title
cut at every offset, session id cut at 60, and the title and id cuts again with the value bare
and its context in another session's file) of a Claude Code archive,
runs ``sessite build --exports all`` on it, and searches every output file and file name
for any 12 characters of each value's random part. A cell is *knowable* when its value has a
vendor shape or its context stands somewhere in the archive (``planted.Cell.knowable``).
Recall = knowable kind×place cells with no leak / knowable cells. The others (a value with no
shape, glued into a name or an id, its context nowhere: 11 kinds × 3 places) are counted on a
line of their own, beside what detect-secrets (its real-half plugins, and its defaults with
the entropy plugins) and Betterleaks (if installed) find in the same strings.

The halves
----------
Tuning half: ``real`` and ``real-agents`` (shared corpora) and, of the fetched logs, the
repositories listed in ``TUNING_FRESH`` below. Held-aside half: every other folder of
``--fresh`` (today M-Thisness/M-Claude, mischa-thisness/M-Gemini, blubber/dotfiles; any
folder added later is held aside too). ``--fresh2`` (default ``/work/fresh/redact2``, corpus
``fresh2``, a second round of fetched logs: Claude Code from SWORDIntel/claude-backups,
austinweitao/claude-backup, Mkid095/vps-system, bradymholt/dotfiles,
HillviewCap/Personal_AI_Infrastructure, SudarshanVK/dotfiles, JamesTiberiusKirk/dotsv2,
Trollz1004/OMEGA-public; Codex from Python-AI-Solutions/agentic-neurodata-conversion,
Fegor/Basic-Rootkit, MoonLadderStudios/MoonMind, EricOo0/stock-trading-platform,
PantherianCodeX/udocket.com; its SOURCES.tsv names each file's commit) is tuning material as a
whole, and so is ``--fresh3`` (corpus ``fresh3``). ``--fresh4`` (default ``/work/fresh/redact4``,
corpus ``fresh4``: Claude Code from InvictusAutomation/oc-admin-home-shared, deder01/config_files,
dphaener/dotfiles, borja-rojo-ilvento/dotfiles, fabien-lessirard/dotfiles,
Schofield90/atlas-fitness-onboarding, DougSmith255/saabuildingblocks-platform, caochitam/aos,
K3RN-LABS/k3rn.labs; Codex from AnNguyen2023/vn-stock-portfolio, LeroySalih/planner-004; Gemini
from Sm1tee/dotfiles) was fetched and labelled by someone who does not change the rules and is
held aside as a whole.
Whoever changes the rules may read and tune on the tuning half and the planted half; they must
not look at the held-aside findings or logs to tune, only at its totals (``--held-totals-only``
prints only the held-aside half's total line). Under each half's table:
the share of the false positives labelled so far that the current rules leave as written.

Labelling new redactions
------------------------
After a rule change, the run lists the unlabelled findings (source, kind, masked context).
``--write-unlabelled FILE`` writes them (``--held-aside-too``: the held-aside half's as well,
for whoever labels, not whoever tunes) as label lines with ``"label": "?"``: set ``label``
to ``true`` or ``false``, give a short ``why`` and, for false ones, a ``category`` (one of
``redaction.real.CATEGORIES``), then append the lines to ``redaction/labels.jsonl``. A
secret you see that no rule redacts: add a line with ``"label": "true", "missed": true`` and
its place (the sha256 of the exact value, ``session``, ``event``, ``field``, ``start``,
``end``). Never write a secret value itself into the file: the sha256 and a masked context
are enough.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import asdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))  # this worktree's sessite, not an installed one

from redaction import baseline, planted  # noqa: E402  (benchmarks/ is not a package)
from redaction.real import (  # noqa: E402
    FALSE,
    TRUE,
    Finding,
    Row,
    corpus_findings,
    dump_labels,
    label_for,
    load_labels,
    match,
    read_corpus,
    score,
)

LABELS = HERE / "redaction" / "labels.jsonl"
SHARED = REPO.parent / "shared" / "formats"
if not SHARED.exists():
    SHARED = Path("/work/shared/formats")
FRESH = Path("/work/fresh/redact")
TUNING_FRESH = (
    "claude_code/Xu-Wentao_dotfile",
    "claude_code/4thehalibit_omarchy-backup",
    "claude_code/adrianstanca1_vps-config",
    "codex/JaydenXsoe_ocodex",
    "codex/LAF-US_IDAHO-VAULT",
    "codex/Ogekuri_G",
    "gemini/KuantumQuest_MyDotFiles-HyDE",
    "gemini/LAF-US_IDAHO-VAULT",
    # added after the first labelling round (issue 28, second step): new tuning material
    "codex/7567491_Feishu_ClaudeCode",
    "claude_code/gouchan_agent-swarm-config",
)
# A second folder of fetched logs, gathered later (issue 28, precision on fresh material): every
# folder in it is tuning material (corpus "fresh2"); nothing there is held aside.
FRESH2 = Path("/work/fresh/redact2")
# A third batch (corpus "fresh3"), fetched and labelled after the rules of that round were written
# and not tuned on since: its precision is a check of how the fixes generalise.
FRESH3 = Path("/work/fresh/redact3")
# A fourth batch (corpus "fresh4"), fetched and labelled by someone who does not change the rules:
# all of it is held aside, so its precision is the honest figure for logs nobody tuned on.
FRESH4 = Path("/work/fresh/redact4")
HELD_CORPORA = ("fresh4",)
HALVES = ("tuning", "held-aside")


def half(corpus: str, source: str) -> str:
    if corpus in HELD_CORPORA:
        return "held-aside"
    if corpus != "fresh":
        return "tuning"
    return "tuning" if source.startswith(tuple(f + "/" for f in TUNING_FRESH)) else "held-aside"


def corpora(
    fresh: Path | None, fresh2: Path | None = None, fresh3: Path | None = None, fresh4: Path | None = None
) -> list[tuple[str, Path]]:
    out = [(name, SHARED / name) for name in ("real", "real-agents") if (SHARED / name).is_dir()]
    for name, root in (("fresh", fresh), ("fresh2", fresh2), ("fresh3", fresh3), ("fresh4", fresh4)):
        if root is not None and root.is_dir():
            out.append((name, root))
    return out


def _fmt(x: float | None) -> str:
    return "  –  " if x is None else f"{x:5.3f}"


def table(rows: list[Row], total: Row, title: str) -> list[str]:
    head = f"{'kind':28} {'made':>5} {'occur':>5} {'true':>5} {'false':>5} {'unlab':>5} {'missed':>6}"
    head += f" {'prec':>6} {'recall':>6}"
    out = [title, head, "-" * len(head)]
    for r in [*rows, total]:
        if r is total:
            out.append("-" * len(head))
        out.append(
            f"{r.kind:28} {r.made:5d} {r.occurrences:5d} {r.true:5d} {r.false:5d} {r.unlabelled:5d} {r.missed:6d}"
            f" {_fmt(r.precision):>6} {_fmt(r.recall):>6}"
        )
    return out


def run_real(args: argparse.Namespace) -> dict:
    labels = load_labels(args.labels)
    found: list[Finding] = []
    base: list[Finding] = []
    sessions = files = 0
    ran = []
    use_baseline = not args.no_baseline and baseline.available()
    started = time.perf_counter()
    for name, root in corpora(args.fresh, args.fresh2, args.fresh3, args.fresh4):
        ran.append(name)
        f, n, k = corpus_findings(name, root)
        found += f
        sessions += n
        files += k
        if use_baseline:
            with baseline.Baseline() as bl:
                for source, session in read_corpus(root):
                    base.extend(bl.session(name, source, session))
    labels = [x for x in labels if x.corpus in ran]
    result: dict = {"corpora": ran, "sessions": sessions, "files": files, "halves": {}, "seconds": 0.0}
    unlabelled_all: list[Finding] = []
    for which in HALVES:
        fs = [f for f in found if half(f.corpus, f.source) == which]
        ls = [x for x in labels if half(x.corpus, x.source) == which]
        rows, total, unlabelled = score(match(fs, ls))
        unlabelled_all += unlabelled
        entry = {"rows": rows, "total": total, "unlabelled": unlabelled, "labels": Counter(x.label for x in ls)}
        entry["old_false"] = old_false_left(fs, ls)
        if use_baseline:
            bs = [f for f in base if half(f.corpus, f.source) == which]
            _, btotal, _ = score(match(bs, ls))
            btotal.kind = "baseline: detect-secrets"
            entry["baseline"] = btotal
        result["halves"][which] = entry
    result["baseline"] = "detect-secrets" if use_baseline else None
    result["unlabelled"] = unlabelled_all
    result["categories"] = Counter(x.category for x in labels if x.label == FALSE)
    result["label_counts"] = Counter(("missed" if x.missed else x.label) for x in labels)
    result["seconds"] = time.perf_counter() - started
    if args.write_unlabelled:
        chosen = [f for f in unlabelled_all if args.held_aside_too or half(f.corpus, f.source) == "tuning"]
        dump_labels([label_for(f) for f in chosen], args.write_unlabelled)
    return result


def old_false_left(findings: list[Finding], labels: list) -> tuple[int, int]:
    """(false labels no finding of this run matches, all false labels): the share of the false
    positives once labelled that are now left as written (distinct values per source file)."""
    false = {x.key for x in labels if x.label == FALSE}
    hit = {label.key for _, label in match(findings, labels).items if label is not None and label.label == FALSE}
    return len(false - hit), len(false)


def print_real(result: dict, totals_only: bool = False) -> None:
    print(
        f"REAL HALF: {result['sessions']} sessions from {result['files']} files in {', '.join(result['corpora'])}"
        f" ({result['seconds']:.0f}s)"
    )
    counts = result["label_counts"]
    cats = ", ".join(f"{k} {v}" for k, v in sorted(result["categories"].items(), key=lambda kv: -kv[1]))
    print(f"labels: {counts[TRUE]} true, {counts['missed']} true-missed, {counts[FALSE]} false ({cats})")
    for which, entry in result["halves"].items():
        print()
        rows = [] if totals_only and which == "held-aside" else entry["rows"]
        for line in table(rows, entry["total"], f"[{which} half]  (distinct values per source file)"):
            print(line)
        left, old = entry["old_false"]
        if old:
            print(f"false positives labelled so far now left as written: {left}/{old} = {left / old:.3f}")
        b = entry.get("baseline")
        if b is not None:
            print(
                f"{b.kind:28} {b.made:5d} {b.occurrences:5d} {b.true:5d} {b.false:5d} {b.unlabelled:5d} {b.missed:6d}"
                f" {_fmt(b.precision):>6} {_fmt(b.recall):>6}"
            )
    if result["baseline"] is None:
        print("\nbaseline skipped: detect-secrets is not installed (pip install detect-secrets) or --no-baseline")
    unl = [f for f in result["unlabelled"] if half(f.corpus, f.source) == "tuning"]
    hidden = len(result["unlabelled"]) - len(unl)
    print(f"\nunlabelled findings: {len(unl)} in the tuning half, {hidden} in the held-aside half (not shown)")
    for f in unl[:200]:
        print(f"  {f.corpus}:{f.source} ev={f.event} {f.field} {f.kind}: {f.context}")


def run_planted(args: argparse.Namespace) -> planted.PlantedResult:
    return planted.run(args.keep, jobs=args.jobs)


def planted_table(
    result: planted.PlantedResult, peers: dict[str, list[bool] | None] | None = None
) -> tuple[list[str], dict]:
    """The kind × place table, and recall over the knowable cells; the cells no reader of the
    archive could know (``Cell.knowable``) on a line of their own, with what the peers (``peers``:
    ``baseline.peers_on`` over those cells' values, in ``unknowable_values`` order) make of them."""
    places = list(planted.ALL_PLACES)
    kinds = list(planted.KINDS)
    cells: dict[tuple[str, str], list[planted.Cell]] = {}
    for c in result.cells:
        cells.setdefault((c.kind, c.place), []).append(c)
    short = {p: p[:7] for p in places}
    short.update({planted.TITLE_KNOWN_PLACE: "title-k", planted.ID_KNOWN_PLACE: "id-k"})
    head = f"{'kind':17}" + "".join(f"{short[p]:>8}" for p in places)
    lines = [head, "-" * len(head)]
    count = {True: Counter(), False: Counter()}  # knowable? -> held, stopped, leaked
    leaks = []
    for kind in kinds:
        row = f"{kind:17}"
        for place in places:
            group = cells.get((kind, place), [])
            bad = [c for c in group if c.files]
            if not group:
                mark = "-"
            else:
                knowable = group[0].knowable
                if not bad:
                    mark = "ok"
                    count[knowable]["held"] += 1
                elif all(c.scan for c in bad):
                    mark = "stop"
                    count[knowable]["stopped"] += 1
                else:
                    mark = "LEAK" if len(group) == 1 else f"{len(bad)}/{len(group)}"
                    count[knowable]["leaked"] += 1
                    files = sorted({f for c in bad for f in c.files})
                    offsets = [c.offset for c in bad if c.offset is not None]
                    leaks.append(
                        {
                            "kind": kind,
                            "place": place,
                            "knowable": knowable,
                            "offsets": offsets,
                            "files": files[:5],
                            "nfiles": len(files),
                        }
                    )
                mark = mark if knowable else f"({mark})"
            row += f"{mark:>8}"
        lines.append(row)
    lines.append("")
    lines.append(
        "ok: no part reached the site; LEAK (or n/m offsets): some 12+ characters of the value did; "
        "stop: only the build's output scan saw it (a real build would refuse to publish); "
        "(…): a value with no shape and no context anywhere in the archive"
    )
    k, u = count[True], count[False]
    k_total, u_total = sum(k.values()), sum(u.values())
    if k_total:
        lines.append(
            f"planted recall: {k['held']}/{k_total} knowable cells held = {k['held'] / k_total:.3f}"
            f" (+{k['stopped']} held only by the output scan: {(k['held'] + k['stopped']) / k_total:.3f});"
            f" {k['leaked']} leak"
        )
    unknown = unknowable_values(result.cells)
    if u_total:
        kinds_u = sorted({c.kind for c in unknown}, key=kinds.index)
        places_u = sorted({c.place for c in unknown}, key=places.index)
        held = f"; {u['held']} of them held anyway" if u["held"] else ""
        lines.append(
            f"{u_total} cells hold a value with no shape and no context anywhere ({len(kinds_u)} kinds ×"
            f" {', '.join(places_u)}; {len(unknown)} values): published as any id would be{held}"
        )
    peer_counts: dict[str, dict | None] = {}
    for name, flags in (peers or {}).items():
        if flags is None:
            peer_counts[name] = None
            continue
        found = {(c.kind, c.place) for c, flag in zip(unknown, flags) if flag}
        whole = {key for key in found if all(f for c, f in zip(unknown, flags) if (c.kind, c.place) == key)}
        peer_counts[name] = {"values": sum(flags), "cells": len(whole), "of_values": len(flags)}
    if peers is not None and u_total:
        said = [
            f"{name} {c['values']}/{c['of_values']} values ({c['cells']} cells)"
            if c is not None
            else f"{name} not installed"
            for name, c in peer_counts.items()
        ]
        lines.append(
            "  the peers on the same strings (the MCP tool name, the prose line, the session id): " + "; ".join(said)
        )
    held_all = k["held"] + u["held"]
    total = k_total + u_total
    lines.append(
        f"all cells: {held_all}/{total} held = {held_all / total:.3f}"
        f" (+{k['stopped'] + u['stopped']} held only by the output scan); {k['leaked'] + u['leaked']} leak"
    )
    summary = {
        "held": held_all,
        "stopped": k["stopped"] + u["stopped"],
        "leaked": k["leaked"] + u["leaked"],
        "total": total,
        "knowable": {"held": k["held"], "stopped": k["stopped"], "leaked": k["leaked"], "total": k_total},
        "unknowable": {
            "held": u["held"],
            "leaked": u["leaked"],
            "total": u_total,
            "values": len(unknown),
            "peers": peer_counts,
        },
        "leaks": leaks,
    }
    return lines, summary


def unknowable_values(cells: list[planted.Cell]) -> list[planted.Cell]:
    """The planted values no reader of the archive could know (no shape, no context anywhere)."""
    return [c for c in cells if not c.knowable]


def planted_peers(result: planted.PlantedResult) -> dict[str, list[bool] | None]:
    """What the peers (``baseline.peers_on``) make of the strings the unknowable values stand in."""
    unknown = unknowable_values(result.cells)
    return baseline.peers_on([c.shown for c in unknown], [c.fragments for c in unknown])


def corpus_folders(fresh: Path | None, more: tuple[Path | None, ...] = ()) -> list[tuple[str, str, Path]]:
    """(half, name, folder) of every corpus as one archive: the shared ones, each fetched repository
    (``more``: the later batches ``--fresh2``, ``--fresh3``, ``--fresh4``, in that order; each in the
    half ``half()`` gives its corpus)."""
    out = [("tuning", name, folder) for name, folder in corpora(None)]
    if fresh is not None and fresh.is_dir():
        for folder in sorted(p for p in fresh.glob("*/*") if p.is_dir()):
            name = folder.relative_to(fresh).as_posix()
            out.append((half("fresh", name + "/"), name, folder))
    for corpus, batch in zip(("fresh2", "fresh3", "fresh4"), more, strict=False):
        if batch is not None and batch.is_dir():
            which = half(corpus, "")
            out += [(which, f"{batch.name}/{p.name}", p) for p in sorted(batch.iterdir()) if p.is_dir()]
    return out


def print_builds(fresh: Path | None, more: tuple[Path | None, ...] = ()) -> None:
    """Whether a real build of each corpus publishes: its output scan finds nothing the redaction
    left (a finding stops a build unless it is healed: built again with its values redacted everywhere;
    the values healed are counted). The held-aside half is told as totals only."""
    import tempfile

    from sessite.config import SiteConfig
    from sessite.pipeline import build

    held = [0, 0, 0, 0, 0]  # corpora, published, scan findings, values healed: learnt elsewhere, only scanned
    for half_name, name, folder in corpus_folders(fresh, more):
        with tempfile.TemporaryDirectory() as tmp:
            config = SiteConfig(archive=folder, output=Path(tmp) / "site", cache_dir=Path(tmp) / "cache", jobs=2)
            report = build(config)
        hits = max(0, len(report.leaks or []) - 1)  # (the last line says what happened)
        healed = [p.message for p in report.problems if p.message.endswith("redacted everywhere and built again")]
        learnt = sum(1 for message in healed if "redacted in another session" in message)
        if half_name == "held-aside":
            held = [a + b for a, b in zip(held, (1, report.published, hits, learnt, len(healed) - learnt))]
            continue
        state = "publishes" if report.published else "STOPPED"
        print(
            f"tuning  {name:50} {state} ({hits} output-scan findings; healed: {learnt} learnt elsewhere, "
            f"{len(healed) - learnt} only scanned)"
        )
    print(
        f"held-aside: {held[1]} of {held[0]} corpora publish; {held[2]} output-scan findings in all; "
        f"healed: {held[3]} learnt elsewhere, {held[4]} found only by the output scan"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--real", action="store_true", help="the real-log half")
    parser.add_argument("--planted", action="store_true", help="the planted half")
    parser.add_argument("--fresh", type=Path, default=FRESH if FRESH.is_dir() else None, help="fetched logs folder")
    parser.add_argument(
        "--fresh2", type=Path, default=FRESH2 if FRESH2.is_dir() else None, help="more fetched logs (all tuning)"
    )
    parser.add_argument(
        "--fresh3", type=Path, default=FRESH3 if FRESH3.is_dir() else None, help="a validation batch (tuning half)"
    )
    parser.add_argument(
        "--fresh4", type=Path, default=FRESH4 if FRESH4.is_dir() else None, help="a held-aside batch (held-aside half)"
    )
    parser.add_argument("--labels", type=Path, default=LABELS)
    parser.add_argument("--write-unlabelled", type=Path, help="write label stubs for unlabelled findings here")
    parser.add_argument(
        "--held-aside-too", action="store_true", help="--write-unlabelled: the held-aside half's too (for the labeller)"
    )
    parser.add_argument(
        "--no-baseline",
        action="store_true",
        help="skip detect-secrets on the real half (the planted half's peers take a second: they always run)",
    )
    parser.add_argument(
        "--held-totals-only",
        action="store_true",
        help="print only the held-aside half's total line, not its rows per kind (for whoever tunes)",
    )
    parser.add_argument("--keep", type=Path, help="planted half: keep the archive and site in this folder")
    parser.add_argument("--jobs", type=int, default=2, help="build workers for the planted half")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--builds", action="store_true", help="only: build each real corpus and say whether its output scan passes"
    )
    args = parser.parse_args()
    if args.builds:
        print_builds(args.fresh, (args.fresh2, args.fresh3, args.fresh4))
        return 0
    if not args.real and not args.planted:
        args.real = args.planted = True
    out: dict = {}
    if args.real:
        real = run_real(args)
        if args.json:
            out["real"] = _jsonable(real)
        else:
            print_real(real, totals_only=args.held_totals_only)
    if args.planted:
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
        result = run_planted(args)
        lines, summary = planted_table(result, planted_peers(result))
        if args.json:
            out["planted"] = {
                **summary,
                "build_ok": result.build_ok,
                "files": result.files,
                "scan_hits": len(result.scan_leaks),
            }
        else:
            print(f"\nPLANTED HALF: {len(result.cells)} planted values, {result.files} site files searched")
            if not result.build_ok:
                print("the build failed:\n" + result.build_output[-3000:])
            verdict = "refuse to publish" if result.scan_leaks else "publish"
            print(f"a real build of this archive would {verdict} ({len(result.scan_leaks)} output-scan hits)\n")
            for line in lines:
                print(line)
            for knowable, title in ((True, "leaking cells (files)"), (False, "no shape, no context anywhere")):
                chosen = [leak for leak in summary["leaks"] if leak["knowable"] is knowable]
                if chosen:
                    print(f"\n{title}:")
                for leak in chosen:
                    offsets = f" offsets {leak['offsets']}" if leak["offsets"] else ""
                    print(
                        f"  {leak['kind']} × {leak['place']}{offsets}: {leak['nfiles']} files,"
                        f" e.g. {', '.join(leak['files'][:3])}"
                    )
    if args.json:
        print(json.dumps(out, indent=1, default=str))
    return 0


def _jsonable(real: dict) -> dict:
    def row(r: Row) -> dict:
        return {**asdict(r), "precision": r.precision, "recall": r.recall}

    halves = {}
    for which, e in real["halves"].items():
        halves[which] = {
            "rows": [row(r) for r in e["rows"]],
            "total": row(e["total"]),
            "old_false_left": e["old_false"],
            "baseline": row(e["baseline"]) if e.get("baseline") else None,
            "unlabelled": len(e["unlabelled"]),
        }
    return {
        "corpora": real["corpora"],
        "sessions": real["sessions"],
        "files": real["files"],
        "labels": dict(real["label_counts"]),
        "false_categories": dict(real["categories"]),
        "halves": halves,
        "unlabelled": [asdict(f) for f in real["unlabelled"] if half(f.corpus, f.source) == "tuning"],
        "unlabelled_held_aside": sum(1 for f in real["unlabelled"] if half(f.corpus, f.source) != "tuning"),
    }


if __name__ == "__main__":
    sys.exit(main())
