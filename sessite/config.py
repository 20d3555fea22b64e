"""Site settings: everything a build needs to know besides the archive itself, and
``sessite.toml``, where a user keeps them beside the archive.

``sessite.toml`` is read from the archive's root (or ``--config FILE``); options given on the
command line win over the file. Every key is checked: an unknown key, a value
of the wrong type or a regex that does not compile is an error that names it,
so a typo never silently turns redaction off.

    title = "Team sessions"
    base_url = "https://example.github.io/sessions/"
    redact = true                      # false publishes secrets as they are
    redact_allow = ["AKIAIOSFODNN7EXAMPLE"]
    redact_pii = true                  # personal data too (--redact-pii)
    pii_allow = ["*@mycompany.com", "build.example.org"]
    include = ["claude-code/**", "*.hail.jsonl"]
    exclude = ["scratch", "**/old-*"]
    forge_url = "github"               # or a list of URL patterns
    exports = ["aics", "hail", "markdown"]   # or "none"; "html" adds each session as one file
    templates = "theme/templates"      # folders searched before the built-in templates (--templates)
    static = "theme/static"            # folders copied over the built-in static files (--static)
    encrypt = true                     # every page encrypted under a password (--encrypt; docs/encryption.md)
    repos = [".."]                     # git repositories whose commits link to sessions (--repo)
    blame = ["src/**.py"]              # files of those repositories published line by line at HEAD (--blame)

    [[redact_patterns]]
    kind = "internal-token"
    pattern = "itk_[A-Za-z0-9]{32}"
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sessite.analyze.leave_out import HIDE_EVENTS_HELP, HideRule, parse_hide_rules
from sessite.analyze.redact import RedactionConfigError, compile_extra
from sessite.analyze.refs import Forge


@dataclass(frozen=True)
class SiteConfig:
    archive: Path
    output: Path | None  # None: serve picks a temporary folder
    title: str = "Session archive"
    base_url: str = ""  # absolute URL of the published site, for the few places that need one
    redact: bool = True
    redact_patterns: tuple[
        tuple[str, str], ...
    ] = ()  # more (kind, regex) secret patterns (sessite.toml redact_patterns)
    redact_allow: tuple[str, ...] = ()  # exact values never redacted (sessite.toml redact_allow)
    redact_pii: bool = False  # personal data too: home folders, user names, e-mails, hosts, IPs (--redact-pii)
    pii_allow: tuple[str, ...] = ()  # personal data kept: globs (*@mycompany.com) or bare domains
    # (value, kind) pairs a rule replaced in one source and the output scan found bare in another: set by
    # the build (pipeline/learned_elsewhere.py), kept in its private cache, never read from sessite.toml.
    redact_known: tuple[tuple[str, str], ...] = ()
    include: tuple[str, ...] = ()  # globs (relative to the archive) a source must match to be read; () = all
    exclude: tuple[str, ...] = ()  # globs of sources (files or folders) never read
    exclude_sessions: tuple[str, ...] = ()  # session ids or globs over ids never built
    hide_events: tuple[HideRule, ...] = ()  # events left out of every page (by kind, tool or pattern)
    exports: tuple[str, ...] = ()  # per-session downloads beside each page (opt-in: --exports); () = none
    search_engines: bool = (
        False  # let search engines index the site (robots.txt, no noindex); off: an archive shared, not listed
    )
    strict: bool = False  # exit non-zero when any problem was found
    template_dirs: tuple[Path, ...] = ()  # user templates, searched before the package's
    static_dirs: tuple[Path, ...] = ()  # user static files, copied over the package's
    progress: bool = True
    archives: tuple[Path, ...] = ()  # more roots built into the same site (sessite build --discover)
    forge_url: tuple[
        str, ...
    ] = ()  # forge for git-ref links: a preset (github, gitlab, gitea, bitbucket, none) or URL patterns; see refs.Forge
    cache_dir: Path | None = None  # incremental-build state (default: the user's cache folder)
    clean: bool = False  # ignore the cache: a full build
    jobs: int = 0  # worker processes (0: one per core)
    part_bytes: int = (
        0  # a session whose page would pass about this much HTML is split into parts (0: sessite.parts.PART_BYTES)
    )
    prices: dict | None = (
        None  # model-name prefix -> {input, output, cache_read, cache_write} in USD per million tokens, for
        # estimated costs; None: the built-in estimate (insights.DEFAULT_PRICES); {}: no costs
    )
    encrypt: bool = False  # every page sealed under a password (--encrypt; pipeline/encrypt.py)
    repos: tuple[Path, ...] = ()  # git repositories (work trees or bare) whose commits are linked to sessions (--repo)
    blame: tuple[str, ...] = ()  # globs of files published with blame at HEAD (--blame; opt-in: it publishes code)
    extra: dict = field(default_factory=dict)


CONFIG_NAME = "sessite.toml"
EXPORT_FORMATS = ("aics", "hail", "markdown", "html")  # html: the session as one self-contained file
# key -> what it must be (for the error message)
KEYS = {
    "title": "a string",
    "base_url": "an absolute http(s) URL",
    "redact": "true or false",
    "redact_patterns": "a list of tables with 'kind' and 'pattern'",
    "redact_allow": "a list of strings",
    "redact_pii": "true or false",
    "pii_allow": "a list of strings (globs such as '*@mycompany.com', or domains)",
    "include": "a list of glob strings",
    "exclude": "a list of glob strings",
    "exclude_sessions": "a list of session ids or globs",
    "hide_events": HIDE_EVENTS_HELP,
    "forge_url": "a preset name or a list of URL patterns",
    "exports": 'a list of formats (aics, hail, markdown, html) or "none"',
    "search_engines": "true or false",
    "templates": "a folder or a list of folders (relative to the settings file)",
    "static": "a folder or a list of folders (relative to the settings file)",
    "encrypt": "true or false",
    "repos": "a git repository or a list of them (relative to the settings file)",
    "blame": "a glob or a list of globs of repository files",
}


class ConfigFileError(ValueError):
    """The config file cannot be used; the message names the file and the key."""


def find_config_file(archive: Path | None) -> Path | None:
    """``sessite.toml`` at the archive's root, if there is one."""
    if archive is None:
        return None
    folder = archive if archive.is_dir() else archive.parent
    path = folder / CONFIG_NAME
    return path if path.is_file() else None


