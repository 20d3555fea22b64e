"""Refs mentioned in text: forge URLs, ``[branch sha]`` lines, ``#123``, ``owner/repo#123``,
``owner/repo@sha``, ``GH-123`` and hex runs under the short-SHA rule (see the package docstring).

Each text is read on one channel: prose (every rule), git (a git/gh command line or
its output: every rule plus git-output positions) or other tool I/O (only mentions
that describe themselves).
"""

from __future__ import annotations

import re

from sessite.analyze.refs.findings import Findings, TextSpans
from sessite.analyze.refs.git_output import scan_git_output
from sessite.analyze.refs.keys import CANDIDATES_PER_SESSION, SCAN_LIMIT_TEXT, SCAN_LIMIT_TOOL
from sessite.analyze.refs.patterns import FORGE_URL, HASH_NUM, mixed, snippet, valid_branch

MSG = "msg"  # prose: every rule
GIT = "git"  # a git/gh command line or its output: every rule plus git-output positions
TOOL = "tool"  # other tool I/O: only unambiguous mentions

_AT_SHA = re.compile(r"@(?P<sha>[0-9a-f]{7,40})(?![\w-])")
# owner/repo right before a "#123" or "@sha" (searched in a window ending there)
_REPO_BEFORE = re.compile(r"(?<![\w/.@#-])(?P<repo>[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9_.-]{1,100})$")
_GH = re.compile(r"(?<![\w-])GH-(?P<num>[1-9]\d{0,6})(?![\w-])")
# A bare ``#123`` is an issue only after a word that says so (``see #2``, ``bug #3``, ``#1 and #2``
# in a list of review findings are numbers, not issues), or in a list that such a word opens.
_ISSUE_KW_BEFORE = re.compile(
    r"\b(?P<kw>issues?|prs?|pull requests?|pull|merge pull request|merge requests?|fix(?:e[sd])?"
    r"|clos(?:e[sd]?|ing)|resolv(?:e[sd]?|ing)|refs?)\s*:?\s*$",
    re.IGNORECASE,
)
# ``issues #1, #2 and #3``: a number right after another, joined by a comma, "and", "or" or "&"
_LISTED_AFTER = re.compile(r"#[1-9]\d{0,6}(?:,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+|\s*,\s*)$", re.IGNORECASE)
_LIST_DEPTH = 20  # numbers a list may hold after its keyword
_SHA_KW_BEFORE = re.compile(
    r"(?:\b(?:[Cc]ommit(?:ted)?(?:\s+(?:hash|id|sha|SHA|as|in|to|at|is|was))?|[Cc]ommits|[Rr]evision"
    r"|[Rr]evert(?:ed|s|ing)?|[Cc]herry-pick(?:ed|ing)?"
    r"|HEAD is now at|git\s+(?:show|checkout|revert|cherry-pick|reset(?:\s+--(?:hard|soft|mixed|keep))?"
    r"|rebase(?:\s+(?:-i|--onto))?|diff|log|branch\s+\S+|switch\s+--detach|tag\s+\S+))"
    r"|\b(?P<shakw>SHA))\s*[:=]?\s*[`'\"(\[]?$"
)
_SHA_KW_HINTS = ("ommit", "evision", "evert", "herry", "HEAD is", "git", "SHA")  # cheap test before _SHA_KW_BEFORE
_HEX_RUN = re.compile(r"[0-9a-f]{7,40}")
# every ASCII char to "x" (hex digit) or " ": a text without "xxxxxxx" after it has no hex run,
# and translate plus find is several times cheaper than the regex's scan
_HEX_MASK = str.maketrans({chr(c): "x" if chr(c) in "0123456789abcdef" else " " for c in range(128)})
_SEVEN_HEX = "x" * 7
_NOT_BEFORE_SHA = set("_#/.:=@$+%&-\\")
_NOT_AFTER_SHA = set("_/-")
_COMMIT_LINE = re.compile(
    r"(?m)^\[(?P<branch>detached HEAD|[^\]\s]+)(?: \(root-commit\))? (?P<sha>[0-9a-f]{7,40})\] ?(?P<msg>[^\n]*)"
)
_DIGEST_WORDS = re.compile(
    r"(?i)checksum|digest|integrity|sha-?(?:1|256|384|512)|sha\d*sum|md5|blob|tree|object|token|secret"
    r"|api[_ -]?key|uuid|nonce|salt|signature|fingerprint|hash"
)


