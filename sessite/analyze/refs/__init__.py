"""Git references a session touches: extraction, repository scoping, forge links.

Pure functions from a Session to its refs; no I/O and no HTML.

Where refs come from
    *Structured* (the session worked on it): the format's own fields
    (``Session.git``: AICS gitRefs, HAIL ``context.attributes.git``, Claude Code
    ``gitBranch`` and pr-link records, Codex ``session_meta.git``), the git and
    gh commands the session ran (``git checkout -b``/``switch -c``, ``git push``,
    ``git tag``, ``gh pr create``…) and their output (``[branch sha] message``,
    push/fetch ref lines, ``Switched to branch``, remote URLs).
    A git command run outside the session's folder (``cd /other && git log``,
    ``git -C /other``) is another repository's: its line and output are read as
    tool I/O (``commands.runs_elsewhere``), as is a system note's text (example
    text, hook output), so neither names a commit of the session.
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
    pages say the repository is unknown instead of merging them with others --
    unless other sessions in that same directory named its remote: then, across
    the archive, the directory is that repository (``workdirs``).

Titles
    An issue's or pull request's title is taken only from what ``gh`` printed
    (``create --title``, ``view``, ``list``, JSON): prose is too often not one.

Modules, by job
    ``keys`` the ref model (Repo, RefKey, SessionRef, SessionRefs) and the pass's limits;
    ``forges`` repositories from URLs, and links out to forges; ``patterns`` what every step
    shares; ``findings`` what a pass has found so far; ``structured`` the format's own fields;
    ``commands`` git and gh command lines; ``git_output`` what they print; ``titles`` the issue
    titles gh printed; ``mentions`` refs in text; ``scoping`` the session's repository and the
    refs put together; ``extract`` the pass; ``workdirs`` working directories' repositories,
    learnt across sessions.
"""

from __future__ import annotations

from sessite.analyze.refs.commands import Invocation, parse_invocations
from sessite.analyze.refs.extract import clear_cache, extract_refs, session_refs
from sessite.analyze.refs.forges import DEFAULT_FORGE, KNOWN_HOSTS, PRESETS, Forge, parse_repo
from sessite.analyze.refs.keys import (
    KIND_LABELS,
    KIND_SINGULAR,
    KINDS,
    MENTIONS_PER_REF,
    Mention,
    RefKey,
    Repo,
    SessionRef,
    SessionRefs,
)
from sessite.analyze.refs.mentions import means_issue
from sessite.analyze.refs.patterns import valid_branch

__all__ = [
    "means_issue",
    "DEFAULT_FORGE",
    "KINDS",
    "KIND_LABELS",
    "KIND_SINGULAR",
    "KNOWN_HOSTS",
    "MENTIONS_PER_REF",
    "PRESETS",
    "Forge",
    "Invocation",
    "Mention",
    "RefKey",
    "Repo",
    "SessionRef",
    "SessionRefs",
    "clear_cache",
    "extract_refs",
    "parse_invocations",
    "parse_repo",
    "session_refs",
    "valid_branch",
]