def parse_exports(value: Any, where: str = "--exports") -> tuple[str, ...]:
    """``aics,hail,markdown`` / ``all`` / ``none`` / a list, checked, in canonical order."""
    if isinstance(value, str):
        items = [v.strip().lower() for v in value.split(",") if v.strip()]
    elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        items = [v.strip().lower() for v in value if v.strip()]
    else:
        raise ConfigFileError(f"{where}: expected {KEYS['exports']}")
    if items in (["none"], []):
        return ()
    if items == ["all"]:  # the interchange formats; the single HTML file (a second rendering) is asked for by name
        return tuple(f for f in EXPORT_FORMATS if f != "html")
    unknown = [v for v in items if v not in EXPORT_FORMATS]
    if unknown or "none" in items:
        raise ConfigFileError(
            f"{where}: unknown export format {', '.join(unknown or ['none'])!s} "
            f"(choose from {', '.join(EXPORT_FORMATS)}, or none)"
        )
    return tuple(f for f in EXPORT_FORMATS if f in items)


def check_base_url(value: str, where: str = "--base-url") -> str:
    """An absolute http(s) URL, normalized to end with one slash (or "" for none)."""

    value = value.strip()
    if not value:
        return ""
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise ConfigFileError(f"{where}: {value!r} is not an absolute http(s) URL such as https://you.github.io/repo/")
    return value.rstrip("/") + "/"


def load_config_file(path: Path) -> dict[str, Any]:
    """The file's settings as SiteConfig keyword arguments; raises ConfigFileError."""
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except OSError as exc:
        raise ConfigFileError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise ConfigFileError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigFileError(f"{path}: not valid TOML ({exc})") from None
    return settings_from_dict(data, str(path), path.parent)


