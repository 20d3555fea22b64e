"""The git and gh commands a session ran, and the refs they say it worked on.

``git checkout -b``/``switch -c`` make a branch, ``git push`` pushes branches (unless
its output says they were tags), ``git tag`` makes a tag, ``git clone``/``remote add``
and ``gh --repo`` name the repository, ``gh pr create --head`` opens a pull request
from a branch, ``gh pr|issue view|merge|… N`` works on an issue or pull request.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Set
from dataclasses import dataclass

from sessite.analyze.refs.findings import Findings
from sessite.analyze.refs.forges import parse_repo
from sessite.analyze.refs.patterns import FORGE_URL, clean_branch, valid_branch


@dataclass(slots=True)
class Invocation:
    tool: str  # git or gh
    sub: str  # subcommand ("pr create" for gh)
    args: list[str]


_SHELL_TOKEN = re.compile(r"""(&&|\|\||[;|&()])|((?:[^\s;|&()'"\\]+|\\.|'[^']*'|"(?:\\.|[^"\\])*")+)""")
_UNQUOTE = re.compile(r"""'([^']*)'|"((?:\\.|[^"\\])*)"|\\(.)""")
_GIT_OPTS_WITH_ARG = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"}
_SEPARATORS = {"&&", "||", ";", "|", "&", "(", ")", ";;", "|&", "\n"}
_BEFORE_A_COMMAND = ("sudo", "then", "do", "else", "time", "exec", "!", "{", "xargs")

# options that take a value, per subcommand (so the value is not read as a positional argument)
_PUSH_VALUES = frozenset({"-o", "--push-option", "--receive-pack", "--exec", "--repo"})
_TAG_VALUES = frozenset({"-m", "--message", "-F", "--file", "-u", "--local-user", "--cleanup", "--sort", "--format"})
_TAG_NOT_CREATING = frozenset(
    {"-d", "--delete", "-l", "--list", "-n", "-v", "--verify", "--contains", "--points-at", "--merged", "--no-merged"}
)
_CLONE_VALUES = frozenset(
    {"-b", "--branch", "-o", "--origin", "--depth", "-c", "--config", "--reference", "-j", "--jobs", "--filter"}
)
_GH_VALUES = frozenset(
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
    }
)
_GH_ON_A_NUMBER = frozenset(
    {"view", "checkout", "merge", "close", "reopen", "edit", "comment", "review", "diff", "ready", "checks"}
)


def _unquote(q: re.Match[str]) -> str:
    return q.group(1) if q.group(1) is not None else (q.group(2) if q.group(2) is not None else q.group(3))


def _tokens(command: str) -> list[str]:
    """Shell words and operators, quotes removed (a cheap tokenizer, not a shell)."""
    out = []
    for m in _SHELL_TOKEN.finditer(command):
        op, word = m.groups()
        if op:
            out.append(op)
        elif "'" in word or '"' in word or "\\" in word:
            out.append(_UNQUOTE.sub(_unquote, word))
        else:
            out.append(word)
    return out


def parse_invocations(command: str) -> list[Invocation]:
    """The git and gh invocations in a shell command line (cheap, best effort)."""
    if "git" not in command and "gh " not in command:
        return []
    out: list[Invocation] = []
    tokens = _tokens(command[:20000].replace("\n", " ; "))
    i = 0
    n = len(tokens)
    while i < n:
        base = tokens[i].rsplit("/", 1)[-1]
        if base in ("git", "gh") and (
            i == 0 or tokens[i - 1] in _SEPARATORS or tokens[i - 1] in _BEFORE_A_COMMAND or "=" in tokens[i - 1]
        ):
            j = i + 1
            args: list[str] = []
            while j < n and tokens[j] not in _SEPARATORS:
                args.append(tokens[j])
                j += 1
            invocation = _git_invocation(args) if base == "git" else _gh_invocation(args)
            if invocation is not None:
                out.append(invocation)
            i = j
        else:
            i += 1
    return out


def runs_elsewhere(command: str, cwd: str | None) -> bool:
    """True when a git command of this line runs in a folder outside the session's own
    (``cd /other/repo && git log``, ``git -C /other/repo log``, ``--git-dir``): what it prints
    is another repository's, so its SHAs are not the session's commits. A folder that cannot be
    placed (no cwd, ``~``, a variable) is taken as the session's own."""
    if not cwd or ("cd " not in command and "-C" not in command and "--git-dir" not in command):
        return False
    tokens = _tokens(command[:20000].replace("\n", " ; "))
    away = False  # after a ``cd`` out of the session's folder
    for i, token in enumerate(tokens):
        first = i == 0 or tokens[i - 1] in _SEPARATORS or tokens[i - 1] in _BEFORE_A_COMMAND
        if token == "cd" and first and i + 1 < len(tokens):
            away = _outside(tokens[i + 1], cwd)
        elif token.rsplit("/", 1)[-1] == "git" and first:
            if away:
                return True
            j = i + 1
            while j < len(tokens) and tokens[j].startswith("-"):
                option, _, value = tokens[j].partition("=")
                if option in ("-C", "--git-dir", "--work-tree"):
                    folder = value or (tokens[j + 1] if j + 1 < len(tokens) else "")
                    if _outside(folder, cwd):
                        return True
                j += 1 if value or option not in _GIT_OPTS_WITH_ARG else 2
    return False


