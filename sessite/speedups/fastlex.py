"""pygments' RegexLexer loop with one regex per run of rules instead of one per rule.

``RegexLexer.get_tokens_unprocessed`` tries a state's rules one by one at every
position: some twenty ``match`` calls per token, most of a code block's
highlighting time. Here consecutive rules of a state are joined into one
alternation, ``r1()|r2()|…``, which the regex engine tries in the same order, so
one call finds the same rule with the same match (an alternation takes its first
alternative that matches, as the loop does); ``lastindex`` (the empty group that
ends each alternative, so closes last) names the rule. The empty group sits at the
end, not around the rule, so that the engine can still skip an alternative by its
first character. Each rule keeps its flags in a scoped group.
A rule that could read differently inside a bigger pattern (group references,
verbose mode) is tried alone, in its place. Rules with callbacks get their own
match again, with their own group numbers. Lexers that are not plain RegexLexers
keep their own loop. Same tokens out (tests/speedups/test_fastlex.py compares them).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from pygments.lexer import Lexer, RegexLexer
from pygments.token import Error, Whitespace, _TokenType

Rule = tuple[Callable[..., Any], Any, Any]  # (pattern.match, action, new state): a processed pygments rule
# (match, group -> rule, True) for joined rules; (match, rule, False) for a rule tried alone.
Matcher = tuple[Callable[..., Any], Any, bool]
Machine = dict[str, list[Matcher]]

_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_LEADING_FLAGS = re.compile(r"\(\?[aiLmsux]+\)")
_SCOPED = (re.IGNORECASE, re.MULTILINE, re.DOTALL)
_LETTER = {re.IGNORECASE: "i", re.MULTILINE: "m", re.DOTALL: "s"}

_machines: dict[type, Machine | None] = {}


def tokens(lexer: Lexer, text: str) -> Iterator[tuple[int, Any, str]]:
    """What ``lexer.get_tokens_unprocessed(text)`` yields, sooner for plain RegexLexers."""
    machine = _machine(lexer)
    if machine is None:
        return lexer.get_tokens_unprocessed(text)
    return _run(lexer, machine, text)


class _Machine(dict[str, list[Matcher]]):
    """A lexer's states as matchers, each joined when first entered: joining costs a regex
    compile, and most code visits few of a lexer's states."""

    def __init__(self, states: dict[str, list[Rule]]) -> None:
        super().__init__()
        self.states = states

    def __missing__(self, name: str) -> list[Matcher]:
        found = self[name] = _matchers(self.states[name])
        return found


def _machine(lexer: Lexer) -> Machine | None:
    cls = type(lexer)
    if cls not in _machines:
        plain = isinstance(lexer, RegexLexer) and cls.get_tokens_unprocessed is RegexLexer.get_tokens_unprocessed
        _machines[cls] = _Machine(lexer._tokens) if plain else None  # type: ignore[attr-defined]
    return _machines[cls]


def _matchers(rules: list[Rule]) -> list[Matcher]:
    """A state's rules as matchers tried in order: runs of joinable rules joined, the others alone."""
    out: list[Matcher] = []
    run: list[tuple[Rule, str, int]] = []
    for rule in rules:
        body = _body(rule)
        if body is None:
            out.extend(_joined(run))
            run = []
            out.append((rule[0], rule, False))
        else:
            run.append((rule, *body))
    out.extend(_joined(run))
    return out


def _body(rule: Rule) -> tuple[str, int] | None:
    """A rule's pattern as an alternative of a bigger one, with its group count; None when it cannot be one."""
    pattern = getattr(rule[0], "__self__", None)
    if not isinstance(pattern, re.Pattern) or not isinstance(pattern.pattern, str):
        return None
    if pattern.flags & ~(re.IGNORECASE | re.MULTILINE | re.DOTALL | re.UNICODE):
        return None  # verbose, ASCII or locale: not worth the risk
    text = pattern.pattern
    while _LEADING_FLAGS.match(text):  # global flags, already in pattern.flags
        text = text[_LEADING_FLAGS.match(text).end() :]  # type: ignore[union-attr]
    if "(?P=" in text or "(?(" in text or any(c.isdigit() for c in _ESCAPE.findall(text)):
        return None  # a group reference would point elsewhere once renumbered
    on = "".join(_LETTER[f] for f in _SCOPED if pattern.flags & f)
    off = "".join(_LETTER[f] for f in _SCOPED if not pattern.flags & f)
    return f"(?{on}{'-' + off if off else ''}:{text})()", pattern.groups


def _joined(run: list[tuple[Rule, str, int]]) -> list[Matcher]:
    """One matcher for a run of rules (the rule alone when it is one, or if joining fails)."""
    if len(run) < 2:
        return [(rule[0], rule, False) for rule, _, _ in run]
    by_group: dict[int, Rule] = {}
    group = 1
    for rule, _, groups in run:
        by_group[group + groups] = rule  # its empty group, after its own
        group += groups + 1
    try:
        joined = re.compile("|".join(body for _, body, _ in run))
    except re.error:
        return [(rule[0], rule, False) for rule, _, _ in run]
    return [(joined.match, by_group, True)]


def _run(lexer: Lexer, machine: Machine, text: str) -> Iterator[tuple[int, Any, str]]:
    """``RegexLexer.get_tokens_unprocessed`` over the joined states (its code, step for step)."""
    pos = 0
    stack = ["root"]
    state = machine["root"]
    while True:
        m, rule, value = _first(state, text, pos)
        if m is None:
            if pos >= len(text):
                return
            if text[pos] == "\n":  # at EOL, reset state to "root"
                stack = ["root"]
                state = machine["root"]
                yield pos, Whitespace, "\n"
            else:
                yield pos, Error, text[pos]
            pos += 1
            continue
        action, new_state = rule[1], rule[2]
        if type(action) is _TokenType:
            yield pos, action, value
        elif action is not None:
            yield from action(lexer, m)
        pos += len(value)
        if new_state is not None:
            _transition(stack, new_state)
            state = machine[stack[-1]]


def _first(state: list[Matcher], text: str, pos: int) -> tuple[Any, Any, str]:
    """The first rule of a state that matches at ``pos``: its match, the rule and the matched text."""
    for match, target, joined in state:
        m = match(text, pos)
        if m is None:
            continue
        if not joined:
            return m, target, m.group()
        rule = target[m.lastindex]
        value = m.group()
        if type(rule[1]) is not _TokenType and rule[1] is not None:
            m = rule[0](text, pos)  # a callback reads the rule's own groups
        return m, rule, value
    return None, None, ""


def _transition(stack: list[str], new_state: Any) -> None:
    """The state stack after a rule, as pygments moves it."""
    if isinstance(new_state, tuple):
        for state in new_state:
            if state == "#pop":
                if len(stack) > 1:
                    stack.pop()
            elif state == "#push":
                stack.append(stack[-1])
            else:
                stack.append(state)
    elif isinstance(new_state, int):
        if abs(new_state) >= len(stack):  # pop, but keep at least one state
            del stack[1:]
        else:
            del stack[new_state:]
    elif new_state == "#push":
        stack.append(stack[-1])
    else:
        raise AssertionError(f"wrong state def: {new_state!r}")
