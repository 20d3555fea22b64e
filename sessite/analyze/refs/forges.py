"""Repositories and their forges: parse a remote or forge URL into a ``Repo``, and link a ref out to its forge.

GitHub unless configured otherwise (``forge_url`` in sessite.toml); well-known hosts always use their own forge's URLs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

from sessite.analyze.refs.keys import Repo

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


def forge_family(host: str) -> str | None:
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
                    f"forge_url {value!r} is neither a preset ({', '.join(sorted(PRESETS))}, none)"
                    " nor an http(s) URL pattern with {repo}"
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
        family = forge_family(host)
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


class _Fill(dict[str, str]):
    """Leaves a placeholder the pattern's kind does not fill as it was written."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


DEFAULT_FORGE = Forge()
