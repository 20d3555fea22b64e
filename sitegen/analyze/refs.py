"""Git references a session touches: extraction, repository scoping, forge links.

Pure functions from a Session to its refs; no I/O and no HTML.

Where refs come from
    *Structured* (the session worked on it): the format's own fields
    (``Session.git``: AICS gitRefs, HAIL ``context.attributes.git``, Claude Code
    ``gitBranch`` and pr-link records, Codex ``session_meta.git``), the git and
    gh commands the session ran (``git checkout -b``/``switch -c``, ``git push``,
    ``git tag``, ``gh pr create``…) and their output (``[branch sha] message``,
    push/fetch ref lines, ``Switched to branch``, remote URLs).
    *Mentions*: text in messages and tool I/O: full and short commit SHAs,
    ``#123``, ``owner/repo#123``, ``GH-123`` and forge URLs of commits, issues
    and pull requests.

The short-SHA rule (precision over recall)
    A run of 7–40 lowercase hex digits is a commit only when its context says so:
    1. git output in a commit position: ``[branch sha]`` after ``git commit``,
       ``a..b`` ranges in push/fetch/pull output (never diff ``index`` lines), a
       line-leading SHA in the output of ``git log``/``reflog``/``rev-list``/
       ``rev-parse``/``merge-base``/``cherry``/``blame``;
    2. a keyword right before it: ``commit``/``commits``/``committed as``/
       ``revision``/``revert``/``cherry-pick``/``HEAD is now at``/``git show|
       checkout|reset|rebase|diff|log …``, and ``SHA`` in prose;
    3. a forge URL (``…/commit/<sha>``) or ``owner/repo@<sha>``;
    4. it equals, or is a prefix of, a SHA already established by 1–3 in the same
       session (``5285071`` in prose after ``[main 5285071]`` in git output), or
       (on ref pages only) a prefix of a full SHA established anywhere in the archive.
    Short SHAs under rules 2 and 4 must mix digits and letters (``deadbeef``,
    ``1234567`` are not taken). Hex glued to ``-``, ``#``, ``/``, ``.``, ``:``,
    ``=``, ``@``, ``0x`` or a longer hex/word run is never a SHA, which rules out
    UUID parts, colour codes, hex literals, digests and path components.
    A bare full 40-hex SHA counts in prose and git output unless the words
    before it say it is a digest (checksum, sha256, blob, token…).

Scoping
    Every ref belongs to a repository; ``main`` in two repositories is two refs.
    A session's repository comes from its structured repos, then from git remote
    URLs in its git output (``remote -v``, push ``To``, fetch ``From``, clone,
    ``remote add``), then from the URL of a pull request it created. Without one
    the repository is *unknown*: such refs are scoped by the session's working
    directory (a cwd is not a repository, so it is never shown as one) and the
    pages say the repository is unknown instead of merging them with others.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any
from urllib.parse import quote, urlsplit

from sitegen.model import Event, Kind, Session

# ---------------------------------------------------------------- kinds

KINDS = ("branch", "issue", "mr", "commit", "tag")
KIND_LABELS = {
    "branch": "Branches",
    "issue": "Issues & pull requests",
    "mr": "Merge requests",
    "commit": "Commits",
    "tag": "Tags",
}
KIND_SINGULAR = {"branch": "branch", "issue": "issue", "mr": "merge request", "commit": "commit", "tag": "tag"}

# Per session, per ref: mentions kept with a snippet (the rest are only counted).
MENTIONS_PER_REF = 8
# Scan at most this much of one tool output / tool input (the head); messages and
# git output are scanned up to SCAN_LIMIT_TEXT.
SCAN_LIMIT_TOOL = 128 * 1024
SCAN_LIMIT_TEXT = 512 * 1024
# Findings kept from one text (a pasted list of 10k issue numbers is not 10k refs).
HITS_PER_TEXT = 200
CANDIDATES_PER_SESSION = 200
SNIPPET = 70  # characters of context on each side of a mention


# ---------------------------------------------------------------- repositories


@dataclass(frozen=True, slots=True)
class Repo:
    """A repository (``host`` + lowercased ``path``) or an unknown one (host None).

    For an unknown repository ``path`` is the session's working directory (or
    ""), used only to keep refs of different checkouts apart.
    """

    host: str | None
    path: str
    display: str = field(default="", compare=False)

    @property
    def known(self) -> bool:
        return self.host is not None

    @property
    def key(self) -> str:
        return f"{self.host}/{self.path}" if self.host is not None else f"?{self.path}"

    @property
    def name(self) -> str:
        """owner/name as first seen."""
        return self.display or self.path

    @property
    def slug(self) -> str:
        return _repo_slug(self.host, self.path)

    def label(self, default_host: str | None = None) -> str:
        if self.host is None:
            return "unknown repository"
        return self.name if self.host == default_host else f"{self.host}/{self.name}"


@lru_cache(maxsize=4096)
def _repo_slug(host: str | None, path: str) -> str:
    if host is None:
        return f"unknown-{_digest(path)}" if path else "unknown"
    return _slug(f"{host}/{path}", always_hash=True)


def _digest(text: str, n: int = 8) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:n]


_SLUG_UNSAFE = re.compile(r"[^a-z0-9._-]+")


@lru_cache(maxsize=65536)
def _slug(name: str, always_hash: bool = False, limit: int = 60) -> str:
    """A URL- and filesystem-safe name; a hash suffix whenever the mapping is lossy
    (case, unsafe characters, length), so two names never share a slug."""
    slug = _SLUG_UNSAFE.sub("-", name.lower()).strip("-.")[:limit].strip("-.")
    if always_hash or slug != name or not slug:
        slug = f"{slug}-{_digest(name)}" if slug else _digest(name)
    return slug


_HOST_RE = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+(:\d{1,5})?$")
_PATH_SEG = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$")
_SCP_URL = re.compile(r"^(?:[\w.-]+@)?(?P<host>[A-Za-z0-9.-]+\.[A-Za-z]{2,}):(?P<path>[^\s:]+)$")


def parse_repo(value: str, default_host: str) -> Repo | None:
    """A repository from a remote URL, a forge URL or ``owner/name``; None if it is none.

    Credentials in URLs are dropped; ``.git`` and trailing slashes are ignored.
    """
    text = (value or "").strip().strip("'\"<>()")
    if not text or len(text) > 300 or any(c.isspace() for c in text):
        return None
    host: str | None
    if "://" in text:
        try:
            parts = urlsplit(text)
        except ValueError:
            return None
        if parts.scheme.lower() not in ("http", "https", "ssh", "git", "git+ssh", "ssh+git"):
            return None
        host = (parts.hostname or "").lower()
        path = parts.path
    else:
        scp = _SCP_URL.match(text)
        if scp:
            host, path = scp.group("host").lower(), scp.group("path")
        elif text.count("/") == 1:
            host, path = default_host, text
        else:
            first, _, rest = text.partition("/")
            if "." in first and rest and _HOST_RE.match(first.lower()):
                host, path = first.lower(), rest
            else:
                return None
    if not host or not _HOST_RE.match(host):
        return None
    if host.startswith("www."):
        host = host[4:]
    path = path.strip("/")
    if path.endswith(".git"):
        path = path[:-4]
    segments = [s for s in path.split("/") if s]
    if len(segments) < 2 or not all(_PATH_SEG.match(s) for s in segments):
        return None
    if host in ("github.com", "codeberg.org", "bitbucket.org", "gitea.com") and len(segments) != 2:
        return None
    display = "/".join(segments)
    return Repo(host, display.lower(), display)


# ---------------------------------------------------------------- forge links

PRESETS: dict[str, dict[str, str]] = {
    "github": {
        "host": "github.com",
        "repo": "https://{host}/{repo}",
        "commit": "https://{host}/{repo}/commit/{sha}",
        "issue": "https://{host}/{repo}/issues/{issue}",
        "pr": "https://{host}/{repo}/pull/{pr}",
        "branch": "https://{host}/{repo}/tree/{branch}",
        "tag": "https://{host}/{repo}/releases/tag/{tag}",
    },
    "gitlab": {
        "host": "gitlab.com",
        "repo": "https://{host}/{repo}",
        "commit": "https://{host}/{repo}/-/commit/{sha}",
        "issue": "https://{host}/{repo}/-/issues/{issue}",
        "mr": "https://{host}/{repo}/-/merge_requests/{pr}",
        "branch": "https://{host}/{repo}/-/tree/{branch}",
        "tag": "https://{host}/{repo}/-/tags/{tag}",
    },
    "gitea": {
        "host": "codeberg.org",
        "repo": "https://{host}/{repo}",
        "commit": "https://{host}/{repo}/commit/{sha}",
        "issue": "https://{host}/{repo}/issues/{issue}",
        "pr": "https://{host}/{repo}/pulls/{pr}",
        "branch": "https://{host}/{repo}/src/branch/{branch}",
        "tag": "https://{host}/{repo}/releases/tag/{tag}",
    },
    "bitbucket": {
        "host": "bitbucket.org",
        "repo": "https://{host}/{repo}",
        "commit": "https://{host}/{repo}/commits/{sha}",
        "issue": "https://{host}/{repo}/issues/{issue}",
        "mr": "https://{host}/{repo}/pull-requests/{pr}",
        "branch": "https://{host}/{repo}/src/{branch}",
        "tag": "https://{host}/{repo}/src/{tag}",
    },
}
PRESETS["forgejo"] = PRESETS["gitea"]
KNOWN_HOSTS = {
    "github.com": "github",
    "gitlab.com": "gitlab",
    "codeberg.org": "gitea",
    "gitea.com": "gitea",
    "bitbucket.org": "bitbucket",
}
_PLACEHOLDER_KIND = (
    ("{sha}", "commit"),
    ("{issue}", "issue"),
    ("{number}", "issue"),
    ("{pr}", "pr"),
    ("{mr}", "mr"),
    ("{branch}", "branch"),
    ("{tag}", "tag"),
)


def _family(host: str) -> str | None:
    """The forge software a host runs, when its name says so."""
    if host in KNOWN_HOSTS:
        return KNOWN_HOSTS[host]
    for word, family in (
        ("gitlab", "gitlab"),
        ("github", "github"),
        ("gitea", "gitea"),
        ("forgejo", "gitea"),
        ("codeberg", "gitea"),
        ("bitbucket", "bitbucket"),
    ):
        if word in host:
            return family
    return None


@dataclass(frozen=True)
class Forge:
    """How refs link out to their forge: GitHub unless configured otherwise.

    Configured by ``forge_url`` values, each a preset name (github, gitlab,
    gitea, forgejo, bitbucket, none) or a URL pattern whose placeholder says
    what it links: ``{sha}`` commits, ``{issue}`` (or ``{number}``) issues,
    ``{pr}`` pull requests, ``{mr}`` merge requests, ``{branch}``, ``{tag}``,
    and only ``{repo}`` the repository; ``{host}`` is the repository's host.
    Patterns apply to repositories on the pattern's host (and to ``owner/name``
    repositories, which live on the default host); well-known hosts always use
    their own forge's URLs.
    """

    patterns: tuple[tuple[str, str], ...] = tuple(PRESETS["github"].items())
    default_host: str = "github.com"
    explicit: bool = False  # a forge was configured (links for hosts of unknown software use it)
    enabled: bool = True
    errors: tuple[str, ...] = ()

    @classmethod
    def from_config(cls, values: str | Iterable[str] | None) -> Forge:
        if isinstance(values, str):
            values = [values]
        values = [v.strip() for v in (values or ()) if v and v.strip()]
        if not values:
            return DEFAULT_FORGE
        base: dict[str, str] = dict(PRESETS["github"])
        custom: dict[str, str] = {}
        errors: list[str] = []
        enabled = True
        for value in values:
            name = value.lower()
            if name == "none":
                enabled = False
            elif name in PRESETS:
                base = dict(PRESETS[name])
            elif "{repo}" in value and value.lower().startswith(("https://", "http://")):
                kind = next((k for ph, k in _PLACEHOLDER_KIND if ph in value), "repo")
                if kind == "mr":
                    value = value.replace("{mr}", "{pr}")
                if kind == "issue":
                    value = value.replace("{number}", "{issue}")
                custom[kind] = value
            else:
                errors.append(
                    f"forge_url {value!r} is neither a preset ({', '.join(sorted(PRESETS))}, none) nor an http(s) URL pattern with {{repo}}"
                )
        host = base["host"]
        if custom:
            literal = [urlsplit(p).hostname for p in custom.values() if "{host}" not in p]
            if literal and literal[0]:
                host = literal[0].lower()
                base = {"host": host}  # a literal host: only the patterns given (plus the repo root) apply
            base.update(custom)
            if "repo" not in base:
                sample = next(iter(custom.values()))
                base["repo"] = sample[: sample.index("{repo}") + len("{repo}")]
        base["host"] = host
        return cls(tuple(base.items()), host, True, enabled, tuple(errors))

    def _patterns_for(self, host: str) -> dict[str, str] | None:
        own = dict(self.patterns)
        if host == self.default_host:
            return own
        family = _family(host)
        if host in KNOWN_HOSTS or (family and not self.explicit):
            return PRESETS[family] if family else None
        if all("{host}" in p for k, p in own.items() if k != "host"):
            return own if (self.explicit or family) else None
        return None

    def url(self, repo: Repo, kind: str = "repo", name: str = "", pr: bool = False) -> str | None:
        """The forge URL of a repository or of one of its refs, or None."""
        if not self.enabled or not repo.known or repo.host is None:
            return None
        patterns = self._patterns_for(repo.host)
        if not patterns:
            return None
        slot = kind
        if kind == "issue" and pr and "pr" in patterns or kind == "mr" and "mr" not in patterns:
            slot = "pr"
        pattern = patterns.get(slot)
        if not pattern:
            return None
        value = quote(name, safe="/") if kind in ("branch", "tag") else quote(name, safe="")
        url = pattern.format_map(
            _Fill(
                host=repo.host,
                repo=quote(repo.name, safe="/"),
                sha=value,
                issue=value,
                pr=value,
                branch=value,
                tag=value,
            )
        )
        return url if url.startswith(("https://", "http://")) else None


class _Fill(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


DEFAULT_FORGE = Forge()


# ---------------------------------------------------------------- refs


@dataclass(frozen=True, slots=True)
class RefKey:
    """One ref page: a repository, a kind and a name.

    A commit's name is its 7-character prefix, so a short and a full SHA of one
    commit share a page no matter which sessions saw which.
    """

    repo: Repo
    kind: str
    name: str

    @property
    def slug(self) -> str:
        return self.name if self.kind in ("commit", "issue", "mr") else _slug(self.name)

    @property
    def url(self) -> str:
        return f"refs/{self.repo.slug}/{self.kind}/{self.slug}.html"

    @property
    def sort_key(self) -> tuple:
        if self.kind in ("issue", "mr"):
            return (KINDS.index(self.kind), int(self.name), "")
        return (KINDS.index(self.kind), 0, self.name.lower())


def repo_url(repo: Repo) -> str:
    return f"refs/{repo.slug}/index.html"


@dataclass(slots=True)
class Mention:
    event_id: str
    before: str
    text: str
    after: str


@dataclass(slots=True)
class SessionRef:
    """What one session knows about one ref."""

    key: RefKey
    names: dict[str, None] = field(default_factory=dict)  # commit: every SHA seen (longest is the commit)
    worked: bool = False  # from structured data or the session's own git/gh commands
    pr: bool = False  # an issue number known to be a pull request
    mentions: list[Mention] = field(default_factory=list)
    more: int = 0  # mentions beyond MENTIONS_PER_REF

    @property
    def full_name(self) -> str:
        return max(self.names, key=len) if self.names else self.key.name

    @property
    def count(self) -> int:
        return len(self.mentions) + self.more


@dataclass(slots=True)
class SessionRefs:
    scope: Repo  # the session's repository (possibly unknown)
    repos: list[Repo]  # known repositories the session touched, scope first
    refs: dict[RefKey, SessionRef]
    relations: set[tuple[RefKey, RefKey]]
    links: dict[str, dict[str, RefKey]]  # event id -> token as written -> ref (for linking in text)
    candidates: list[tuple[str, Mention]]  # bare hex tokens no rule confirmed (archive-wide check)
    invalid: list[tuple[str, str]]  # structured values that are not valid refs: (kind, value)

    def ordered(self) -> list[SessionRef]:
        return sorted(self.refs.values(), key=lambda r: (not r.worked, r.key.sort_key))

    def __bool__(self) -> bool:
        return bool(self.refs or self.repos or self.invalid)


# ---------------------------------------------------------------- patterns

_HEX_LETTER = re.compile(r"[a-f]")
_HEX_DIGIT = re.compile(r"[0-9]")
_SHA = re.compile(r"^[0-9a-f]{7,40}$")

# a forge URL of a commit, issue, pull/merge request, tag or "new pull request" branch
_URL = re.compile(
    r"https?://(?:[\w.~%-]+(?::[\w.~%-]*)?@)?(?P<host>[A-Za-z0-9][A-Za-z0-9.-]*\.[A-Za-z]{2,})(?::\d{1,5})?"
    r"/(?P<path>[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+?)/(?P<dash>-/)?"
    r"(?P<kind>commits?|pulls?|merge_requests|pull-requests|issues|releases/tag)/(?P<id>[A-Za-z0-9_./+-]+)"
)
_HASH_NUM = re.compile(r"#(?P<num>[1-9]\d{0,6})(?![\w-])")
_AT_SHA = re.compile(r"@(?P<sha>[0-9a-f]{7,40})(?![\w-])")
# owner/repo right before a "#123" or "@sha" (searched in a window ending there)
_REPO_BEFORE = re.compile(r"(?<![\w/.@#-])(?P<repo>[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9_.-]{1,100})$")
_FILE_SUFFIXES = (
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
_GH = re.compile(r"(?<![\w-])GH-(?P<num>[1-9]\d{0,6})(?![\w-])")
_ISSUE_KW_BEFORE = re.compile(
    r"\b(?P<kw>issues?|prs?|pull requests?|merge pull request|merge requests?|fix(?:e[sd])?|clos(?:e[sd]?|ing)|resolv(?:e[sd]?|ing)|refs?|see|ticket|bug)\s*:?\s*$",
    re.IGNORECASE,
)
_NOT_BEFORE_ISSUE = set("_&#/\\'\"$%.:-")
_SHA_KW_BEFORE = re.compile(
    r"(?:\b(?:[Cc]ommit(?:ted)?(?:\s+(?:hash|id|sha|SHA|as|in|to|at|is|was))?|[Cc]ommits|[Rr]evision|[Rr]evert(?:ed|s|ing)?|[Cc]herry-pick(?:ed|ing)?"
    r"|HEAD is now at|git\s+(?:show|checkout|revert|cherry-pick|reset(?:\s+--(?:hard|soft|mixed|keep))?|rebase(?:\s+(?:-i|--onto))?|diff|log|branch\s+\S+|switch\s+--detach|tag\s+\S+))"
    r"|\b(?P<shakw>SHA))\s*[:=]?\s*[`'\"(\[]?$"
)
_HEX_RUN = re.compile(r"[0-9a-f]{7,40}")
_NOT_BEFORE_SHA = set("_#/.:=@$+%&-\\")
_NOT_AFTER_SHA = set("_/-")
_COMMIT_LINE = re.compile(
    r"(?m)^\[(?P<branch>detached HEAD|[^\]\s]+)(?: \(root-commit\))? (?P<sha>[0-9a-f]{7,40})\] ?(?P<msg>[^\n]*)"
)
_DIGEST_WORDS = re.compile(
    r"(?i)checksum|digest|integrity|sha-?(?:1|256|384|512)|sha\d*sum|md5|blob|tree|object|token|secret|api[_ -]?key|uuid|nonce|salt|signature|fingerprint|hash"
)
_ORDINAL_WORDS = {
    "step",
    "steps",
    "item",
    "items",
    "phase",
    "part",
    "option",
    "attempt",
    "round",
    "rank",
    "ranked",
    "point",
    "line",
    "row",
    "entry",
    "no",
    "number",
    "page",
    "slide",
    "chapter",
    "section",
    "test",
    "case",
    "example",
    "priority",
    "level",
    "stage",
    "day",
    "week",
    "version",
    "rule",
    "question",
    "answer",
    "task",
    "todo",
    "place",
    "top",
    "file",
    "cell",
    "column",
    "col",
    "arg",
    "argument",
    "param",
    "parameter",
    "index",
    "slot",
    "channel",
    "room",
    "table",
    "figure",
    "fig",
    "tip",
    "note",
    "bullet",
    "comment",
}
_ORDINAL_AFTER = {
    "priority",
    "spot",
    "rank",
    "choice",
    "pick",
    "place",
    "seller",
    "hit",
    "fan",
    "favorite",
    "favourite",
    "reason",
    "rule",
    "tip",
    "thing",
    "step",
    "cause",
    "option",
}
_WORD_AFTER = re.compile(r"[ \t]+([A-Za-z]+)")
_COLOUR_WORDS = re.compile(r"(?i)colou?r|background|fill|stroke|border|rgb|hex|css|style|shadow|theme")
_FENCE = re.compile(r"(?m)^[ \t]{0,3}(?:```|~~~)")
# git output
_LINE_SHA = re.compile(r"(?m)^[*|/\\ ]*\^?(?P<sha>[0-9a-f]{7,40})(?=[\s]|$)(?P<rest>[^\n]*)")
_DECORATE_HEAD = re.compile(r"^\s*\(HEAD -> (?P<branch>[^,)\s]+)")
_RANGE = re.compile(r"(?<![\w.])(?P<a>[0-9a-f]{7,40})\.\.\.?(?P<b>[0-9a-f]{7,40})(?![\w])")
_REF_LINE = re.compile(
    r"(?m)^\s*[+*=!-]?\s*(?:(?P<a>[0-9a-f]{7,40})\.\.\.?(?P<b>[0-9a-f]{7,40})|\[new (?P<new>branch|tag)\])\s+(?P<src>[^\s]+)\s+->\s+(?P<dst>[^\s]+)"
)
_REMOTE_V = re.compile(r"(?m)^(?P<name>[\w.-]+)\t(?P<url>\S+)\s+\((?:fetch|push)\)")
_TO_FROM = re.compile(r"(?m)^(?P<dir>To|From)\s+(?P<url>\S+)\s*$")
_SWITCHED = re.compile(r"Switched to (?:a new )?branch '(?P<branch>[^'\s]+)'")
_PR_OUTPUT = re.compile(r"https?://\S+/(?:pull|pulls|merge_requests|pull-requests)/\d+")

_LOG_LIKE = {"log", "reflog", "rev-list", "rev-parse", "merge-base", "cherry", "blame", "show-branch"}
_GIT_OPTS_WITH_ARG = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"}
_SEPARATORS = {"&&", "||", ";", "|", "&", "(", ")", ";;", "|&", "\n"}
_BRANCH_BAD = re.compile(r"[\x00-\x20\x7f~^:?*\[\\'\"`$<>|;&(){}!,]|\.\.|@\{|//|\.lock$|\.$|^[-/.]|/$|/\.")
_TAG_BAD = _BRANCH_BAD


def valid_branch(name: str) -> bool:
    """A plausible branch or tag name (git's check-ref-format, plus no shell syntax)."""
    return (
        bool(name)
        and len(name) <= 200
        and name != "HEAD"
        and not _BRANCH_BAD.search(name)
        and not name.startswith("refs/remotes/")
    )


def _clean_branch(name: str) -> str:
    name = name.strip()
    for prefix in ("refs/heads/", "refs/tags/"):
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


def _mixed(token: str) -> bool:
    return bool(_HEX_LETTER.search(token) and _HEX_DIGIT.search(token))


def _snippet(text: str, start: int, end: int, event_id: str) -> Mention:
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


# ---------------------------------------------------------------- commands


@dataclass(slots=True)
class _Invocation:
    tool: str  # git or gh
    sub: str  # subcommand ("pr create" for gh)
    args: list[str]


_SHELL_TOKEN = re.compile(r"""(&&|\|\||[;|&()])|((?:[^\s;|&()'"\\]+|\\.|'[^']*'|"(?:\\.|[^"\\])*")+)""")
_UNQUOTE = re.compile(r"""'([^']*)'|"((?:\\.|[^"\\])*)"|\\(.)""")


def _tokens(command: str) -> list[str]:
    """Shell words and operators, quotes removed (a cheap tokenizer, not a shell)."""
    out = []
    for m in _SHELL_TOKEN.finditer(command):
        op, word = m.groups()
        if op:
            out.append(op)
        elif "'" in word or '"' in word or "\\" in word:
            out.append(
                _UNQUOTE.sub(
                    lambda q: (
                        q.group(1) if q.group(1) is not None else (q.group(2) if q.group(2) is not None else q.group(3))
                    ),
                    word,
                )
            )
        else:
            out.append(word)
    return out


def parse_invocations(command: str) -> list[_Invocation]:
    """The git and gh invocations in a shell command line (cheap, best effort)."""
    if "git" not in command and "gh " not in command:
        return []
    out: list[_Invocation] = []
    tokens = _tokens(command[:20000].replace("\n", " ; "))
    i = 0
    n = len(tokens)
    while i < n:
        tok = tokens[i]
        base = tok.rsplit("/", 1)[-1]
        if base in ("git", "gh") and (
            i == 0
            or tokens[i - 1] in _SEPARATORS
            or tokens[i - 1] in ("sudo", "then", "do", "else", "time", "exec", "!", "{", "xargs")
            or "=" in tokens[i - 1]
        ):
            j = i + 1
            args: list[str] = []
            while j < n and tokens[j] not in _SEPARATORS:
                args.append(tokens[j])
                j += 1
            if base == "git":
                k = 0
                while k < len(args) and args[k].startswith("-"):
                    k += 2 if args[k] in _GIT_OPTS_WITH_ARG else 1
                if k < len(args):
                    out.append(_Invocation("git", args[k], args[k + 1 :]))
            else:
                if len(args) >= 2 and not args[0].startswith("-"):
                    out.append(_Invocation("gh", f"{args[0]} {args[1]}", args[2:]))
            i = j
        else:
            i += 1
    return out


def _positional(args: list[str], with_value: set[str] = frozenset()) -> list[str]:
    out = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg == "--":
            continue
        if arg.startswith("-"):
            if arg in with_value:
                skip = True
            continue
        out.append(arg)
    return out


def _flag_value(args: list[str], *names: str) -> str | None:
    for i, arg in enumerate(args):
        for name in names:
            if arg == name and i + 1 < len(args):
                return args[i + 1]
            if name.startswith("--") and arg.startswith(name + "="):
                return arg[len(name) + 1 :]
    return None


# ---------------------------------------------------------------- extraction

_MSG = "msg"  # prose: every rule
_GIT = "git"  # a git/gh command line or its output: every rule plus git-output positions
_TOOL = "tool"  # other tool I/O: only unambiguous mentions


class _Extractor:
    def __init__(self, session: Session, forge: Forge) -> None:
        self.session = session
        self.forge = forge
        self.host = forge.default_host
        # findings with repo None belong to the session's scope, resolved at the end
        self.hits: list[tuple[Repo | None, str, str, str | None, Mention | None, bool, bool]] = []
        self.relations: list[tuple[tuple[Repo | None, str, str], tuple[Repo | None, str, str]]] = []
        self.repo_votes: list[tuple[int, int, Repo]] = []  # (priority, order, repo)
        self.structured_repos: list[Repo] = []
        self.other_repos: list[Repo] = []
        self.confirmed: set[str] = set()
        self.candidates: list[tuple[str, str, Mention]] = []  # (sha, token, mention)
        self.invalid: list[tuple[str, str]] = []
        self.branch: str | None = None  # the branch the session is on, when known

    # -- recording

    def hit(
        self,
        repo: Repo | None,
        kind: str,
        name: str,
        event_id: str | None = None,
        token: str | None = None,
        mention: Mention | None = None,
        worked: bool = False,
        pr: bool = False,
    ) -> None:
        if kind == "commit":
            name = name.lower()
            self.confirmed.add(name)
        self.hits.append((repo, kind, name, event_id, mention, worked, pr))
        if token is not None and event_id is not None:
            self._tokens.append((event_id, token, repo, kind, name))

    def vote(self, priority: int, repo: Repo | None) -> None:
        if repo is not None:
            self.repo_votes.append((priority, len(self.repo_votes), repo))

    # -- structured

    def structured(self) -> None:
        git = self.session.git
        for value in git.repos:
            repo = parse_repo(str(value), self.host)
            if repo:
                self.structured_repos.append(repo)
                self.vote(0, repo)
            else:
                self.invalid.append(("repository", str(value)))
        for value in git.branches:
            name = _clean_branch(str(value))
            if valid_branch(name):
                self.hit(None, "branch", name, worked=True)
                self.branch = self.branch or name
            else:
                self.invalid.append(("branch", str(value)))
        for value in git.tags:
            name = _clean_branch(str(value))
            if valid_branch(name):
                self.hit(None, "tag", name, worked=True)
            else:
                self.invalid.append(("tag", str(value)))
        for value in git.commits:
            sha = str(value).strip().lower()
            if _SHA.match(sha):
                self.hit(None, "commit", sha, worked=True)
            else:
                self.invalid.append(("commit", str(value)))
        for value in git.issues:
            if not self._structured_issue(str(value)):
                self.invalid.append(("issue", str(value)))
        branches = [h for h in self.hits if h[1] == "branch"]
        commits = [h for h in self.hits if h[1] == "commit"]
        if len(branches) == 1:
            for c in commits:
                self.relate((None, "commit", c[2]), (None, "branch", branches[0][2]))

    def _structured_issue(self, value: str) -> bool:
        text = value.strip()
        m = re.fullmatch(r"#?([1-9]\d{0,6})", text) or re.fullmatch(r"GH-([1-9]\d{0,6})", text)
        if m:
            self.hit(None, "issue", m.group(1), worked=True)
            return True
        m = re.fullmatch(r"([A-Za-z0-9][\w.-]*/[\w.-]+)#([1-9]\d{0,6})", text)
        if m:
            repo = parse_repo(m.group(1), self.host)
            if repo:
                self.other_repos.append(repo)
                self.hit(repo, "issue", m.group(2), worked=True)
                return True
        m = _URL.fullmatch(text)
        if m:
            return self._url(m, text, None, worked=True)
        return False

    # -- commands

    def command(self, event: Event, command: str) -> list[_Invocation]:
        invocations = parse_invocations(command)
        for inv in invocations:
            args = inv.args
            if inv.tool == "git":
                if inv.sub in ("checkout", "switch"):
                    name = _flag_value(args, "-b", "-B", "-c", "-C", "--create", "--force-create", "--orphan")
                    if name is None and inv.sub == "switch":
                        pos = _positional(args, {"-t", "--track"})
                        name = pos[0] if len(pos) == 1 and not args[:1] == ["--detach"] and pos[0] != "-" else None
                    if name and valid_branch(name):
                        self.hit(None, "branch", name, event.id, worked=True)
                        self.branch = name
                elif inv.sub == "push":
                    pos = _positional(args, {"-o", "--push-option", "--receive-pack", "--exec", "--repo"})
                    if pos:
                        remote = parse_repo(pos[0], self.host) if ("/" in pos[0] or ":" in pos[0]) else None
                        self.vote(2, remote)
                        for spec in pos[1:]:
                            dst = _clean_branch(spec.lstrip("+").rsplit(":", 1)[-1])
                            if (
                                dst
                                and dst != "HEAD"
                                and valid_branch(dst)
                                and not spec.startswith("refs/tags/")
                                and "--tags" not in args
                            ):
                                self._pending_push.append((event.id, dst))
                elif inv.sub == "tag":
                    if not any(
                        a
                        in (
                            "-d",
                            "--delete",
                            "-l",
                            "--list",
                            "-n",
                            "-v",
                            "--verify",
                            "--contains",
                            "--points-at",
                            "--merged",
                            "--no-merged",
                        )
                        for a in args
                    ):
                        pos = _positional(
                            args,
                            {
                                "-m",
                                "--message",
                                "-F",
                                "--file",
                                "-u",
                                "--local-user",
                                "--cleanup",
                                "--sort",
                                "--format",
                            },
                        )
                        if pos and valid_branch(pos[0]):
                            self.hit(None, "tag", pos[0], event.id, worked=True)
                elif inv.sub == "clone":
                    pos = _positional(
                        args,
                        {
                            "-b",
                            "--branch",
                            "-o",
                            "--origin",
                            "--depth",
                            "-c",
                            "--config",
                            "--reference",
                            "-j",
                            "--jobs",
                            "--filter",
                        },
                    )
                    if pos:
                        self.vote(4, parse_repo(pos[0], self.host))
                elif inv.sub == "remote" and len(args) >= 3 and args[0] in ("add", "set-url"):
                    pos = _positional(args[1:], {"-t", "-m"})
                    if len(pos) >= 2:
                        self.vote(1 if pos[0] == "origin" else 4, parse_repo(pos[1], self.host))
            else:
                repo_flag = _flag_value(args, "-R", "--repo")
                repo = parse_repo(repo_flag, self.host) if repo_flag else None
                if repo:
                    self.vote(5, repo)
                if inv.sub == "pr create":
                    head = _flag_value(args, "-H", "--head")
                    head = head.split(":")[-1] if head else None
                    if head and valid_branch(head):
                        self.hit(repo, "branch", head, event.id, worked=True)
                    self._pr_head = (repo, head)
                elif inv.sub.split()[0] in ("pr", "issue") and inv.sub.split()[1] in (
                    "view",
                    "checkout",
                    "merge",
                    "close",
                    "reopen",
                    "edit",
                    "comment",
                    "review",
                    "diff",
                    "ready",
                    "checks",
                ):
                    pos = _positional(
                        args,
                        {
                            "-R",
                            "--repo",
                            "-b",
                            "--body",
                            "-t",
                            "--title",
                            "-c",
                            "--comment",
                            "--add-label",
                            "--remove-label",
                            "-F",
                            "--body-file",
                        },
                    )
                    number = re.fullmatch(r"#?([1-9]\d{0,6})", pos[0]) if pos else None
                    if number:
                        self.hit(repo, "issue", number.group(1), event.id, worked=True, pr=inv.sub.startswith("pr"))
                    elif pos and _URL.fullmatch(pos[0]):
                        self._url(_URL.fullmatch(pos[0]), pos[0], event.id, worked=True)
        return invocations

    # -- text

    def scan(self, text: str, event: Event, channel: str, subs: set[str] | None = None) -> None:
        if not text:
            return
        limit = SCAN_LIMIT_TOOL if channel == _TOOL else SCAN_LIMIT_TEXT
        if len(text) > limit:
            text = text[:limit]
        eid = event.id
        budget = [HITS_PER_TEXT]
        local: set[tuple[int, int]] = set()  # spans taken by a stronger rule

        def take(start: int, end: int) -> bool:
            if budget[0] <= 0 or (start, end) in local:
                return False
            budget[0] -= 1
            local.add((start, end))
            return True

        if "://" in text:
            for m in _URL.finditer(text):
                if take(m.start(), m.end()):
                    self._url(m, text, eid, worked=channel == _GIT and bool(subs and "pr create" in subs))
        if "\n[" in text or text.startswith("["):
            for m in _COMMIT_LINE.finditer(text):
                sha, branch = m.group("sha"), m.group("branch")
                if not take(m.start("sha"), m.end("sha")):
                    continue
                worked = channel == _GIT
                self.hit(
                    None, "commit", sha, eid, sha, _snippet(text, m.start("sha"), m.end("sha"), eid), worked=worked
                )
                if branch != "detached HEAD" and valid_branch(branch):
                    self.hit(None, "branch", branch, eid, None, None, worked=worked)
                    self.relate((None, "commit", sha), (None, "branch", branch))
                    if worked:
                        self.branch = branch
                for im in _HASH_NUM.finditer(m.group("msg")):
                    if worked:  # the session's own commit names the issue
                        self.hit(None, "issue", im.group("num"), eid, worked=True)
                    self.relate((None, "commit", sha), (None, "issue", im.group("num")))
        if "#" in text:
            fences = _fence_spans(text) if channel == _MSG and ("```" in text or "~~~" in text) else None
            for m in _HASH_NUM.finditer(text):
                s, e = m.start(), m.end()
                if (s, e) in local:
                    continue
                num = m.group("num")
                xref = _REPO_BEFORE.search(text, max(0, s - 141), s) if s and text[s - 1] not in " \t\n(" else None
                if xref:
                    repo = self._xref_repo(xref.group("repo"))
                    if repo is not None and take(xref.start(), e):
                        self.hit(repo, "issue", num, eid, text[xref.start() : e], _snippet(text, xref.start(), e, eid))
                    continue
                if channel == _TOOL:
                    continue
                kw = _ISSUE_KW_BEFORE.search(text, max(0, s - 32), s)
                if kw:
                    if take(s, e):
                        pr = kw.group("kw").lower().startswith(("pr", "pull", "merge"))
                        self.hit(None, "issue", num, eid, text[s:e], _snippet(text, s, e, eid), pr=pr)
                    continue
                prev = text[s - 1] if s else " "
                if (
                    prev.isalnum()
                    or prev in _NOT_BEFORE_ISSUE
                    or _inside(fences, s)
                    or not _plausible_issue(text, s, num)
                ):
                    continue
                if take(s, e):
                    self.hit(None, "issue", num, eid, text[s:e], _snippet(text, s, e, eid))
        if "@" in text:
            for m in _AT_SHA.finditer(text):
                s, e = m.start(), m.end()
                xref = _REPO_BEFORE.search(text, max(0, s - 141), s) if s else None
                if xref:
                    repo = self._xref_repo(xref.group("repo"))
                    if repo is not None and take(xref.start(), e):
                        self.hit(
                            repo,
                            "commit",
                            m.group("sha"),
                            eid,
                            text[xref.start() : e],
                            _snippet(text, xref.start(), e, eid),
                        )
        if channel == _TOOL:
            return  # other tool I/O: only self-describing refs (forge URLs, owner/repo#N, owner/repo@sha, [branch sha] lines)
        if "GH-" in text:
            for m in _GH.finditer(text):
                if take(m.start(), m.end()):
                    self.hit(None, "issue", m.group("num"), eid, m.group(0), _snippet(text, m.start(), m.end(), eid))
        if channel == _GIT:
            self._git_output(text, event, subs or set(), take, local)
        # hex runs: a keyword before makes a commit; a full SHA is one unless called a digest;
        # a shorter one waits for rule 4 (a SHA established elsewhere)
        for m in _HEX_RUN.finditer(text):
            s, e = m.start(), m.end()
            if (s, e) in local:
                continue
            prev = text[s - 1] if s else " "
            nxt = text[e] if e < len(text) else " "
            if prev.isalnum() or prev in _NOT_BEFORE_SHA or nxt.isalnum() or nxt in _NOT_AFTER_SHA:
                continue
            sha = m.group(0)
            kw = _SHA_KW_BEFORE.search(text, max(0, s - 48), s) if _has_sha_keyword(text, max(0, s - 48), s) else None
            if kw and not (kw.group("shakw") and channel != _MSG):
                if (len(sha) == 40 or _mixed(sha)) and take(s, e):
                    self.hit(None, "commit", sha, eid, sha, _snippet(text, s, e, eid))
            elif text.startswith("..", e) or text.endswith("..", 0, s):
                continue
            elif len(sha) == 40:
                if not _DIGEST_WORDS.search(text, max(0, s - 40), s) and take(s, e):
                    self.hit(None, "commit", sha, eid, sha, _snippet(text, s, e, eid))
            elif len(self.candidates) < CANDIDATES_PER_SESSION * 4 and (_mixed(sha) or sha.isdigit()):
                self.candidates.append((sha, eid, _snippet(text, s, e, eid)))

    def _xref_repo(self, value: str) -> Repo | None:
        name = value.rsplit("/", 1)[-1].lower()
        if name.endswith(_FILE_SUFFIXES):
            return None
        repo = parse_repo(value, self.host)
        if repo is not None:
            self.other_repos.append(repo)
        return repo

    def _git_output(self, text: str, event: Event, subs: set[str], take, local) -> None:
        eid = event.id
        if subs & _LOG_LIKE:
            for m in _LINE_SHA.finditer(text):
                s, e = m.start("sha"), m.end("sha")
                if (s, e) in local or not take(s, e):
                    continue
                sha = m.group("sha")
                self.hit(None, "commit", sha, eid, sha, _snippet(text, s, e, eid))
                head = _DECORATE_HEAD.match(m.group("rest"))
                if head and valid_branch(head.group("branch")):
                    self.hit(None, "branch", head.group("branch"), eid, worked=True)
                    self.relate((None, "commit", sha), (None, "branch", head.group("branch")))
        pushing = "push" in subs
        if "->" in text:
            for m in _REF_LINE.finditer(text):
                src = _clean_branch(m.group("src"))
                if m.group("new"):
                    if pushing and valid_branch(src):
                        self.hit(None, m.group("new"), src, eid, worked=True)
                    continue
                b = m.group("b")
                if pushing or subs & {"fetch", "pull"}:
                    if valid_branch(src) and pushing:
                        self.hit(None, "branch", src, eid, worked=True)
                    if valid_branch(src) and (pushing or not src.startswith("refs/")):
                        self.relate((None, "commit", b), (None, "branch", src))
        if ".." in text:
            for m in _RANGE.finditer(text):
                line_start = text.rfind("\n", 0, m.start()) + 1
                if text.startswith(("index ", "diff "), line_start) or text.startswith("@@", line_start):
                    continue
                for g in ("a", "b"):
                    s, e = m.start(g), m.end(g)
                    if (s, e) not in local and take(s, e):
                        self.hit(None, "commit", m.group(g), eid, m.group(g), _snippet(text, s, e, eid))
        if "\t" in text and "remote" in subs:
            for m in _REMOTE_V.finditer(text):
                self.vote(1 if m.group("name") == "origin" else 4, parse_repo(m.group("url"), self.host))
        if subs & {"push", "fetch", "pull"}:
            for m in _TO_FROM.finditer(text):
                self.vote(2 if m.group("dir") == "To" else 3, parse_repo(m.group("url"), self.host))
        if "Switched to" in text:
            for m in _SWITCHED.finditer(text):
                if valid_branch(m.group("branch")):
                    self.hit(None, "branch", m.group("branch"), eid, worked=True)
                    self.branch = m.group("branch")
        if "pr create" in subs and self._pr_create is not None:
            m = _PR_OUTPUT.search(text)
            if m:
                um = _URL.match(m.group(0))
                if um:
                    repo = parse_repo(f"{um.group('host')}/{um.group('path')}", self.host)
                    self.vote(3, repo)
                    head = self._pr_create[1] or self.branch
                    number = re.match(r"\d+", um.group("id"))
                    if head and number and repo:
                        kind = "mr" if um.group("kind") in ("merge_requests", "pull-requests") else "issue"
                        self.relate((repo, kind, number.group(0)), (None, "branch", head))

    def _url(self, m: re.Match, text: str, eid: str | None, worked: bool = False) -> bool:
        host = m.group("host").lower()
        if host.startswith("www."):
            host = host[4:]
        if not (host in KNOWN_HOSTS or _family(host) or host == self.host or "git" in host or "forge" in host):
            return False
        path = m.group("path")
        if len(path.split("/")) > 2 and not m.group("dash"):
            return False
        repo = parse_repo(f"{host}/{path}", self.host)
        if repo is None:
            return False
        kind, ident = m.group("kind"), m.group("id")
        mention = _snippet(text, m.start(), m.end(), eid) if eid is not None else None
        if kind in ("commit", "commits"):
            sm = re.match(r"[0-9a-fA-F]{7,40}(?![0-9a-zA-Z])", ident)
            if not sm:
                return False
            self.other_repos.append(repo)
            self.hit(repo, "commit", sm.group(0).lower(), eid, None, mention, worked=worked)
        elif kind in ("pull", "pulls", "merge_requests", "pull-requests", "issues"):
            if kind == "pull" and ident.startswith("new/"):
                branch = ident[4:].rstrip(".,;:)")
                if valid_branch(branch):
                    self.other_repos.append(repo)
                    self.hit(repo, "branch", branch, eid, None, mention, worked=worked)
                    return True
                return False
            nm = re.match(r"[1-9]\d{0,6}(?![\w])", ident)
            if not nm:
                return False
            self.other_repos.append(repo)
            ref_kind = "mr" if kind in ("merge_requests", "pull-requests") else "issue"
            self.hit(repo, ref_kind, nm.group(0), eid, None, mention, worked=worked, pr=kind != "issues")
        else:  # releases/tag
            tag = ident.rstrip(".,;:)")
            if not valid_branch(tag):
                return False
            self.other_repos.append(repo)
            self.hit(repo, "tag", tag, eid, None, mention, worked=worked)
        return True

    def relate(self, a: tuple[Repo | None, str, str], b: tuple[Repo | None, str, str]) -> None:
        self.relations.append((a, b))

    # -- the pass

    def run(self) -> SessionRefs:
        self._tokens: list[tuple[str, str, Repo | None, str, str]] = []
        self._pending_push: list[tuple[str, str]] = []
        self._pr_create: tuple[Repo | None, str | None] | None = None
        self._pr_head: tuple[Repo | None, str | None] | None = None
        self.structured()
        calls: dict[str, tuple[list[_Invocation], Any]] = {}
        for event in _walk(self.session.events):
            kind = event.kind
            if kind == Kind.TOOL_CALL:
                invocations: list[_Invocation] = []
                self._pr_head = None
                if event.command:
                    invocations = self.command(event, event.command)
                    self.scan(event.command, event, _GIT if invocations else _TOOL, {i.sub for i in invocations})
                if event.call_id:
                    calls[event.call_id] = (invocations, self._pr_head)
                if event.text:
                    self.scan(event.text, event, _TOOL)
                if event.tool_input is not None and not (
                    event.command and isinstance(event.tool_input, dict) and len(event.tool_input) <= 2
                ):
                    for text in _strings(event.tool_input):
                        if text != event.command:
                            self.scan(text, event, _TOOL)
                if not event.call_id:
                    self._flush_push(invocations, event, "")
            elif kind == Kind.TOOL_RESULT:
                invocations, pr_head = calls.get(event.call_id or "") or ([], None)
                subs = {i.sub for i in invocations}
                channel = _GIT if invocations else _TOOL
                self._pr_create = (pr_head or (None, None)) if "pr create" in subs else None
                for text in _event_texts(event):
                    self.scan(text, event, channel, subs)
                if invocations:
                    self._flush_push(invocations, event, event.text or "")
            elif kind == Kind.UNKNOWN:
                continue
            else:
                if event.text:
                    self.scan(event.text, event, _MSG)
                for block in event.blocks:
                    if block.text:
                        self.scan(block.text, event, _TOOL if block.type in ("code", "file", "json") else _MSG)
        self._flush_push([], None, "")
        return self._finish()

    def _flush_push(self, invocations: list[_Invocation], event: Event | None, output: str) -> None:
        """Branches named on a ``git push`` line, unless its output says they are tags."""
        if not self._pending_push:
            return
        for eid, name in self._pending_push:
            if "[new tag]" in output and re.search(rf"\[new tag\]\s+{re.escape(name)}\s", output):
                continue
            self.hit(None, "branch", name, eid, worked=True)
        self._pending_push = []

    def _finish(self) -> SessionRefs:
        scope = self._scope()
        resolve = lambda repo: repo if repo is not None else scope  # noqa: E731
        refs: dict[RefKey, SessionRef] = {}
        links: dict[str, dict[str, RefKey]] = {}

        # short SHAs that are prefixes of a longer one seen in this session join it
        shas = sorted(self.confirmed, key=len, reverse=True)

        def canonical(sha: str) -> str:
            for longer in shas:
                if len(longer) > len(sha) and longer.startswith(sha):
                    return longer
            return sha

        def key_of(repo: Repo | None, kind: str, name: str) -> RefKey:
            return RefKey(resolve(repo), kind, name[:7] if kind == "commit" else name)

        def add(repo: Repo | None, kind: str, name: str, mention: Mention | None, worked: bool, pr: bool) -> SessionRef:
            key = key_of(repo, kind, name)
            ref = refs.get(key)
            if ref is None:
                ref = refs[key] = SessionRef(key)
            ref.names.setdefault(canonical(name) if kind == "commit" else name)
            ref.worked |= worked
            ref.pr |= pr
            if mention is not None:
                if any(m.event_id == mention.event_id for m in ref.mentions):
                    pass  # one mention per event is enough to find it
                elif len(ref.mentions) < MENTIONS_PER_REF:
                    ref.mentions.append(mention)
                else:
                    ref.more += 1
            return ref

        for repo, kind, name, _eid, mention, worked, pr in self.hits:
            add(repo, kind, name, mention, worked, pr)
        for eid, token, repo, kind, name in self._tokens:
            links.setdefault(eid, {})[token] = key_of(repo, kind, name)

        # rule 4: bare hex equal to, or a prefix of, a SHA this session established
        leftover: list[tuple[str, Mention]] = []
        seen_tokens: set[str] = set()
        for sha, eid, mention in self.candidates:
            match = next((s for s in shas if s.startswith(sha) or (sha.startswith(s) and _mixed(sha))), None)
            if match is not None:
                add(None, "commit", sha, mention, False, False)
                links.setdefault(eid, {})[sha] = key_of(None, "commit", sha)
            elif sha not in seen_tokens and len(leftover) < CANDIDATES_PER_SESSION and _mixed(sha):
                seen_tokens.add(sha)
                leftover.append((sha, mention))

        relations: set[tuple[RefKey, RefKey]] = set()
        for a, b in self.relations:
            ka, kb = key_of(*a), key_of(*b)
            if ka != kb and ka in refs and kb in refs:
                relations.add((ka, kb) if (ka.kind, ka.name) <= (kb.kind, kb.name) else (kb, ka))

        repos: list[Repo] = []
        for repo in (
            ([scope] if scope.known else [])
            + self.structured_repos
            + [r for _, _, r in sorted(self.repo_votes)]
            + [k.repo for k in refs]
            + self.other_repos
        ):
            if repo.known and repo not in repos:
                repos.append(repo)
        return SessionRefs(scope, repos, refs, relations, links, leftover, self.invalid)

    def _scope(self) -> Repo:
        if self.repo_votes:
            return min(self.repo_votes)[2]
        return Repo(None, (self.session.cwd or "").rstrip("/\\") or "")


_SHA_KW_HINTS = ("ommit", "evision", "evert", "herry", "HEAD is", "git", "SHA")


def _has_sha_keyword(text: str, start: int, end: int) -> bool:
    window = text[start:end]
    return any(hint in window for hint in _SHA_KW_HINTS)


def _fence_spans(text: str) -> list[int]:
    marks = [m.start() for m in _FENCE.finditer(text)]
    if len(marks) % 2:
        marks.append(len(text))
    return marks


def _inside(spans: list[int] | None, pos: int) -> bool:
    if not spans:
        return False
    return bisect.bisect_right(spans, pos) % 2 == 1


def _plausible_issue(text: str, start: int, number: str) -> bool:
    """``#123`` is an issue unless its context makes it an ordinal or a colour."""
    before = text[max(0, start - 24) : start]
    words = re.findall(r"[A-Za-z]+", before)
    if words and words[-1].lower() in _ORDINAL_WORDS and before.rstrip().endswith(words[-1]):
        return False
    after = _WORD_AFTER.match(text, start + 1 + len(number))
    if after and after.group(1).lower() in _ORDINAL_AFTER:
        return False
    if len(number) in (3, 6):
        after = text[start + 1 + len(number) : start + 2 + len(number)]
        if after == ";" or before.rstrip().endswith(":") or _COLOUR_WORDS.search(before):
            return False
    return True


def _walk(events: tuple[Event, ...]) -> Iterator[Event]:
    for event in events:
        yield event
        if event.children:
            yield from _walk(event.children)


def _event_texts(event: Event) -> Iterator[str]:
    if event.text:
        yield event.text
    for block in event.blocks:
        if block.text:
            yield block.text


def _strings(value: Any, budget: int = 64) -> Iterator[str]:
    """String leaves of a JSON-like value (bounded)."""
    stack = [value]
    while stack and budget > 0:
        item = stack.pop()
        if isinstance(item, str):
            budget -= 1
            yield item
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed(item))


def extract_refs(session: Session, forge: Forge = DEFAULT_FORGE) -> SessionRefs:
    """Every git ref a session worked on or mentions, scoped by repository."""
    return _Extractor(session, forge).run()


_CACHE: list[Any] = [None, None, None]


def clear_cache() -> None:
    _CACHE[:] = [None, None, None]


def session_refs(session: Session, forge: Forge = DEFAULT_FORGE) -> SessionRefs:
    """extract_refs, remembered for the last session (its page and the refs
    aggregate both ask for it, one right after the other)."""
    cached_session, cached_forge, cached = _CACHE
    if cached_session is session and cached_forge == forge:
        return cached
    result = extract_refs(session, forge)
    _CACHE[:] = [session, forge, result]
    return result
