"""``sessite collect ARCHIVE``: copy every session on this machine into an archive that only grows."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import click

from sessite.analyze.redact import Redactor
from sessite.cli.app import main
from sessite.cli.options import find_locations
from sessite.collect import collect, schedule_for
from sessite.collect.layout import overlaps
from sessite.model import Problems
from sessite.pipeline.report import problem_lines
from sessite.readers.locations import display, platform


def _sessite_command() -> str:
    """The absolute path of this ``sessite``, for a scheduler that has no ``PATH``."""
    found = shutil.which("sessite")
    return str(Path(found).absolute()) if found else f"{sys.executable} -m sessite"


@main.command("collect")
@click.argument("archive", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--agent-dir",
    "agent_dirs",
    multiple=True,
    metavar="AGENT=FOLDER",
    help="Collect AGENT's sessions from FOLDER instead of its default folders (repeatable).",
)
@click.option("--dry-run", is_flag=True, help="Say what would be copied; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print what happened to each file as JSON.")
@click.option(
    "--print-schedule", is_flag=True, help="Print the daily job that runs this command on this system; collect nothing."
)
def collect_command(
    archive: Path, agent_dirs: tuple[str, ...], dry_run: bool, as_json: bool, print_schedule: bool
) -> None:
    """Copy every session the agents keep on this machine into ARCHIVE, in each agent's layout.

    Append-only: a second run with nothing new writes nothing, nothing is deleted from ARCHIVE,
    and the agents' folders are only read. A session the agent shrank or rewrote keeps its earlier
    copy under ARCHIVE/.sessite-kept/<time>/, and `sessite build ARCHIVE` shows it whole.
    The home folder can be overridden with the SESSITE_HOME environment variable.
    """
    archive = archive.expanduser().absolute()
    plat = platform()
    if print_schedule:
        systemd = Path("/run/systemd/system").is_dir() or bool(os.environ.get("XDG_RUNTIME_DIR"))
        click.echo(schedule_for(plat.system, _sessite_command(), archive, systemd), nl=False)
        return
    locations = find_locations(agent_dirs)
    for location in locations:
        if overlaps(archive, location.folder):
            raise click.UsageError(
                f"{archive}: overlaps {location.agent}'s folder {location.folder}; choose an archive outside it"
            )
    problems = Problems(plat.home, Redactor().text)
    try:
        outcome = collect(archive, locations, plat.home, problems, dry_run=dry_run)
    except OSError as exc:  # the archive cannot be written: every file copied so far is whole
        where = exc.filename or archive
        raise click.ClickException(f"cannot write {where}: {exc.strerror or exc}") from None
    if as_json:
        rows = {
            "archive": str(archive),
            "dry_run": dry_run,
            "counts": {a: outcome.count(a) for a in ("new", "grown", "rewritten", "unchanged", "gone")},
            "files": [e.__dict__ for e in outcome.entries],
        }
        click.echo(json.dumps(rows, indent=2))
    else:
        if not locations:
            click.echo("no agent folders found", err=True)
        for entry in outcome.entries:
            if entry.action in ("rewritten",):
                click.echo(f"kept the earlier copy of {entry.target} as {entry.kept}")
        click.echo(outcome.summary(dry_run) + ("" if locations else f" (looked in {display(plat.home, plat.home)})"))
    for line in problem_lines(problems.items):
        click.echo(line, err=True)