def scan(f: Findings, text: str, eid: str, channel: str, subs: set[str] | None = None) -> None:
    """Record every ref one text mentions; a stronger rule takes a span before a weaker one sees it."""
    if not text:
        return
    limit = SCAN_LIMIT_TOOL if channel == TOOL else SCAN_LIMIT_TEXT
    if len(text) > limit:
        text = text[:limit]
    spans = TextSpans()
    # a one-character test (memchr) first: most texts lack it, and a longer needle costs several times more
    if ":" in text and "/" in text and "://" in text:
        worked = channel == GIT and bool(subs and "pr create" in subs)
        for m in FORGE_URL.finditer(text):
            if spans.take(m.start(), m.end()):
                f.forge_url(m, text, eid, worked=worked)
    if "[" in text and ("\n[" in text or text.startswith("[")):
        _commit_lines(f, text, eid, channel == GIT, spans)
    if "#" in text:
        _hash_numbers(f, text, eid, channel, spans)
    if "@" in text:
        _at_shas(f, text, eid, spans)
    if channel == TOOL:
        return  # other tool I/O: only self-describing refs (forge URLs, owner/repo#N, owner/repo@sha, [branch sha])
    if "G" in text and "GH-" in text:
        for m in _GH.finditer(text):
            if spans.take(m.start(), m.end()):
                f.hit(None, "issue", m.group("num"), eid, m.group(0), snippet(text, m.start(), m.end(), eid))
    if channel == GIT:
        scan_git_output(f, text, eid, subs or set(), spans)
    _hex_runs(f, text, eid, channel, spans)


def _commit_lines(f: Findings, text: str, eid: str, worked: bool, spans: TextSpans) -> None:
    """``[branch sha] message``, as ``git commit`` prints it: a commit on a branch, and the issues its message names."""
    for m in _COMMIT_LINE.finditer(text):
        sha, branch = m.group("sha"), m.group("branch")
        if not spans.take(m.start("sha"), m.end("sha")):
            continue
        f.hit(None, "commit", sha, eid, sha, snippet(text, m.start("sha"), m.end("sha"), eid), worked=worked)
        if branch != "detached HEAD" and valid_branch(branch):
            f.hit(None, "branch", branch, eid, None, None, worked=worked)
            f.relate((None, "commit", sha), (None, "branch", branch))
            if worked:
                f.branch = branch
        for im in HASH_NUM.finditer(m.group("msg")):
            if worked:  # the session's own commit names the issue: linked where it says so
                s, e = m.start("msg") + im.start(), m.start("msg") + im.end()
                f.hit(None, "issue", im.group("num"), eid, text[s:e], snippet(text, s, e, eid), worked=True)
            f.relate((None, "commit", sha), (None, "issue", im.group("num")))


def _hash_numbers(f: Findings, text: str, eid: str, channel: str, spans: TextSpans) -> None:
    """``owner/repo#123`` anywhere; a bare ``#123`` in prose or git output only where a word says it is one."""
    for m in HASH_NUM.finditer(text):
        s, e = m.start(), m.end()
        if (s, e) in spans:
            continue
        num = m.group("num")
        xref = _REPO_BEFORE.search(text, max(0, s - 141), s) if s and text[s - 1] not in " \t\n(" else None
        if xref:
            repo = f.xref_repo(xref.group("repo"))
            if repo is not None and spans.take(xref.start(), e):
                f.hit(repo, "issue", num, eid, text[xref.start() : e], snippet(text, xref.start(), e, eid))
            continue
        if channel == TOOL:
            continue
        kw = said_issue(text, s)
        if kw is not None and spans.take(s, e):
            pr = kw.lower().startswith(("pr", "pull", "merge"))
            f.hit(None, "issue", num, eid, text[s:e], snippet(text, s, e, eid), pr=pr)


