"""``sessite init``: the files a new site needs (a GitHub Pages workflow)."""

from __future__ import annotations

from pathlib import Path

import click

from sessite.cli.app import main
from sessite.pipeline.github_pages import WORKFLOW_PATH, github_pages_workflow


@main.command("init")
@click.option(
    "--github-pages",
    "github_pages",
    is_flag=True,
    help="Write .github/workflows/sessite-pages.yml: build with sessite, deploy with the official Pages actions.",
)
@click.option(
    "--archive", default="sessions", show_default=True, help="The archive folder, relative to the repository root."
)
@click.option(
    "--output", default="_site", show_default=True, help="Where the workflow builds the site (not committed)."
)
@click.option("--branch", default="main", show_default=True, help="Branch whose pushes publish the site.")
@click.option(
    "--install",
    default=None,
    metavar="REQUIREMENT",
    help="What the workflow pip-installs (default: this sessite version, e.g. 'sessite==X'; a git URL works too).",
)
@click.option("--force", is_flag=True, help="Overwrite an existing workflow file.")
def init_command(github_pages: bool, archive: str, output: str, branch: str, install: str | None, force: bool) -> None:
    """Set up publishing in the current folder (a git repository holding the archive)."""

    if not github_pages:
        raise click.UsageError("say what to set up: sessite init --github-pages")
    try:
        text = github_pages_workflow(archive=archive, output=output, install=install, branch=branch)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    path = Path.cwd() / WORKFLOW_PATH
    if path.exists() and not force:
        raise click.ClickException(f"{WORKFLOW_PATH} already exists (--force overwrites it)")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    click.echo(f"wrote {WORKFLOW_PATH}: pushes to {branch} build {archive}/ and publish it.")
    click.echo(
        'Next: in the repository\'s Settings → Pages, set Source to "GitHub Actions"; commit the workflow and push.'
    )
    if not (Path.cwd() / archive).is_dir():
        click.echo(
            f"note: there is no {archive}/ folder here yet; put the session files there (or pass --archive).", err=True
        )
