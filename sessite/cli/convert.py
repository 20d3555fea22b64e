"""``sessite convert``: sessions in any format read to AICS, HAIL, Markdown or one HTML file, redacted."""

from __future__ import annotations

from pathlib import Path

import click

from sessite.analyze.redact import Redactor
from sessite.cli.app import main
from sessite.cli.options import (
    PII_HELP,
    config_option,
)
from sessite.config import (
    ConfigFileError,
    find_config_file,
    load_config_file,
)
from sessite.outputs.single_file import SingleFileError, SingleFilePacker, SingleFileSettings, parse_size
from sessite.pipeline.convert import ConvertError, convert
from sessite.pipeline.folder_settings import LeaveOut, archive_folders
from sessite.pipeline.report import problem_lines


@main.command("convert")
@click.argument("source", metavar="INPUT", type=click.Path(exists=True, path_type=Path))
@click.option(
    "--to",
    "fmt",
    required=True,
    type=click.Choice(["aics", "hail", "markdown", "html"]),
    help="Format to write (html: the session's page as one self-contained file).",
)
@click.option(
    "-o",
    "--output",
    required=True,
    metavar="OUTPUT",
    help="A folder (one file per session), a file ending in the format's suffix (.aics.json, .hail.jsonl, .md, "
    ".html), or - for standard output.",
)
@click.option(
    "--max-size",
    "max_size",
    default="5MB",
    show_default=True,
    metavar="SIZE",
    callback=lambda ctx, param, value: _parse_size(value),
    help="With --to html: the size each file's images are shrunk to fit (5MB, 500KB, or bytes).",
)
@click.option("--no-redact", is_flag=True, help="Keep secrets as they are (redaction is on by default, as in a build).")
@click.option("--redact-pii", is_flag=True, help=PII_HELP)
@config_option("Settings file for redaction patterns and include/exclude (default: sessite.toml beside INPUT).")
@click.option("-q", "--quiet", is_flag=True, help="Print only problems.")
def convert_command(
    source: Path,
    fmt: str,
    output: str,
    no_redact: bool,
    config_file: Path | None,
    quiet: bool,
    max_size: int,
    redact_pii: bool = False,
) -> None:
    """Convert INPUT (a session file or folder in any format sessite reads, or a .gz of one file
    such as a site's download) to AICS, HAIL, Markdown, or one self-contained HTML file per session.

    A folder OUTPUT gets one file per session; a file OUTPUT holds every session
    (AICS) or the only one (HAIL, Markdown, HTML). Reading an AICS or HAIL file sessite
    wrote gives back the same session (see docs/exports.md, "Round trips").
    """

    try:
        path = config_file or find_config_file(source)
        settings = load_config_file(path) if path else {}
    except ConfigFileError as exc:
        raise click.ClickException(str(exc)) from None
    redact = settings.get("redact", True) and not no_redact
    redactor = (
        Redactor(
            extra=settings.get("redact_patterns", ()),
            allow=settings.get("redact_allow", ()),
            pii=redact_pii or settings.get("redact_pii", False),
            pii_allow=settings.get("pii_allow", ()),
        )
        if redact
        else None
    )
    packer = _single_file_packer(settings, max_size, redact) if fmt == "html" else None
    try:
        report = convert(
            source,
            fmt,
            output,
            redactor,
            include=settings.get("include", ()),
            exclude=settings.get("exclude", ()),
            packer=packer,
            leave=LeaveOut(
                settings.get("exclude_sessions", ()), settings.get("hide_events", ()), archive_folders([source])
            ),
        )
    except ConvertError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"cannot write {output}: {exc.strerror or exc}") from None
    for line in problem_lines(report.problems):
        click.echo(line, err=True)
    for note in () if quiet else report.notes:
        click.echo(note, err=True)
    if not quiet:
        redacted = sum(report.redactions.values())
        where = (
            "standard output"
            if output == "-"
            else (str(report.written[0]) if len(report.written) == 1 else f"{len(report.written)} files in {output}")
        )
        line = f"converted {report.sessions} session{'s' if report.sessions != 1 else ''} to {fmt} → {where}"
        if redacted:
            line += (
                f" ({redacted} secret{'s' if redacted != 1 else ''} redacted: "
                + ", ".join(f"{k} {n}" for k, n in report.redactions.most_common())
                + ")"
            )
        click.echo(line, err=output == "-")


def _parse_size(value: str) -> int:
    try:
        return parse_size(value)
    except SingleFileError as exc:
        raise click.BadParameter(str(exc), param_hint="--max-size") from None


def _single_file_packer(settings: dict, max_size: int, redact: bool) -> SingleFilePacker:
    """The packer of ``convert --to html``: the title and forge of sessite.toml, the budget asked for."""
    try:
        return SingleFilePacker(
            SingleFileSettings(
                title=settings.get("title", SingleFileSettings.title),
                forge_url=settings.get("forge_url", ()),
                max_bytes=max_size,
                redacted=redact,
            )
        )
    except SingleFileError as exc:
        raise click.ClickException(str(exc)) from None
