"""What the commands share: the site options of ``build`` and ``serve``, ``--config``, and the
helpers that turn option values and errors into settings and one-line messages."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import click
from click.core import ParameterSource

from sessite.analyze.insights import price_table
from sessite.analyze.refs import Forge
from sessite.config import (
    ConfigFileError,
    SiteConfig,
    check_base_url,
    find_config_file,
    load_config_file,
    parse_exports,
)
from sessite.publish.writer import PublishError
from sessite.readers.locations import find, parse_agent_dirs

FORGE_HELP = (
    "Where git refs link out: github (default), gitlab, gitea, bitbucket, none, or URL patterns such as "
    "'https://git.example.com/{repo}/-/commit/{sha}' ({issue}, {pr}, {branch}, {tag} likewise; repeatable)."
)
PII_HELP = (
    "Redact personal data too: home folders become ~; user names, e-mail addresses, private host names "
    "and IP addresses become [REDACTED:kind] (sessite.toml: redact_pii, pii_allow)."
)
PRICES_HELP = (
    "Price table for estimated costs (JSON or TOML: model-name prefix -> {input, output, cache_read, cache_write} "
    "in USD per million tokens); replaces the built-in estimate; an empty table shows tokens only."
)


Decorator = Callable[[Callable[..., None]], Callable[..., None]]


def config_option(help_text: str) -> Decorator:
    """``--config FILE`` (passed as ``config_file``), the same on every command."""
    return click.option(
        "--config",
        "config_file",
        type=click.Path(exists=True, dir_okay=False, path_type=Path),
        default=None,
        help=help_text,
    )


def repo_option(help_text: str) -> Decorator:
    """``--repo PATH`` (repeatable, passed as ``repos``): git repositories whose commits link to sessions."""
    return click.option(
        "--repo", "repos", multiple=True, type=click.Path(file_okay=False, path_type=Path), help=help_text
    )


def site_options(watched: bool) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """The site settings that ``build`` and ``serve`` share (``watched``: serve rebuilds when those folders change)."""
    also = " (watched)" if watched else ""
    redact_help = "Show" if watched else "Publish"
    options: list[Decorator] = [
        click.option("--title", default="Session archive", show_default=True, help="Site title."),
        click.option(
            "--no-redact", is_flag=True, help=f"{redact_help} secrets as they are (redaction is on by default)."
        ),
        click.option("--redact-pii", is_flag=True, help=PII_HELP),
        click.option(
            "--templates",
            "template_dirs",
            multiple=True,
            type=click.Path(exists=True, file_okay=False, path_type=Path),
            help=f"Folder of templates that override the built-in ones{also}.",
        ),
        click.option(
            "--static",
            "static_dirs",
            multiple=True,
            type=click.Path(exists=True, file_okay=False, path_type=Path),
            help=f"Folder of static files copied over the built-in ones{also}.",
        ),
        click.option(
            "--forge",
            "forge",
            multiple=True,
            callback=lambda ctx, param, value: check_forge(value),
            metavar="PRESET|PATTERN",
            help=FORGE_HELP,
        ),
        click.option(
            "--prices",
            "prices",
            type=click.Path(exists=True, dir_okay=False, path_type=Path),
            callback=lambda ctx, param, value: load_prices(value),
            metavar="FILE",
            help=PRICES_HELP,
        ),
        config_option("Settings file (default: sessite.toml at the archive's root); options given here win over it."),
        click.option(
            "--exports",
            default=None,
            metavar="FORMATS",
            help="Downloads beside each session page: any of aics,hail,markdown,html (html: the session as one "
            "self-contained file), all (the first three), or none (the default: `sessite convert` turns any session "
            "into any format).",
        ),
    ]

    def apply(command: Callable[..., None]) -> Callable[..., None]:
        for option in reversed(options):
            command = option(command)
        return command

    return apply


def load_prices(path: Path | None) -> dict | None:
    if path is None:
        return None

    try:
        if path.suffix.lower() == ".toml":
            data = tomllib.loads(path.read_text("utf-8"))
            data = data.get("prices", data)
        else:
            data = json.loads(path.read_text("utf-8"))
        price_table(data)
    except (OSError, UnicodeDecodeError, ValueError) as exc:  # JSON and TOML decode errors are ValueErrors
        raise click.BadParameter(f"{path}: {exc}", param_hint="--prices") from None
    return data


def check_forge(values: tuple[str, ...]) -> tuple[str, ...]:

    errors = Forge.from_config(values).errors
    if errors:
        raise click.BadParameter("; ".join(errors), param_hint="--forge")
    return tuple(values)


def find_locations(agent_dirs: tuple[str, ...]):

    try:
        overrides = parse_agent_dirs(agent_dirs)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--agent-dir") from None
    return find(overrides=overrides)


def archive_roots(archive: Path | None, use_discover: bool, agent_dirs: tuple[str, ...]) -> list[Path]:
    """The folders to build (``build`` and ``serve``): ARCHIVE, and with --discover the agent folders
    found on this machine."""
    roots: list[Path] = [archive] if archive is not None else []
    if use_discover:
        roots += [root for loc in find_locations(agent_dirs) for root in loc.roots]
        if not roots:
            raise click.ClickException("no agent folders found on this machine (see 'sessite discover')")
    elif archive is None:
        raise click.UsageError("give an ARCHIVE folder, or --discover to build the agent folders found on this machine")
    elif agent_dirs:
        raise click.UsageError("--agent-dir only applies with --discover")
    return roots


def with_config_file(
    config: SiteConfig, archive: Path | None, config_file: Path | None, exports: str | None
) -> SiteConfig:
    """``config`` with the settings of sessite.toml (``--config``, else the archive's) for
    every option not given on the command line; checks --base-url and --exports too."""

    ctx = click.get_current_context()
    given = {
        name
        for name in ctx.params
        if ctx.get_parameter_source(name) in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)
    }
    option = {
        "title": "title",
        "base_url": "base_url",
        "redact": "no_redact",
        "redact_pii": "redact_pii",
        "forge_url": "forge",
        "exports": "exports",
        "template_dirs": "template_dirs",
        "static_dirs": "static_dirs",
        "encrypt": "encrypt",
        "repos": "repos",
        "blame": "blame",
    }
    try:
        path = config_file or find_config_file(archive)
        settings = load_config_file(path) if path else {}
        settings = {key: value for key, value in settings.items() if option.get(key) not in given}
        if "base_url" in given:
            settings["base_url"] = check_base_url(config.base_url)
        if exports is not None:
            settings["exports"] = parse_exports(exports)
    except ConfigFileError as exc:
        raise click.ClickException(str(exc)) from None
    return replace(config, **settings)


def os_error_line(exc: OSError) -> str:
    """One line for a file system error: the writer's own (it names the site and the file), or path: cause."""
    if isinstance(exc, PublishError):
        return str(exc)
    cause = exc.strerror or str(exc)
    return f"{exc.filename}: {cause}" if exc.filename else cause
