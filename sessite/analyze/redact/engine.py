"""Redaction of one string: which rules can match it, running them, replacing what they find.

Most strings hold no secret, so the engine first asks, as cheaply as it can, which
rules could match at all: the hints the lower-cased string holds (``prefilter``) and
the runs of digits or capitals it holds (``runs``). Only the rules with a hint found
run, in order, each on what the ones before it left; a rule whose pattern cannot
start with a literal is tried only at its anchors. Strings seen before are not
redacted again (a memo for short ones, the latest few long ones).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable
from functools import cache, lru_cache, partial

from sessite.analyze.redact.allow import AllowList
from sessite.analyze.redact.learned import Learned
from sessite.analyze.redact.normalize import NormalView, may_hide_secrets
from sessite.analyze.redact.personal import Personal
from sessite.analyze.redact.prefilter import HintFinder
from sessite.analyze.redact.rules import PATTERNS, SCANS, SHAPES, RedactionConfigError, compile_extra
from sessite.analyze.redact.ruleset import available as ruleset_available
from sessite.analyze.redact.ruleset import loosen, rule_set
from sessite.analyze.redact.runs import RUN_PATTERNS, RUNS, runs_in
from sessite.analyze.redact.types import Anchors, Check, Scan, Span

_MEMO_MAX_LEN = 256  # short strings repeat (paths, names, ids): remember what they became
_MEMO_MAX_ITEMS = 200_000
_RECENT_MAX_CHARS = 4_000_000

# (kind, hints, compiled pattern or scan, anchors, check)
_Rule = tuple[str, tuple[str, ...], re.Pattern[str] | Scan, Anchors, Check | None]

__all__ = ["TextRedactor", "RedactionConfigError"]


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """A built-in rule's regex, compiled once a process: a worker makes a redactor per source, and
    re's own cache (512 patterns) is churned by the highlighting's hundreds between two sources."""
    return re.compile(pattern)


@lru_cache(maxsize=8)
def _hint_finder(hints: frozenset[str]) -> HintFinder:
    """The prefilter for a set of hints, built once a process (it holds no state of a string)."""
    return HintFinder(set(hints))


class _RuleTable:
    """What a redactor's rules are, apart from any one string or source: the rules in order and
    what picks them (hints, runs, the compiled set). Made once a process for a build's settings
    (``_rule_table``): a worker makes a redactor per source."""

    def __init__(self, extra: Iterable[tuple[str, str]], shapes_only: bool, personal: Personal | None = None) -> None:
        rules: list[_Rule] = [(kind, (), compile_extra(kind, p), (), None) for kind, p in extra]
        for spec in SHAPES if shapes_only else PATTERNS:
            anchors: Anchors = spec[3] if len(spec) > 3 else ()
            check: Check | None = spec[4] if len(spec) > 4 else None
            rules.append((spec[0], spec[1], _compiled(spec[2]), anchors, check))
        rules.extend((kind, hints, scan, (), None) for kind, hints, scan in (() if shapes_only else SCANS))
        if personal is not None:
            rules.extend((kind, hints, scan, (), None) for kind, hints, scan in personal.scans())
        self.rules = rules
        self.checks = {r[2]: r[4] for r in rules if r[4] is not None}
        hints = {h for r in rules for h in r[1] if h not in RUNS}
        self.runs = tuple(run for run in RUNS if any(run in r[1] for r in rules))
        self.hints = _hint_finder(frozenset(hints))
        self.hint_set = frozenset(hints)
        by_hint: dict[str, set[int]] = defaultdict(set)
        for i, rule in enumerate(rules):
            for hint in rule[1]:
                by_hint[hint].add(i)
        self.by_hint = dict(by_hint)  # (a hint found may be one no rule here has: a run)
        self.always = {i for i, r in enumerate(rules) if not r[1]}
        self.always_order = sorted(self.always)
        self.ruleset = rule_set(tuple(_requirements(r[1], r[2]) for r in rules)) if ruleset_available() else None


@lru_cache(maxsize=8)
def _rule_table(extra: tuple[tuple[str, str], ...], shapes_only: bool, compiled_set: bool) -> _RuleTable:
    """``compiled_set``: whether the RE2 set is used now (tests turn it off and on)."""
    return _RuleTable(extra, shapes_only)


class TextRedactor:
    """Replaces secrets in strings by ``[REDACTED:kind]`` and counts them by kind.

    ``extra``: more (kind, regex) patterns, tried before the built-in ones (a regex
    that starts with a literal is as cheap as a built-in one; one that does not is
    tried at every position of every string). ``allow``: exact values never
    redacted (a known test key, a public example). ``personal``: personal data
    rules too (``--redact-pii``), run after the secrets ones; None costs nothing.
    ``shapes_only``: only the secrets known by their shape (a vendor prefix and body),
    which mean the same wherever they stand (the build's scan of whole output files).
    """

    def __init__(
        self,
        extra: Iterable[tuple[str, str]] = (),
        allow: Iterable[str] = (),
        personal: Personal | None = None,
        shapes_only: bool = False,
        remember: bool = True,
    ) -> None:
        """``remember``: keep what long strings became (a session's tool output in its result and in
        its record); not worth hashing each text again where every one is new (a site's pages)."""
        extra = tuple(extra)
        try:
            table = _rule_table(extra, shapes_only, ruleset_available()) if personal is None else None
        except TypeError:  # (a pattern that is no string: _RuleTable says so, as a config error)
            table = None
        if table is None:
            table = _RuleTable(extra, shapes_only, personal)
        self.personal = personal
        self._min_len = 8 if personal is None else 3  # (a user name, an address can be short)
        self._rules = table.rules
        self._replacers: dict[int, Callable[[re.Match[str]], str]] = {}  # (made when a rule first runs)
        self._checks = table.checks
        self._allow = AllowList(allow)
        self._runs = table.runs
        self._hints = table.hints
        self._hint_set = table.hint_set
        self._by_hint = table.by_hint
        self._always = table.always
        self._always_order = table.always_order
        self._ruleset = table.ruleset
        self._memo: dict[str, tuple[str, tuple[str, ...]]] = {}
        self._recent: dict[str, tuple[str, tuple[str, ...]]] = {}  # long strings, oldest first
        self._recent_size = 0
        self._recent_max = _RECENT_MAX_CHARS if remember else 0
        self._kinds: list[str] = []  # kinds replaced in the string being redacted
        self.counts: Counter[str] = Counter()
        self.learned = Learned()  # every value replaced, to be found where no rule sees it (see Redactor)
        self.spreading = False  # text() replaces only what was learnt (the second look at a session)
        self.collected: list[str] | None = None  # when a list, text() only adds to it (``nothing_in``)

    def text(self, value: str) -> str:
        if self.collected is not None:
            if len(value) > _MEMO_MAX_LEN:
                hit = self._recent.get(value)
                if hit is None or hit[1]:  # (a long string known unchanged is not asked again)
                    self.collected.append(value)
            elif len(value) >= self._min_len:
                self.collected.append(value)
            return value
        if self.spreading:
            return self.learned.replace(value, self.counts) if len(value) >= 8 else value
        if len(value) < self._min_len or (value.startswith("data:image/") and is_image_data(value)):
            return value
        short = len(value) <= _MEMO_MAX_LEN
        memo = self._memo if short else self._recent if self._recent_max else None
        hit = memo.get(value) if memo is not None else None
        if hit is not None:
            if not hit[1]:
                return value  # the caller's own object: unchanged means identical
            self.counts.update(hit[1])
            return hit[0]
        self._kinds = []
        new = self._redact(value)
        if may_hide_secrets(value):
            new = self._redact_hidden(value, new)
        if self._kinds:
            self.counts.update(self._kinds)
        if memo is not None:
            self._remember(value, (new, tuple(self._kinds)), short)
        return new

    def joins(self) -> bool:
        """Whether ``nothing_in`` can answer for several texts at once (the compiled set, no rule
        anchored to a text's edge; not for personal data, whose names change as they are learnt)."""
        return self._ruleset is not None and self._ruleset.joinable and self.personal is None

    def nothing_in(self, texts: list[str]) -> bool:
        """Whether ``text`` would return every one of ``texts`` as it is: no rule can match any of
        them, and none hides what escapes or invisible characters could (one look at them all).
        The long ones are then remembered as unchanged, as ``text`` would (a tool's output stands
        in its result and in its record)."""
        if not texts:
            return True
        assert self._ruleset is not None
        if not self._ruleset.none_in(texts, may_hide_secrets):
            return False
        if self._recent_max:
            for value in texts:
                if len(value) > _MEMO_MAX_LEN:
                    self._remember(value, (value, ()), False)
        return True

    def forget(self) -> None:
        """Drop what strings became (a name learnt since changes what they become)."""
        self._memo.clear()
        self._recent.clear()
        self._recent_size = 0

    def _remember(self, value: str, result: tuple[str, tuple[str, ...]], short: bool) -> None:
        """Short strings repeat all over an archive (paths, names, ids); long ones within a
        session (a tool's output in its result and in its record): keep the latest few."""
        if short:
            if len(self._memo) >= _MEMO_MAX_ITEMS:
                self._memo.clear()
            self._memo[value] = result
            return
        recent = self._recent
        recent[value] = result
        self._recent_size += len(value)
        while self._recent_size > self._recent_max and recent:
            oldest = next(iter(recent))
            self._recent_size -= len(oldest)
            del recent[oldest]

    def _redact(self, value: str) -> str:
        """Every rule that can match, in order, each on what the ones before it left."""
        order = self._ruleset.candidates(value) if self._ruleset is not None else None
        present: set[str] | None = None
        if order is None:  # (no compiled set, or text it cannot read: the hint words say)
            found = self._hints.found(value.lower())
            found.extend(runs_in(value, self._runs))
            order = (
                sorted(self._always.union(*(self._by_hint.get(h, ()) for h in found))) if found else self._always_order
            )
            present = set(found)
        if not order:
            return value  # (most strings: no rule can match)
        lowered = value.lower()
        for i in order:
            kind, _, rule, anchors, _ = self._rules[i]
            if not isinstance(rule, re.Pattern):
                new = self._apply(value, rule(value))
            elif anchors and len(lowered) == len(value):  # (lower() can change the length of some letters)
                new = self._sub_anchored(kind, rule, anchors, value, lowered, present)
            else:
                replacer = self._replacers.get(i)
                if replacer is None:
                    replacer = self._replacers[i] = partial(self._replace, kind=kind)
                new = rule.sub(replacer, value)
            if new != value:
                value = new
                lowered = value.lower()
        return value

    def _redact_hidden(self, value: str, redacted: str) -> str:
        """``redacted`` unless undoing escapes and line continuations shows more secrets:
        then those are replaced in place, and the rest is redacted as usual."""
        view = NormalView.of(value)
        if view is None:
            return redacted
        first_look = self._kinds
        self._kinds = []
        seen = self._redact(view.view)
        if seen == view.view:
            self._kinds = first_look
            return redacted
        in_view = self._kinds
        self._kinds = []
        new = self._redact(view.splice(seen))  # (what the view did not change is redacted as it is written)
        self._kinds = in_view + self._kinds
        return new

    def _sub_anchored(
        self,
        kind: str,
        regex: re.Pattern[str],
        anchors: Anchors,
        value: str,
        lowered: str,
        found: Collection[str] | None = None,
    ) -> str:
        """``regex.sub`` tried only where a match can start (see PATTERNS): same result, far fewer tries."""
        starts = self._anchor_starts(anchors, lowered, found)
        if not starts:
            return value
        out: list[str] = []
        last = 0
        match = regex.match
        for start in starts:
            if start < last:
                continue
            m = match(value, start)
            if m is None or m.end() == start:
                continue
            out.append(value[last:start])
            out.append(self._replace(m, kind))
            last = m.end()
        if not out:
            return value
        out.append(value[last:])
        return "".join(out)

    def _anchor_starts(self, anchors: Anchors, lowered: str, found: Collection[str] | None) -> list[int]:
        """Where a match can start, in order: each anchor's offsets from each place its needle is
        (and the next character allows). A needle that is a hint not ``found`` is nowhere."""
        starts: list[int] = []
        find = lowered.find
        for anchor in anchors:
            needle, offsets = anchor[0], anchor[1]
            if found is not None and needle in self._hint_set and needle not in found:
                continue
            follow = anchor[2] if len(anchor) > 2 else ""
            after = len(needle)
            i = find(needle)
            while i != -1:
                if follow and (lowered[i + after : i + after + 1] or "\x00") not in follow:
                    pass  # what follows the needle rules a match out
                elif offsets == (0,):
                    starts.append(i)
                else:
                    starts.extend(i + o for o in offsets if i + o >= 0)
                i = find(needle, i + 1)
        return sorted(set(starts)) if len(anchors) > 1 or len(anchors[0][1]) > 1 else starts

    def _replace(self, match: re.Match[str], kind: str) -> str:
        """What a match becomes: its secret groups (all that matched), the spans its check
        names, or the whole of it, replaced by markers (allow-listed values kept)."""
        check = self._checks.get(match.re)
        if check is not None:
            spans = check(match)
        else:
            groups = [g for g in match.re.groupindex if g.startswith("secret") and match.group(g) is not None]
            if groups and any(match.group(g) in self._allow for g in groups) or match.group(0) in self._allow:
                return match.group(0)
            spans = [(kind, *match.span(g)) for g in groups] or [(kind, *match.span())]
        return self._apply(match.group(0), spans, match.start())

    def _apply(self, text: str, spans: list[Span], offset: int = 0) -> str:
        """``text`` (which starts at ``offset`` of the string the spans point into) with each span replaced."""
        if not spans:
            return text
        out: list[str] = []
        last = 0
        for kind, start, end in sorted(spans, key=lambda span: span[1]):
            start, end = start - offset, end - offset
            if start < last or text[start:end] in self._allow:
                continue
            out.append(text[last:start])
            out.append("~" if kind == "home" else f"[REDACTED:{kind}]")  # (a home folder in a path: see personal)
            if "\n" in text[start:end]:
                out.append(line_breaks(text[start:end]))
            self._kinds.append(kind)
            self.learned.note(kind, text[start:end])
            last = end
        out.append(text[last:])
        return "".join(out)


def line_breaks(secret: str) -> str:
    """What a secret of several lines (a key block) leaves after its marker: its line breaks, each
    with the diff mark that began the next line, so a diff keeps its lines and a table its rows."""
    return "".join("\n" + (line[:1] if line[:1] in "+-" else "") for line in secret.split("\n")[1:])


# An image as a data: URI (its base64 body may be wrapped in lines).
IMAGE_DATA = re.compile(r"data:image/[\w.+-]+;base64,[A-Za-z0-9+/=\s]*")


def is_image_data(value: str) -> bool:
    """An image as a ``data:`` URI: its base64 body is pixels, not text. A run of it can look
    like a key (``AIza`` and 35 letters); a marker put there would only break the image."""
    return value.startswith("data:image/") and IMAGE_DATA.fullmatch(value) is not None


@lru_cache(maxsize=1024)
def _requirements(hints: tuple[str, ...], pattern: re.Pattern[str] | Scan) -> tuple[str, ...]:
    """What the compiled set must find for a rule to run: its pattern loosened, and one of its
    hint words (a scan: the words alone; none at all: run it on every string)."""
    needs = [loosen(pattern.pattern)] if isinstance(pattern, re.Pattern) else []
    if hints:
        needs.append("|".join(RUN_PATTERNS[h] if h in RUN_PATTERNS else "(?i:" + re.escape(h) + ")" for h in hints))
    return tuple(needs)