def _outside(folder: str, cwd: str) -> bool:
    """True when ``folder`` (absolute, or relative to ``cwd``) lies outside ``cwd``."""
    if not folder or folder.startswith(("~", "$", "-")):
        return False
    base = cwd.rstrip("/") or "/"
    where = posixpath.normpath(folder if folder.startswith("/") else posixpath.join(base, folder))
    if where.endswith("/.git"):
        where = where[: -len("/.git")]
    return where != base and not where.startswith(base + "/")


def _git_invocation(args: list[str]) -> Invocation | None:
    k = 0
    while k < len(args) and args[k].startswith("-"):
        k += 2 if args[k] in _GIT_OPTS_WITH_ARG else 1
    return Invocation("git", args[k], args[k + 1 :]) if k < len(args) else None


def _gh_invocation(args: list[str]) -> Invocation | None:
    if len(args) >= 2 and not args[0].startswith("-"):
        return Invocation("gh", f"{args[0]} {args[1]}", args[2:])
    return None


def positional(args: list[str], with_value: Set[str] = frozenset()) -> list[str]:
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


def flag_value(args: list[str], *names: str) -> str | None:
    for i, arg in enumerate(args):
        for name in names:
            if arg == name and i + 1 < len(args):
                return args[i + 1]
            if name.startswith("--") and arg.startswith(name + "="):
                return arg[len(name) + 1 :]
    return None


def record_commands(f: Findings, event_id: str, command: str) -> list[Invocation]:
    """Record what the git and gh commands of one command line say; returns them (their output is read later)."""
    invocations = parse_invocations(command)
    for inv in invocations:
        if inv.tool == "gh":
            _gh(f, event_id, inv)
        elif inv.sub in ("checkout", "switch"):
            _git_switch(f, event_id, inv)
        elif inv.sub == "push":
            _git_push(f, event_id, inv.args)
        elif inv.sub == "tag":
            _git_tag(f, event_id, inv.args)
        elif inv.sub == "clone":
            pos = positional(inv.args, _CLONE_VALUES)
            if pos:
                f.vote(4, parse_repo(pos[0], f.host))
        elif inv.sub == "remote" and len(inv.args) >= 3 and inv.args[0] in ("add", "set-url"):
            pos = positional(inv.args[1:], {"-t", "-m"})
            if len(pos) >= 2:
                f.vote(1 if pos[0] == "origin" else 4, parse_repo(pos[1], f.host))
    return invocations


def _git_switch(f: Findings, event_id: str, inv: Invocation) -> None:
    args = inv.args
    name = flag_value(args, "-b", "-B", "-c", "-C", "--create", "--force-create", "--orphan")
    if name is None and inv.sub == "switch":
        pos = positional(args, {"-t", "--track"})
        name = pos[0] if len(pos) == 1 and args[:1] != ["--detach"] and pos[0] != "-" else None
    if name and valid_branch(name):
        f.hit(None, "branch", name, event_id, worked=True)
        f.branch = name


def _git_push(f: Findings, event_id: str, args: list[str]) -> None:
    """The remote votes for the repository; the branches wait for the output (``[new tag]`` says they were tags)."""
    pos = positional(args, _PUSH_VALUES)
    if not pos:
        return
    remote = parse_repo(pos[0], f.host) if ("/" in pos[0] or ":" in pos[0]) else None
    f.vote(2, remote)
    for spec in pos[1:]:
        dst = clean_branch(spec.lstrip("+").rsplit(":", 1)[-1])
        if dst and dst != "HEAD" and valid_branch(dst) and not spec.startswith("refs/tags/") and "--tags" not in args:
            f.pending_push.append((event_id, dst))


def _git_tag(f: Findings, event_id: str, args: list[str]) -> None:
    if any(a in _TAG_NOT_CREATING for a in args):
        return
    pos = positional(args, _TAG_VALUES)
    if pos and valid_branch(pos[0]):
        f.hit(None, "tag", pos[0], event_id, worked=True)


def _gh(f: Findings, event_id: str, inv: Invocation) -> None:
    args = inv.args
    repo_flag = flag_value(args, "-R", "--repo")
    repo = parse_repo(repo_flag, f.host) if repo_flag else None
    if repo:
        f.vote(5, repo)
    if inv.sub == "pr create":
        head = flag_value(args, "-H", "--head")
        head = head.split(":")[-1] if head else None
        if head and valid_branch(head):
            f.hit(repo, "branch", head, event_id, worked=True)
        f.pr_head = (repo, head)
        return
    words = inv.sub.split()
    if len(words) < 2 or words[0] not in ("pr", "issue") or words[1] not in _GH_ON_A_NUMBER:
        return
    pos = positional(args, _GH_VALUES)
    number = re.fullmatch(r"#?([1-9]\d{0,6})", pos[0]) if pos else None
    url = FORGE_URL.fullmatch(pos[0]) if pos and not number else None
    if number:
        f.hit(repo, "issue", number.group(1), event_id, worked=True, pr=inv.sub.startswith("pr"))
    elif url:
        f.forge_url(url, pos[0], event_id, worked=True)
