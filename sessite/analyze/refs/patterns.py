"""Patterns and small text tests shared by every extraction step: SHAs, forge URLs, branch names, snippets."""

from __future__ import annotations

import re

from sessite.analyze.refs.keys import SNIPPET, Mention

SHA = re.compile(r"^[0-9a-f]{7,40}$")
_HEX_LETTER = re.compile(r"[a-f]")
_HEX_DIGIT = re.compile(r"[0-9]")

# a forge URL of a commit, issue, pull/merge request, tag or "new pull request" branch
FORGE_URL = re.compile(
    r"https?://(?:[\w.~%-]+(?::[\w.~%-]*)?@)?(?P<host>[A-Za-z0-9][A-Za-z0-9.-]*\.[A-Za-z]{2,})(?::\d{1,5})?"
    r"/(?P<path>[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+?)/(?P<dash>-/)?"
    r"(?P<kind>commits?|pulls?|merge_requests|pull-requests|issues|releases/tag)/(?P<id>[A-Za-z0-9_./+-]+)"
)
_MR_KINDS = ("merge_requests", "pull-requests")  # GitLab's and Bitbucket's kinds in ``FORGE_URL``


def url_ref_kind(kind: str) -> str:
    """The ref kind of a ``FORGE_URL`` pull request or issue: "mr" for a merge request (GitLab) or a
    Bitbucket pull request, else "issue" (an issue and a GitHub pull request share their numbers)."""
    return "mr" if kind in _MR_KINDS else "issue"


# ``#123`` (also inside a commit message)
HASH_NUM = re.compile(r"#(?P<num>[1-9]\d{0,6})(?![\w-])")
# an ``owner/name`` that ends like a file is a path, not a repository
FILE_SUFFIXES = (
    ".md",
    ".html",
    ".htm",
    ".py",
    ".js",
    ".ts",
    ".rs",
    ".go",
    ".txt",
    ".json",
    ".yml",
    ".yaml",
    ".toml",
    ".rst",
    ".c",
    ".h",
    ".cpp",
    ".java",
    ".rb",
    ".css",
    ".sh",
    ".lock",
    ".cfg",
    ".ini",
)

_BRANCH_BAD = re.compile(r"[\x00-\x20\x7f~^:?*\[\\'\"`$<>|;&(){}!,]|\.\.|@\{|//|\.lock$|\.$|^[-/.]|/$|/\.")


def valid_branch(name: str) -> bool:
    """A plausible branch or tag name (git's check-ref-format, plus no shell syntax)."""
    return (
        bool(name)
        and len(name) <= 200
        and name != "HEAD"
        and not _BRANCH_BAD.search(name)
        and not name.startswith("refs/remotes/")
    )


def clean_branch(name: str) -> str:
    """A branch or tag name without its ``refs/heads/`` or ``refs/tags/`` prefix."""
    name = name.strip()
    for prefix in ("refs/heads/", "refs/tags/"):
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


def mixed(token: str) -> bool:
    """Hex that mixes digits and letters: the only short hex taken on a keyword or a prefix match."""
    return bool(_HEX_LETTER.search(token) and _HEX_DIGIT.search(token))


def snippet(text: str, start: int, end: int, event_id: str) -> Mention:
    """A mention with up to SNIPPET characters of context on each side, whitespace folded."""
    a = max(0, start - SNIPPET)
    b = min(len(text), end + SNIPPET)
    before = " ".join(text[a:start].split())
    after = " ".join(text[end:b].split())
    if a > 0:
        before = "…" + before
    if b < len(text):
        after = after + "…"
    if text[start - 1 : start].isspace() and before:
        before += " "
    if text[end : end + 1].isspace() and after:
        after = " " + after
    return Mention(event_id, before, " ".join(text[start:end].split()), after)
