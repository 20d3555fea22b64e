"""What the output of the session's git and gh commands says (rule 1 of the short-SHA rule, and the remotes).

Line-leading SHAs of ``git log``-like commands, ``a..b`` ranges (never in diff
``index`` lines), push/fetch ref lines, ``remote -v``, push ``To``/fetch ``From``,
``Switched to branch`` and the pull request URL ``gh pr create`` prints.
"""

from __future__ import annotations

import re

from sessite.analyze.refs.findings import Findings, TextSpans
from sessite.analyze.refs.forges import parse_repo
from sessite.analyze.refs.patterns import FORGE_URL, clean_branch, snippet, url_ref_kind, valid_branch

_LOG_LIKE = {"log", "reflog", "rev-list", "rev-parse", "merge-base", "cherry", "blame", "show-branch"}
_LINE_SHA = re.compile(r"(?m)^[*|/\\ ]*\^?(?P<sha>[0-9a-f]{7,40})(?=[\s]|$)(?P<rest>[^\n]*)")
_DECORATE_HEAD = re.compile(r"^\s*\(HEAD -> (?P<branch>[^,)\s]+)")
_RANGE = re.compile(r"(?<![\w.])(?P<a>[0-9a-f]{7,40})\.\.\.?(?P<b>[0-9a-f]{7,40})(?![\w])")
_REF_LINE = re.compile(
    r"(?m)^\s*[+*=!-]?\s*(?:(?P<a>[0-9a-f]{7,40})\.\.\.?(?P<b>[0-9a-f]{7,40})|\[new (?P<new>branch|tag)\])"
    r"\s+(?P<src>[^\s]+)\s+->\s+(?P<dst>[^\s]+)"
)
_REMOTE_V = re.compile(r"(?m)^(?P<name>[\w.-]+)\t(?P<url>\S+)\s+\((?:fetch|push)\)")
_TO_FROM = re.compile(r"(?m)^(?P<dir>To|From)\s+(?P<url>\S+)\s*$")
_SWITCHED = re.compile(r"Switched to (?:a new )?branch '(?P<branch>[^'\s]+)'")
_PR_OUTPUT = re.compile(r"https?://\S+/(?:pull|pulls|merge_requests|pull-requests)/\d+")


def scan_git_output(f: Findings, text: str, eid: str, subs: set[str], spans: TextSpans) -> None:
    """Refs and repository votes from a git/gh command line or its output (``subs``: its subcommands)."""
    if subs & _LOG_LIKE:
        _log_lines(f, text, eid, spans)
    if "->" in text:
        _ref_lines(f, text, eid, subs)
    if ".." in text:
        _ranges(f, text, eid, spans)
    if "\t" in text and "remote" in subs:
        for m in _REMOTE_V.finditer(text):
            f.vote(1 if m.group("name") == "origin" else 4, parse_repo(m.group("url"), f.host))
    if subs & {"push", "fetch", "pull"}:
        for m in _TO_FROM.finditer(text):
            f.vote(2 if m.group("dir") == "To" else 3, parse_repo(m.group("url"), f.host))
    if "Switched to" in text:
        for m in _SWITCHED.finditer(text):
            if valid_branch(m.group("branch")):
                f.hit(None, "branch", m.group("branch"), eid, worked=True)
                f.branch = m.group("branch")
    if "pr create" in subs and f.pr_create is not None:
        _pr_created(f, text, f.pr_create[1])


def _log_lines(f: Findings, text: str, eid: str, spans: TextSpans) -> None:
    """A line-leading SHA in ``git log``-like output is a commit; ``(HEAD -> branch)`` puts it on a branch."""
    for m in _LINE_SHA.finditer(text):
        s, e = m.start("sha"), m.end("sha")
        if not spans.take(s, e):
            continue
        sha = m.group("sha")
        f.hit(None, "commit", sha, eid, sha, snippet(text, s, e, eid))
        head = _DECORATE_HEAD.match(m.group("rest"))
        if head and valid_branch(head.group("branch")):
            f.hit(None, "branch", head.group("branch"), eid, worked=True)
            f.relate((None, "commit", sha), (None, "branch", head.group("branch")))


def _ref_lines(f: Findings, text: str, eid: str, subs: set[str]) -> None:
    """``a..b src -> dst`` and ``[new branch|tag] src -> dst`` lines of push, fetch and pull."""
    pushing = "push" in subs
    for m in _REF_LINE.finditer(text):
        src = clean_branch(m.group("src"))
        new = m.group("new")
        if new:
            if pushing and valid_branch(src):
                f.hit(None, new, src, eid, worked=True)
            continue
        if pushing or subs & {"fetch", "pull"}:
            if valid_branch(src) and pushing:
                f.hit(None, "branch", src, eid, worked=True)
            if valid_branch(src) and (pushing or not src.startswith("refs/")):
                f.relate((None, "commit", m.group("b")), (None, "branch", src))


def _ranges(f: Findings, text: str, eid: str, spans: TextSpans) -> None:
    """Both ends of an ``a..b`` range are commits, except in diff headers."""
    for m in _RANGE.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if text.startswith(("index ", "diff "), line_start) or text.startswith("@@", line_start):
            continue
        for g in ("a", "b"):
            s, e = m.start(g), m.end(g)
            if spans.take(s, e):
                f.hit(None, "commit", m.group(g), eid, m.group(g), snippet(text, s, e, eid))


def _pr_created(f: Findings, text: str, head_flag: str | None) -> None:
    """The URL ``gh pr create`` prints: the repository, and the pull request's relation to its branch."""
    printed = _PR_OUTPUT.search(text)
    url = FORGE_URL.match(printed.group(0)) if printed else None
    if not url:
        return
    repo = f.url_repo(url)
    f.vote(3, repo)
    head = head_flag or f.branch
    number = re.match(r"\d+", url.group("id"))
    if head and number and repo:
        f.relate((repo, url_ref_kind(url.group("kind")), number.group(0)), (None, "branch", head))
