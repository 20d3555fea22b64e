"""``sessite check``: list what a build would redact, without building; ``--allow`` keeps chosen findings."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from sessite.cli.app import main
from sessite.cli.options import (
    PII_HELP,
    config_option,
    with_config_file,
)
from sessite.config import (
    CONFIG_NAME,
    SiteConfig,
)
from sessite.config_edit import add_allow_entries
from sessite.pipeline.check import CheckReport, check, pick_numbers
from sessite.pipeline.report import problem_lines


@main.command("check")
@click.argument("archive", type=click.Path(exists=True, file_okay=True, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document (for scripts).")
@click.option("--redact-pii", is_flag=True, help=PII_HELP)
@click.option(
    "--quick", is_flag=True, help="Only list what redaction replaces; do not render the pages to scan them as a build."
)
@config_option("Settings file (default: sessite.toml at the archive's root).")
@click.option("-j", "--jobs", type=click.IntRange(0, 64), default=0, help="Worker processes (0: one per core).")
@click.option(
    "--allow",
    "allow",
    metavar="NUMBERS|all",
    help="Keep these findings (their numbers, e.g. 2,5-7, or all) from redaction from now on: "
    "their digests are added to redact_allow in the settings file (never the values).",
)
def check_command(
    archive: Path,
    as_json: bool,
    redact_pii: bool,
    quick: bool,
    config_file: Path | None,
    jobs: int,
    allow: str | None,
) -> None:
    """List what a build of ARCHIVE would redact (kind, path:line, its line with the value
    masked, counts by kind) and whether the build's scan of its own output would pass;
    publishes nothing.

    Exits 1 when anything would be redacted or only the output scan sees it, 0 when clean, 2 when the
    settings cannot be used.
    """
    config = SiteConfig(archive=archive, output=None, redact_pii=redact_pii, jobs=jobs, progress=False)
    try:
        config = with_config_file(config, archive, config_file, None)
    except click.ClickException as exc:  # exit 2: 1 means "something would be redacted"
        click.echo(f"Error: {exc.format_message()}", err=True)
        sys.exit(2)
    report = check(config, render=not quick)
    if as_json:
        click.echo(json.dumps(report.as_json(), indent=2, ensure_ascii=False))
    else:
        for line in problem_lines(report.problems):
            click.echo(line, err=True)
        if not config.redact:
            click.echo("note: redaction is off in the settings file (redact = false)", err=True)
        for line in report.lines():
            click.echo(line)
    if allow:
        _allow_findings(report, allow, config_file or (archive if archive.is_dir() else archive.parent) / CONFIG_NAME)
    sys.exit(0 if report.clean else 1)


def _allow_findings(report: CheckReport, spec: str, path: Path) -> None:
    """Add the findings ``spec`` names to ``redact_allow`` in ``path``; a bad spec is exit 2."""
    try:
        chosen = [report.findings[n - 1] for n in pick_numbers(spec, len(report.findings))]
        added = add_allow_entries(
            path, [(f.allow, f"{f.kind} {f.preview} at {f.path}:{f.line or 1}") for f in chosen if f.allow]
        )
    except (ValueError, OSError) as exc:
        click.echo(f"Error: --allow: {exc}", err=True)
        sys.exit(2)
    click.echo(f"added {added} entr{'y' if added == 1 else 'ies'} to redact_allow in {path}", err=True)