def _redact_patterns(entries: Any, source: str) -> tuple[tuple[str, str], ...]:
    """``redact_patterns``: a list of ``{kind, pattern}`` tables whose regex compiles."""
    if not isinstance(entries, list):
        raise ConfigFileError(f"{source}: 'redact_patterns' must be {KEYS['redact_patterns']}")
    patterns = []
    for i, entry in enumerate(entries):
        where = f"redact_patterns[{i}]"
        if not isinstance(entry, dict):
            raise ConfigFileError(f"{source}: '{where}' must be a table with 'kind' and 'pattern'")
        extra = [k for k in entry if k not in ("kind", "pattern")]
        if extra:
            raise ConfigFileError(f"{source}: unknown key '{where}.{extra[0]}' (a pattern has 'kind' and 'pattern')")
        if not isinstance(entry.get("kind"), str) or not isinstance(entry.get("pattern"), str):
            raise ConfigFileError(f"{source}: '{where}' needs a string 'kind' and a string 'pattern'")
        try:
            compile_extra(entry["kind"], entry["pattern"])
        except RedactionConfigError as exc:
            raise ConfigFileError(f"{source}: '{where}': {exc}") from None
        patterns.append((entry["kind"], entry["pattern"]))
    return tuple(patterns)


def _folders(data: dict[str, Any], source: str, base: Path | None) -> dict[str, Any]:
    """``templates`` and ``static``: folders, relative to the settings file, that exist."""
    out: dict[str, Any] = {}
    for key, field_name in (("templates", "template_dirs"), ("static", "static_dirs"), ("repos", "repos")):
        if key not in data:
            continue
        value = [data[key]] if isinstance(data[key], str) else data[key]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigFileError(f"{source}: '{key}' must be {KEYS[key]}")
        folders = tuple((base or Path()) / folder for folder in value)
        missing = [str(f) for f in folders if not f.is_dir()]
        if missing:
            raise ConfigFileError(f"{source}: '{key}': {missing[0]} is not a folder")
        out[field_name] = folders
    return out


def settings_from_dict(data: dict[str, Any], source: str = CONFIG_NAME, base: Path | None = None) -> dict[str, Any]:
    """``data`` checked key by key; ``base``: the folder relative ``templates``/``static`` paths start from."""
    unknown = [k for k in data if k not in KEYS]
    if unknown:
        raise ConfigFileError(f"{source}: unknown key {unknown[0]!r} (known keys: {', '.join(KEYS)})")
    out: dict[str, Any] = {}

    def fail(key: str) -> ConfigFileError:
        return ConfigFileError(f"{source}: '{key}' must be {KEYS[key]}")

    def strings(key: str) -> tuple[str, ...]:
        value = data[key]
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise fail(key)
        return tuple(value)

    if "title" in data:
        if not isinstance(data["title"], str) or not data["title"].strip():
            raise fail("title")
        out["title"] = data["title"]
    if "base_url" in data:
        if not isinstance(data["base_url"], str):
            raise fail("base_url")
        out["base_url"] = check_base_url(data["base_url"], f"{source}: 'base_url'")
    if "redact" in data:
        if not isinstance(data["redact"], bool):
            raise fail("redact")
        out["redact"] = data["redact"]
    if "encrypt" in data:
        if not isinstance(data["encrypt"], bool):
            raise fail("encrypt")
        out["encrypt"] = data["encrypt"]
    if "redact_patterns" in data:
        out["redact_patterns"] = _redact_patterns(data["redact_patterns"], source)
    if "redact_allow" in data:
        out["redact_allow"] = strings("redact_allow")
    if "redact_pii" in data:
        if not isinstance(data["redact_pii"], bool):
            raise fail("redact_pii")
        out["redact_pii"] = data["redact_pii"]
    if "pii_allow" in data:
        out["pii_allow"] = strings("pii_allow")
    for key in ("include", "exclude", "exclude_sessions", "blame"):
        if key in data:
            out[key] = strings(key)
    if "hide_events" in data:
        try:
            out["hide_events"] = parse_hide_rules(data["hide_events"])
        except ValueError as exc:
            raise ConfigFileError(f"{source}: {exc}") from None
    if "forge_url" in data:
        forge = strings("forge_url")

        errors = Forge.from_config(forge).errors
        if errors:
            raise ConfigFileError(f"{source}: 'forge_url': {'; '.join(errors)}")
        out["forge_url"] = forge
    if "search_engines" in data:
        if not isinstance(data["search_engines"], bool):
            raise fail("search_engines")
        out["search_engines"] = data["search_engines"]
    if "exports" in data:
        out["exports"] = parse_exports(data["exports"], f"{source}: 'exports'")
    out.update(_folders(data, source, base))
    return out
