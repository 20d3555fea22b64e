"""``sessite discover``: where this machine keeps each agent's sessions, and how many."""

from __future__ import annotations

import json

import click

from sessite.analyze.redact import Redactor
from sessite.cli.app import main
from sessite.cli.options import (
    find_locations,
)
from sessite.model import Problems
from sessite.pipeline.report import problem_lines
from sessite.readers.locations import display, platform, survey


@main.command("discover")
@click.option(
    "--agent-dir",
    "agent_dirs",
    multiple=True,
    metavar="AGENT=FOLDER",
    help="Look for AGENT's sessions in FOLDER instead of its default folders (repeatable).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
@click.option("-v", "--verbose", is_flag=True, help="Also print every input problem found while counting.")
def discover_command(agent_dirs: tuple[str, ...], as_json: bool, verbose: bool) -> None:
    """List the coding-agent session folders on this machine, with counts; builds nothing.

    The home folder can be overridden with the SESSITE_HOME environment variable.
    """

    home = platform().home
    problems = Problems(home, Redactor().text)
    found = [survey(loc, problems) for loc in find_locations(agent_dirs)]
    if as_json:
        rows = [
            {
                "agent": f.location.agent,
                "folder": str(f.location.folder),
                "roots": [str(r) for r in f.location.roots],
                "files": f.files,
                "sessions": f.sessions,
                "formats": list(f.formats),
                "problems": f.problems,
            }
            for f in found
        ]
        click.echo(json.dumps(rows, indent=2))
    elif not found:
        click.echo("no agent folders found")
    else:
        width = max(len(f.location.agent) for f in found)
        click.echo(f"{'agent':<{width}}  {'sessions':>8}  {'files':>6}  folder")
        for f in found:
            note = f"  ({f.problems} problem{'s' if f.problems != 1 else ''})" if f.problems else ""
            click.echo(
                f"{f.location.agent:<{width}}  {f.sessions:>8}  {f.files:>6}  {display(f.location.folder, home)}{note}"
            )
        total = sum(f.sessions for f in found)
        click.echo(
            f"{total} session{'s' if total != 1 else ''} in {len(found)} folder{'s' if len(found) != 1 else ''}; "
            "build them with: sessite build --discover -o site"
        )
    if verbose:
        for line in problem_lines(problems.items):
            click.echo(line, err=True)
