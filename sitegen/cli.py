"""The ``sessite`` command: parse options, build a config, call build()."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from . import __version__
from .build import build
from .config import SiteConfig
from .writer import OutputError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sessite")
def main() -> None:
    """Publish archives of AI coding sessions as a static, searchable site."""


@main.command("build")
@click.argument("archive", type=click.Path(exists=True, file_okay=True, path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path), default=Path("site"), show_default=True, help="Folder to write the site into (replaced atomically).")
@click.option("--title", default="Session archive", show_default=True, help="Site title.")
@click.option("--base-url", default="", help="Absolute URL the site will be served from (e.g. https://you.github.io/repo/).")
@click.option("--no-redact", is_flag=True, help="Publish secrets as they are (redaction is on by default).")
@click.option("--strict", is_flag=True, help="Exit non-zero when any input problem was found.")
@click.option("--templates", "template_dirs", multiple=True, type=click.Path(exists=True, file_okay=False, path_type=Path), help="Folder of templates that override the built-in ones.")
@click.option("--static", "static_dirs", multiple=True, type=click.Path(exists=True, file_okay=False, path_type=Path), help="Folder of static files copied over the built-in ones.")
@click.option("-q", "--quiet", is_flag=True, help="Print only problems and the summary line.")
def build_command(archive: Path, output: Path, title: str, base_url: str, no_redact: bool, strict: bool, template_dirs: tuple[Path, ...], static_dirs: tuple[Path, ...], quiet: bool) -> None:
    """Build a static site from ARCHIVE (a folder of session files in any supported format)."""
    config = SiteConfig(
        archive=archive, output=output, title=title, base_url=base_url, redact=not no_redact, strict=strict,
        template_dirs=tuple(template_dirs), static_dirs=tuple(static_dirs), progress=not quiet,
    )
    try:
        report = _build_with_progress(config, show=not quiet and sys.stderr.isatty())
    except OutputError as exc:
        raise click.ClickException(str(exc)) from None
    for problem in report.problems:
        click.echo(str(problem), err=True)
    click.echo(report.summary_line())
    if report.redactions and not quiet:
        kinds = ", ".join(f"{kind} {n}" for kind, n in report.redactions.most_common())
        click.echo(f"redacted: {kinds}")
    if not report.published:
        sys.exit(1)
    if strict and report.problems:
        sys.exit(2)


@main.command("serve")
@click.argument("archive", type=click.Path(exists=True, file_okay=True, path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None, help="Folder for the built site (default: a temporary folder removed on exit).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind; keep the default unless you mean to share the preview.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port (0 picks a free one).")
@click.option("--title", default="Session archive", show_default=True, help="Site title.")
@click.option("--no-redact", is_flag=True, help="Show secrets as they are (redaction is on by default).")
@click.option("--templates", "template_dirs", multiple=True, type=click.Path(exists=True, file_okay=False, path_type=Path), help="Folder of templates that override the built-in ones (watched).")
@click.option("--static", "static_dirs", multiple=True, type=click.Path(exists=True, file_okay=False, path_type=Path), help="Folder of static files copied over the built-in ones (watched).")
@click.option("--open", "open_browser", is_flag=True, help="Open the preview in a browser.")
def serve_command(archive: Path, output: Path | None, host: str, port: int, title: str, no_redact: bool, template_dirs: tuple[Path, ...], static_dirs: tuple[Path, ...], open_browser: bool) -> None:
    """Build ARCHIVE, serve it on localhost, and rebuild and reload on every change."""
    from .serve import serve

    config = SiteConfig(archive=archive, output=output, title=title, redact=not no_redact, template_dirs=tuple(template_dirs), static_dirs=tuple(static_dirs), progress=False)
    try:
        serve(config, host=host, port=port, log=lambda line: click.echo(line, err=True), open_browser=open_browser)
    except OutputError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None


def _build_with_progress(config: SiteConfig, show: bool):
    if not show:
        return build(config)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("[bold]building"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("{task.description}"), transient=True) as bar:
        task = bar.add_task("", total=None)

        def hook(done: int, total: int, current: str) -> None:
            bar.update(task, completed=done, total=total, description=current[-60:])

        return build(config, progress=hook)


if __name__ == "__main__":
    main()