def said_issue(text: str, start: int) -> str | None:
    """The word that makes the ``#N`` at ``start`` an issue (``Fixes #12``, ``PR #57``, the
    ``#3`` of ``issues #1, #2 and #3``), or None when nothing before it says so."""
    for _ in range(_LIST_DEPTH):
        if _word_ends_before(text, start):
            kw = _ISSUE_KW_BEFORE.search(text, max(0, start - 32), start)
            if kw:
                return kw.group("kw")
        listed = _LISTED_AFTER.search(text, max(0, start - 16), start)
        if listed is None:
            return None
        start = listed.start()
    return None


def means_issue(text: str, start: int) -> bool:
    """Whether the ``#N`` at ``start`` is an issue by its context: a word before it says so,
    or it is in the message of a ``[branch sha] message`` line (a commit naming its issue)."""
    if said_issue(text, start) is not None:
        return True
    line = _COMMIT_LINE.match(text, text.rfind("\n", 0, start) + 1)
    return line is not None and line.start("msg") <= start < line.end("msg")


def _word_ends_before(text: str, end: int) -> bool:
    """Whether a letter ends the text before ``end``, past blanks and one colon: every
    ``_ISSUE_KW_BEFORE`` keyword ends so, and the regex search costs more than this test."""
    window = text[max(0, end - 32) : end].rstrip()
    if window.endswith(":"):
        window = window[:-1].rstrip()
    return window[-1:].isalpha()


def _at_shas(f: Findings, text: str, eid: str, spans: TextSpans) -> None:
    """``owner/repo@sha``: a commit of that repository."""
    for m in _AT_SHA.finditer(text):
        s, e = m.start(), m.end()
        xref = _REPO_BEFORE.search(text, max(0, s - 141), s) if s else None
        if xref:
            repo = f.xref_repo(xref.group("repo"))
            if repo is not None and spans.take(xref.start(), e):
                sha = m.group("sha")
                f.hit(repo, "commit", sha, eid, text[xref.start() : e], snippet(text, xref.start(), e, eid))


def _hex_runs(f: Findings, text: str, eid: str, channel: str, spans: TextSpans) -> None:
    """Hex runs: a keyword before makes a commit; a full SHA is one unless called a digest;
    a shorter one waits for rule 4 (a SHA established elsewhere)."""
    if _SEVEN_HEX not in text.translate(_HEX_MASK):
        return
    for m in _HEX_RUN.finditer(text):
        s, e = m.start(), m.end()
        if (s, e) in spans:
            continue
        prev = text[s - 1] if s else " "
        nxt = text[e] if e < len(text) else " "
        if prev.isalnum() or prev in _NOT_BEFORE_SHA or nxt.isalnum() or nxt in _NOT_AFTER_SHA:
            continue
        sha = m.group(0)
        kw = _SHA_KW_BEFORE.search(text, max(0, s - 48), s) if _has_sha_keyword(text, max(0, s - 48), s) else None
        if kw and not (kw.group("shakw") and channel != MSG):
            if (len(sha) == 40 or mixed(sha)) and spans.take(s, e):
                f.hit(None, "commit", sha, eid, sha, snippet(text, s, e, eid))
        elif text.startswith("..", e) or text.endswith("..", 0, s):
            continue
        elif len(sha) == 40:
            if not _DIGEST_WORDS.search(text, max(0, s - 40), s) and spans.take(s, e):
                f.hit(None, "commit", sha, eid, sha, snippet(text, s, e, eid))
        elif len(f.candidates) < CANDIDATES_PER_SESSION * 4 and (mixed(sha) or sha.isdigit()):
            f.candidates.append((sha, eid, snippet(text, s, e, eid)))


def _has_sha_keyword(text: str, start: int, end: int) -> bool:
    window = text[start:end]
    return any(hint in window for hint in _SHA_KW_HINTS)
