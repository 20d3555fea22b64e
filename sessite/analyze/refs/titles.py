"""Issue and pull request titles, where a session names them: only what ``gh`` said.

- ``gh pr create --title T`` / ``gh issue create --title T``: T is the title of the number
  in the URL the command printed.
- ``gh pr view N`` / ``gh issue view N``: the ``title:`` line of its plain output (what an
  agent, not a terminal, gets), or a first line ``Title #N`` (a terminal's).
- ``gh pr list`` / ``gh issue list``: one ``N<TAB>title…`` or ``#N  title  …`` row each.
- JSON from any gh command (``--json``, ``gh api``): objects with a ``number`` and a ``title``.

Prose ("PR #57: Add login form") is never read for titles: too often it is not one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from sessite.analyze.refs.commands import Invocation, flag_value, positional
from sessite.analyze.refs.findings import Findings
from sessite.analyze.refs.forges import parse_repo
from sessite.analyze.refs.keys import Repo
from sessite.analyze.refs.patterns import FORGE_URL, url_ref_kind

TITLE_MAX = 160  # characters kept of a title
_JSON_MAX = 256 * 1024  # JSON output parsed for titles (a bigger one is skipped)
_JSON_OBJECTS = 500  # objects looked at in one JSON output

_TITLE_FLAGS = ("-t", "--title")
_REPO_FLAGS = ("-R", "--repo")
_VALUE_FLAGS = frozenset({"-R", "--repo", "-b", "--body", "-t", "--title", "-c", "--comment", "-F", "--body-file"})
_STATES = frozenset({"OPEN", "CLOSED", "MERGED", "DRAFT"})
_PLAIN_TITLE = re.compile(r"(?m)^title:\t(?P<title>[^\n]+)$")
_PLAIN_NUMBER = re.compile(r"(?m)^number:\t(?P<num>[1-9]\d{0,6})$")
_TTY_FIRST = re.compile(r"^(?P<title>\S[^\n]*?)\s+(?:[\w.-]+/[\w.-]+)?#(?P<num>[1-9]\d{0,6})\s*$")
_TTY_ROW = re.compile(r"^#(?P<num>[1-9]\d{0,6})\s+(?P<title>\S.*?)(?:\s{2,}|$)")
_TAB_ROW = re.compile(r"^(?P<num>[1-9]\d{0,6})\t(?P<rest>[^\n]+)$")


def clean_title(value: Any) -> str | None:
    """A title as shown: one line, trimmed, bounded; None when it is no title (empty, a number, a state)."""
    if not isinstance(value, str):
        return None
    text = " ".join(value.split())
    if not text or text.upper() in _STATES or not any(c.isalpha() for c in text):
        return None
    return text if len(text) <= TITLE_MAX else text[: TITLE_MAX - 1] + "…"


def record_titles(f: Findings, invocations: list[Invocation], output: str) -> None:
    """Titles in the output of a command line's gh invocations."""
    for inv in invocations:
        if inv.tool != "gh":
            continue
        words = inv.sub.split()
        repo = _repo_flag(f, inv.args)
        if words[1:] == ["create"] and words[0] in ("pr", "issue"):
            _created(f, inv, output)
        elif words[1:] == ["view"] and words[0] in ("pr", "issue"):
            _viewed(f, inv, repo, output)
        elif words[1:] == ["list"] and words[0] in ("pr", "issue"):
            _listed(f, repo, output)
        if output.lstrip()[:1] in ("{", "["):
            _from_json(f, repo, output)


def _repo_flag(f: Findings, args: list[str]) -> Repo | None:
    value = flag_value(args, *_REPO_FLAGS)
    return parse_repo(value, f.host) if value else None


def _created(f: Findings, inv: Invocation, output: str) -> None:
    """``gh pr|issue create --title T``: the URL it printed names the number."""
    title = clean_title(flag_value(inv.args, *_TITLE_FLAGS))
    if title is None:
        return
    for m in FORGE_URL.finditer(output[:4096]):
        number = re.match(r"[1-9]\d{0,6}(?!\w)", m.group("id"))
        repo = f.url_repo(m)
        if number and repo and m.group("kind") in ("pull", "issues", "merge_requests", "pull-requests"):
            f.name_title(repo, url_ref_kind(m.group("kind")), number.group(0), title)
            return


def _viewed(f: Findings, inv: Invocation, repo: Repo | None, output: str) -> None:
    """``gh pr|issue view N``: plain ``title:``/``number:`` lines, or a terminal's ``Title #N`` first line."""
    pos = positional(inv.args, _VALUE_FLAGS)
    asked = re.fullmatch(r"#?([1-9]\d{0,6})", pos[0]) if pos else None
    plain = _PLAIN_TITLE.search(output[:8192])
    if plain:
        said = _PLAIN_NUMBER.search(output[:8192])
        number = said.group("num") if said else (asked.group(1) if asked else None)
        if number:
            _name(f, repo, number, plain.group("title"))
        return
    first = output.lstrip().split("\n", 1)[0]
    tty = _TTY_FIRST.match(first)
    if tty and (asked is None or asked.group(1) == tty.group("num")):
        _name(f, repo, tty.group("num"), tty.group("title"))


def _listed(f: Findings, repo: Repo | None, output: str) -> None:
    """``gh pr|issue list``: ``N<TAB>[STATE<TAB>]title…`` rows (plain) or ``#N  title  …`` (a terminal's)."""
    for line in output[:65536].splitlines()[:500]:
        tab = _TAB_ROW.match(line)
        if tab:
            fields = tab.group("rest").split("\t")
            title = fields[1] if fields[0] in _STATES and len(fields) > 1 else fields[0]
            _name(f, repo, tab.group("num"), title)
            continue
        tty = _TTY_ROW.match(line.strip())
        if tty:
            _name(f, repo, tty.group("num"), tty.group("title"))


def _from_json(f: Findings, repo: Repo | None, output: str) -> None:
    """Objects with an integer ``number`` and a string ``title`` (``--json number,title``, ``gh api``)."""
    if len(output) > _JSON_MAX:
        return
    try:
        data = json.loads(output)
    except ValueError:
        return
    for obj in _objects(data):
        number, title = obj.get("number"), obj.get("title")
        if not isinstance(number, int) or isinstance(number, bool) or not 0 < number < 10**7:
            continue
        where, kind = repo, "issue"
        url = obj.get("html_url") or obj.get("url")
        m = FORGE_URL.match(url) if isinstance(url, str) else None
        if m:
            where = f.url_repo(m) or repo
            kind = url_ref_kind(m.group("kind"))
        name = clean_title(title)
        if name is not None:
            f.name_title(where, kind, str(number), name)


def _objects(data: Any) -> Iterator[dict[str, Any]]:
    """The dicts of a JSON value, breadth first, bounded."""
    queue = [data]
    seen = 0
    while queue and seen < _JSON_OBJECTS:
        item = queue.pop(0)
        if isinstance(item, dict):
            seen += 1
            yield item
            queue.extend(v for v in item.values() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            queue.extend(v for v in item[:_JSON_OBJECTS] if isinstance(v, (dict, list)))


def _name(f: Findings, repo: Repo | None, number: str, title: str) -> None:
    name = clean_title(title)
    if name is not None:
        f.name_title(repo, "issue", number, name)
