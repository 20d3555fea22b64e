"""Refs from the format's own fields (``Session.git``): what the session worked on, said in so many words."""

from __future__ import annotations

import re

from sessite.analyze.refs.findings import Findings
from sessite.analyze.refs.forges import parse_repo
from sessite.analyze.refs.patterns import FORGE_URL, SHA, clean_branch, valid_branch


def record_structured(f: Findings) -> None:
    """Every repository, branch, tag, commit and issue in ``Session.git``; values that are none go to ``invalid``."""
    git = f.session.git
    for value in git.repos:
        repo = parse_repo(str(value), f.host)
        if repo:
            f.structured_repos.append(repo)
            f.vote(0, repo)
        else:
            f.invalid.append(("repository", str(value)))
    for value in git.branches:
        name = clean_branch(str(value))
        if valid_branch(name):
            f.hit(None, "branch", name, worked=True)
            f.branch = f.branch or name
        else:
            f.invalid.append(("branch", str(value)))
    for value in git.tags:
        name = clean_branch(str(value))
        if valid_branch(name):
            f.hit(None, "tag", name, worked=True)
        else:
            f.invalid.append(("tag", str(value)))
    for value in git.commits:
        sha = str(value).strip().lower()
        if SHA.match(sha):
            f.hit(None, "commit", sha, worked=True)
        else:
            f.invalid.append(("commit", str(value)))
    for value in git.issues:
        if not _structured_issue(f, str(value)):
            f.invalid.append(("issue", str(value)))
    _relate_commits_to_the_branch(f)


def _relate_commits_to_the_branch(f: Findings) -> None:
    """With exactly one structured branch, the structured commits are on it."""
    branches = [h for h in f.hits if h[1] == "branch"]
    commits = [h for h in f.hits if h[1] == "commit"]
    if len(branches) == 1:
        for c in commits:
            f.relate((None, "commit", c[2]), (None, "branch", branches[0][2]))


def _structured_issue(f: Findings, value: str) -> bool:
    text = value.strip()
    m = re.fullmatch(r"#?([1-9]\d{0,6})", text) or re.fullmatch(r"GH-([1-9]\d{0,6})", text)
    if m:
        f.hit(None, "issue", m.group(1), worked=True)
        return True
    m = re.fullmatch(r"([A-Za-z0-9][\w.-]*/[\w.-]+)#([1-9]\d{0,6})", text)
    if m:
        repo = parse_repo(m.group(1), f.host)
        if repo:
            f.other_repos.append(repo)
            f.hit(repo, "issue", m.group(2), worked=True)
            return True
    m = FORGE_URL.fullmatch(text)
    if m:
        return f.forge_url(m, text, None, worked=True)
    return False
