"""``blame/<path>.html`` (opt-in: ``--blame GLOB``): each line of a file at HEAD, highlighted, with
an ``L<n>`` anchor, the commit that last changed it and, when a session wrote it, the turn.

A line's session is found from its commit's links: the edit of a linked session that wrote this
exact line into this file (else the link's own turn). Lines of commits without a link are marked
human (or bot). The code is redacted like every other text of the site.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from types import SimpleNamespace

from markupsafe import Markup, escape

from sessite.analyze.redact import Redactor
from sessite.gitlinks.blame import BLAME_MAX_FILES, BlamedFile, blame_file, matching_files
from sessite.gitlinks.evidence import SessionEvidence, line_key
from sessite.gitlinks.history import GitError
from sessite.gitlinks.match import CommitFacts
from sessite.render.code_lines import highlight_lines
from sessite.render.pages import Page
from sessite.site.urls import blame_url, commit_url, relative_root


def _redacted_text(lines: list[str], redactor: Redactor | None) -> list[str]:
    if redactor is None:
        return lines
    whole = redactor.text("\n".join(lines)).split("\n")
    return whole if len(whole) == len(lines) else [redactor.text(line) for line in lines]


def _turn(
    f: CommitFacts, path: str, text: str, sessions: dict[str, SessionEvidence], original: int = 0
) -> tuple[str, str, bool] | None:
    """(session title, turn URL, wrote it) of the linked session that wrote ``text`` into ``path``;
    else of a session that made the commit itself (its own output or a checkpoint: ``False``, the
    line is in its commit but not among its edits); None for a line no linked session wrote. A
    git-ai note's ranges come first: they attribute each line of the commit."""
    if f.note is not None and original:
        named = f.note.session_at(path, original)  # git-ai's own attribution of this line
        for named_ev in sessions.values() if named else ():
            if named in named_ev.raw_ids:
                return named_ev.title, named_ev.url, True
    key = line_key(text)
    for link in f.links:
        ev = sessions.get(link.session)
        if ev is None:
            continue
        if key is not None:
            for edit in reversed(ev.edits):
                edit_path = edit.path.replace("\\", "/")
                if (edit_path == path or edit_path.endswith("/" + path)) and key in edit.lines:
                    return ev.title, edit.url, True
    for link in f.links:
        ev = sessions.get(link.session)
        if ev is not None and any(k.startswith(("git-commit-output", "entire")) for k in link.kinds):
            return ev.title, link.url or ev.url, False
    return None


def blame_page(
    blamed: BlamedFile,
    url: str,
    facts: dict[str, CommitFacts],
    sessions: dict[str, SessionEvidence],
    shown: set[str],
    redactor: Redactor | None,
) -> Page:
    root = relative_root(url)
    texts = [line.text for line in blamed.lines]
    code = highlight_lines("\n".join(_redacted_text(texts, redactor)) + "\n", posixpath.basename(blamed.path))
    rows: list[Markup] = []
    who: Counter[str] = Counter()
    for n, (line, html) in enumerate(zip(blamed.lines, code), 1):
        f = facts.get(line.sha)
        sha = f"<code>{line.sha[:8]}</code>"
        cell = f'<a href="{root}{commit_url(line.sha)}">{sha}</a>' if line.sha in shown else sha
        turn = _turn(f, blamed.path, line.text, sessions, line.original) if f is not None else None
        if turn is not None:
            title, turn_url, wrote = turn
            by = f'<a class="blame-turn" href="{root}{turn_url}" title="{escape(title)}">{escape(title[:40])}</a>'
            kind = "agent" if wrote else "agent-commit"
            if not wrote:
                by = f'<span class="muted">committed by</span> {by}'

        elif f is not None and f.bot:
            by, kind = '<span class="muted">bot</span>', "bot"
        else:
            by, kind = '<span class="muted">human</span>', "human"
        who[kind] += 1
        rows.append(
            Markup(
                f'<tr id="L{n}" class="blame-{kind}"><td class="blame-n"><a href="#L{n}">{n}</a></td>'
                f'<td class="blame-commit">{cell}</td><td class="blame-by">{by}</td>'
                f'<td class="blame-code hl"><pre>{html}</pre></td></tr>\n'
            )
        )
    path = redactor.text(blamed.path) if redactor is not None else blamed.path
    context = {"file": SimpleNamespace(path=path, lines=len(rows), who=dict(who)), "rows": rows}
    deps = tuple(sorted({link.session for line in blamed.lines if line.sha in facts for link in facts[line.sha].links}))
    return Page(url, "blame.html", context, deps)


def blame_pages(
    repo_path: str,
    prefix: str,
    globs: tuple[str, ...],
    facts: dict[str, CommitFacts],
    sessions: dict[str, SessionEvidence],
    shown: set[str],
    redactor: Redactor | None,
) -> tuple[list[Page], list[str]]:
    """The blame pages of a repository's matching files, and the problem lines of those not blamed."""
    try:
        paths = matching_files(repo_path, globs)
    except GitError as exc:
        return [], [f"could not list the files to blame ({exc})"]
    problems = []
    if len(paths) > BLAME_MAX_FILES:
        problems.append(f"{len(paths)} files match the blame globs; the first {BLAME_MAX_FILES} are blamed")
    pages = []
    for path in paths[:BLAME_MAX_FILES]:
        blamed = blame_file(repo_path, path)
        if isinstance(blamed, str):
            problems.append(blamed)
            continue
        pages.append(blame_page(blamed, blame_url(path, prefix), facts, sessions, shown, redactor))
    return pages, problems
