"""Git refs on a session page: the header list and links where refs appear in text.

Everything here is computed from the page's own session (plus the site-wide
forge setting), so a session page never depends on other sessions.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup, escape

from sessite.analyze.refs import KIND_SINGULAR, Forge, RefKey, Repo, SessionRefs, means_issue, session_refs
from sessite.model import Event
from sessite.render.markup import element_text
from sessite.site.urls import ref_url, relative_root, repo_refs_url
from sessite.site.view import SessionView

HEADER_LIMIT = 24  # refs shown in the header before the rest fold away

_SAFE_TOKEN = re.compile(r"^[A-Za-z0-9_./#@-]+$")
_TAG_SPLIT = re.compile(r"(<[^>]*>)")


@dataclass
class RefItem:
    kind: str
    label: str
    title: str
    url: str  # relative to the site root
    forge: str | None
    worked: bool


@dataclass
class HeaderRefs:
    scope_label: str
    scope_url: str | None  # the repository's page (also for an unknown one: its refs are listed there)
    scope_forge: str | None
    scope_known: bool
    items: list[RefItem] = field(default_factory=list)
    more: list[RefItem] = field(default_factory=list)
    invalid: list[tuple[str, str]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.items or self.invalid or self.scope_known)


def ref_label(key: RefKey, name: str, scope: Repo | None, default_host: str | None) -> str:
    """How a ref reads in a list: ``#42``, ``acme/api#120``, ``3f2a9c1``, ``feature/login``."""
    prefix = "" if scope is not None and key.repo == scope else (key.repo.label(default_host) if key.repo.known else "")
    if key.kind == "issue":
        return f"{prefix}#{key.name}"
    if key.kind == "mr":
        return f"{prefix}!{key.name}"
    if key.kind == "commit":
        return f"{prefix}@{name[:7]}" if prefix else name[:7]
    return f"{prefix}:{name}" if prefix else name


def ref_kind_label(key: RefKey, pr: bool = False) -> str:
    """What a ref is, in words: ``branch``, ``commit``, ``pull request`` (an issue number that is one)…"""
    return "pull request" if key.kind == "issue" and pr else KIND_SINGULAR[key.kind]


def ref_title(key: RefKey, name: str, default_host: str | None, pr: bool = False, title: str | None = None) -> str:
    """A ref's tooltip: ``pull request #57 in acme/webapp: Add login form`` (the title when gh named it)."""
    kind = ref_kind_label(key, pr)
    where = key.repo.label(default_host) if key.repo.known else "an unknown repository"
    shown = f"#{name}" if key.kind == "issue" else (f"!{name}" if key.kind == "mr" else name)
    return f"{kind} {shown} in {where}" + (f": {title}" if title else "")


class RefHelpers:
    """Jinja helpers: ``git_refs(view)`` for the header, ``reflinks``/``reflinks_text`` filters."""

    def __init__(self, site: dict[str, Any]) -> None:
        self.forge = Forge.from_config(site.get("forge_url") or ())

    def refs(self, view: SessionView) -> SessionRefs:
        return session_refs(view.session, self.forge)

    def header(self, view: SessionView) -> HeaderRefs:
        refs = self.refs(view)
        forge = self.forge
        host = forge.default_host
        scope = refs.scope
        label = scope.label(host) if scope.known else "unknown repository"
        listed = scope.known or any(key.repo == scope for key in refs.refs)  # the refs aggregate writes a page for it
        out = HeaderRefs(
            label, repo_refs_url(scope) if listed else None, forge.url(scope), scope.known, invalid=list(refs.invalid)
        )
        items = []
        for ref in refs.ordered():
            name = ref.full_name
            items.append(
                RefItem(
                    ref.key.kind,
                    ref_label(ref.key, name, scope, host),
                    ref_title(ref.key, name, host, ref.pr, ref.title) + ("" if ref.worked else " (mentioned)"),
                    ref_url(ref.key),
                    forge.url(ref.key.repo, ref.key.kind, name, ref.pr),
                    ref.worked,
                )
            )
        out.items, out.more = items[:HEADER_LIMIT], items[HEADER_LIMIT:]
        return out

    def _tokens(self, view: SessionView, event: Event) -> tuple[dict[str, RefKey], str, SessionRefs] | None:
        refs = self.refs(view)
        tokens = refs.links.get(event.id)
        if not tokens:
            return None
        root = relative_root(view.page_of(event.id))  # later parts sit a folder deeper than part 1
        return tokens, root, refs

    def link_html(self, html: Any, view: SessionView, event: Event) -> Any:
        """Rendered message HTML with each ref mention found in this event linked to its
        ref page. Only text nodes outside links are touched; the HTML stays as escaped as it was."""
        found = self._tokens(view, event)
        if not found or not html:
            return html
        tokens, root, refs = found
        html = str(html)
        if not _any_token(tokens, html):
            return Markup(html)
        replace = _replacer(tokens, root, self.forge, refs)
        parts = _TAG_SPLIT.split(html)
        in_link = 0
        for i, part in enumerate(parts):
            if i % 2:
                tag = part[:3].lower()
                if tag in ("<a ", "<a>"):
                    in_link += 1
                elif part[:4].lower() == "</a>":
                    in_link = max(0, in_link - 1)
                continue
            if part and not in_link and _any_token(tokens, part):
                parts[i] = _LINKABLE.sub(replace, part)
        return Markup("".join(parts))

    def link_text(self, text: Any, view: SessionView, event: Event) -> Any:
        """Plain tool output, escaped, with the ref mentions found in it linked."""
        found = self._tokens(view, event)
        if not found or not text:
            return text
        tokens, root, refs = found
        escaped = str(element_text(text))
        if not _any_token(tokens, escaped):
            return Markup(escaped)
        return Markup(_LINKABLE.sub(_replacer(tokens, root, self.forge, refs), escaped))


# Anything that could be a token extraction recorded; only recorded tokens become links.
_LINKABLE = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+[#@][0-9a-f]+|GH-\d+|#\d+|[0-9a-f]{7,40}")
_NOT_BEFORE = set("_#/@.&-")


def _any_token(tokens: dict[str, RefKey], text: str) -> bool:
    """Whether a recorded token occurs at all: only those become links, so without one
    the text stays as it is and the costly ``_LINKABLE`` pass is skipped."""
    return any(token in text for token in tokens)


def _replacer(tokens: dict[str, RefKey], root: str, forge: Forge, refs: SessionRefs) -> Callable[[re.Match[str]], str]:
    def replace(m: re.Match[str]) -> str:
        token = m.group(0)
        key = tokens.get(token)
        if key is None or not _SAFE_TOKEN.match(token):
            return token
        text, start, end = m.string, m.start(), m.end()
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if before.isalnum() or before in _NOT_BEFORE or after.isalnum() or after in "_-":
            return token
        if token[0] == "#" and not means_issue(text, start):  # "#1 and #2" of a list, not issues
            return token
        return _anchor(token, key, root, forge, refs)

    return replace


def _anchor(token: str, key: RefKey, root: str, forge: Forge, refs: SessionRefs) -> str:
    ref = refs.refs.get(key)
    said = ref.title if ref else None
    title = escape(ref_title(key, ref.full_name if ref else key.name, forge.default_host, bool(ref and ref.pr), said))
    return f'<a class="gitref gitref-{key.kind}" href="{root}{ref_url(key)}" title="{title}">{token}</a>'


__all__ = ["RefHelpers", "HeaderRefs", "RefItem", "ref_label", "ref_title"]
