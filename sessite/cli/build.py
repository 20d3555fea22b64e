"""``sessite build``: parse options, build a config, call the pipeline's ``build()``."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from sessite.cli.app import main
from sessite.cli.options import (
    archive_roots,
    os_error_line,
    repo_option,
    site_options,
    with_config_file,
)
from sessite.cli.password import PASSWORD_ENV, password_file_option, read_password, strong_enough
from sessite.config import (
    SiteConfig,
)
from sessite.gitlinks.stored_sessions import stored_dir
from sessite.pipeline import BuildReport, build
from sessite.pipeline.github_pages import pages_limit_warnings
from sessite.pipeline.report import problem_lines
from sessite.publish.vault import KEYS_URL
from sessite.publish.writer import OutputError


@main.command("build")
@click.argument("archive", required=False, type=click.Path(exists=True, file_okay=True, path_type=Path))
@click.option(
    "--discover",
    "use_discover",
    is_flag=True,
    help="Also build every agent folder found on this machine (see 'sessite discover'); ARCHIVE is then optional.",
)
@click.option(
    "--agent-dir",
    "agent_dirs",
    multiple=True,
    metavar="AGENT=FOLDER",
    help="With --discover: look for AGENT's sessions in FOLDER instead of its default folders (repeatable).",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    default=Path("site"),
    show_default=True,
    help="Folder to write the site into (replaced atomically).",
)
@click.option(
    "--base-url", default="", help="Absolute URL the site will be served from (e.g. https://you.github.io/repo/)."
)
@click.option("--strict", is_flag=True, help="Exit non-zero when any input problem was found.")
@site_options(watched=False)
@click.option("--clean", is_flag=True, help="Ignore the incremental-build cache: render everything again.")
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where incremental-build state lives (default: your cache folder; never inside the archive or the site).",
)
@click.option("-j", "--jobs", type=click.IntRange(0, 64), default=0, help="Worker processes (0: one per core).")
@repo_option(
    "A git repository (work tree or bare) whose commits are linked to the sessions that made them (repeatable)."
)
@click.option(
    "--blame",
    "blame",
    multiple=True,
    metavar="GLOB",
    help="With --repo: publish these files at HEAD line by line, each line linked to its commit and session turn.",
)
@click.option("-q", "--quiet", is_flag=True, help="Print only problems and the summary line.")
@click.option(
    "--encrypt",
    is_flag=True,
    default=None,
    help=f"Encrypt every page under a password (${PASSWORD_ENV}, --password-file or a prompt): docs/encryption.md.",
)
@password_file_option()
def build_command(
    archive: Path | None,
    use_discover: bool,
    agent_dirs: tuple[str, ...],
    output: Path,
    title: str,
    base_url: str,
    no_redact: bool,
    strict: bool,
    template_dirs: tuple[Path, ...],
    static_dirs: tuple[Path, ...],
    forge: tuple[str, ...],
    clean: bool,
    cache_dir: Path | None,
    jobs: int,
    repos: tuple[Path, ...],
    blame: tuple[str, ...],
    quiet: bool,
    prices: dict | None = None,
    config_file: Path | None = None,
    exports: str | None = None,
    redact_pii: bool = False,
    encrypt: bool | None = None,
    password_file: Path | None = None,
) -> None:
    """Build a static site from ARCHIVE (a folder of session files in any supported format)."""
    if archive is None and repos and not use_discover:  # the sessions stored in the repositories alone
        roots = [stored_dir(output, repos[0])]
    else:
        roots = archive_roots(archive, use_discover, agent_dirs)
    config = SiteConfig(
        archive=roots[0],
        output=output,
        title=title,
        base_url=base_url,
        redact=not no_redact,
        redact_pii=redact_pii,
        strict=strict,
        template_dirs=tuple(template_dirs),
        static_dirs=tuple(static_dirs),
        progress=not quiet,
        archives=tuple(roots[1:]),
        forge_url=forge,
        prices=prices,
        clean=clean,
        cache_dir=cache_dir,
        jobs=jobs,
        repos=tuple(repos),
        blame=tuple(blame),
    )
    if encrypt:
        config = replace(config, encrypt=True)
    config = with_config_file(config, archive, config_file, exports)
    password = None
    if config.encrypt:
        new_site = clean or not (output / KEYS_URL).is_file()
        password = read_password(password_file, PASSWORD_ENV, "Site password", confirm=new_site)
        if new_site:
            strong_enough(password)
    try:
        report = _build_with_progress(config, show=not quiet and sys.stderr.isatty(), password=password)
    except OutputError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:  # disk full, read-only, permission denied: one line; the writer kept the previous site
        raise click.ClickException(os_error_line(exc)) from None
    _print_report(report, quiet)
    if not report.published:
        sys.exit(1)
    if strict and report.problems:
        sys.exit(2)


def _print_report(report: BuildReport, quiet: bool) -> None:
    """Problem lines, the summary line, the redaction counts, the output scan's findings, size warnings."""
    for line in problem_lines(report.problems):
        click.echo(line, err=True)
    click.echo(report.summary_line())
    if report.redactions and not quiet:
        kinds = ", ".join(f"{kind} {n}" for kind, n in report.redactions.most_common())
        click.echo(f"redacted: {kinds}")
    for line in report.leaks:  # the output scan's findings, then its error line
        click.echo(line, err=True)
    if report.published:
        for warning in pages_limit_warnings(report.sizes or report.output):  # (sizes: no second walk of the site)
            click.echo(f"warning: {warning}", err=True)


def _build_with_progress(config: SiteConfig, show: bool, password: str | None = None):
    if not show:
        return build(config, password=password)

    with Progress(
        TextColumn("[bold]building"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
        transient=True,
    ) as bar:
        task = bar.add_task("", total=None)

        def hook(done: int, total: int, current: str) -> None:
            bar.update(task, completed=done, total=total, description=current[-60:])

        return build(config, progress=hook, password=password)
