"""``sessite serve``: build, serve on 127.0.0.1, rebuild on change (``sessite.serve``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import click

from sessite.cli.app import main
from sessite.cli.options import (
    archive_roots,
    repo_option,
    site_options,
    with_config_file,
)
from sessite.config import (
    SiteConfig,
)
from sessite.publish.writer import OutputError
from sessite.serve import serve


@main.command("serve")
@click.argument("archive", required=False, type=click.Path(exists=True, file_okay=True, path_type=Path))
@click.option(
    "--discover",
    "use_discover",
    is_flag=True,
    help="Also serve every agent folder found on this machine (as 'build --discover'); ARCHIVE is then optional.",
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
    default=None,
    help="Folder for the built site (default: a temporary folder removed on exit).",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to bind; keep the default unless you mean to share the preview.",
)
@click.option(
    "--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port (0 picks a free one)."
)
@click.option("--open", "open_browser", is_flag=True, help="Open the preview in a browser.")
@repo_option(
    "A git repository whose commits are linked to the sessions that made them (repeatable; its new "
    "commits and notes rebuild)."
)
@click.option(
    "--blame",
    "blame",
    multiple=True,
    metavar="GLOB",
    help="With --repo: show these files at HEAD line by line, each line linked to its commit and session turn.",
)
@site_options(watched=True)
def serve_command(
    archive: Path | None,
    use_discover: bool,
    agent_dirs: tuple[str, ...],
    output: Path | None,
    host: str,
    port: int,
    title: str,
    no_redact: bool,
    template_dirs: tuple[Path, ...],
    static_dirs: tuple[Path, ...],
    open_browser: bool,
    repos: tuple[Path, ...],
    blame: tuple[str, ...],
    forge: tuple[str, ...],
    prices: dict | None = None,
    config_file: Path | None = None,
    exports: str | None = None,
    redact_pii: bool = False,
) -> None:
    """Build ARCHIVE, serve it on localhost, and rebuild and reload on every change."""

    roots = archive_roots(archive, use_discover, agent_dirs)
    config = SiteConfig(
        archive=roots[0],
        archives=tuple(roots[1:]),
        output=output,
        title=title,
        redact=not no_redact,
        redact_pii=redact_pii,
        template_dirs=tuple(template_dirs),
        static_dirs=tuple(static_dirs),
        progress=False,
        forge_url=forge,
        prices=prices,
        repos=tuple(repos),
        blame=tuple(blame),
    )
    # The preview stays on this machine and is never published: `encrypt = true` is for builds.
    config = replace(with_config_file(config, archive, config_file, exports), encrypt=False)
    try:
        serve(config, host=host, port=port, log=lambda line: click.echo(line, err=True), open_browser=open_browser)
    except OutputError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None
