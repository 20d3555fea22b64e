"""``sessite mcp``: serve an archive to agents over the Model Context Protocol (stdio).

The MCP SDK is an extra (``pip install 'sessite[mcp]'``): without it the command
says so in one line. stdout is the protocol's; everything else goes to stderr.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import click

from sessite.cli.app import main
from sessite.cli.options import PII_HELP, config_option, repo_option, with_config_file
from sessite.config import SiteConfig

INSTALL_LINE = "sessite mcp needs the MCP SDK: pip install 'sessite[mcp]' (or: pipx inject sessite mcp)"


def default_site(archive: Path) -> Path:
    """Where ``sessite mcp`` keeps the archive's built site: per archive, under the user's cache folder."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    digest = hashlib.sha1(str(archive.resolve()).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return base / "sessite" / "mcp" / digest / "site"


@main.command("mcp")
@click.argument("archive", type=click.Path(exists=True, file_okay=True, path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    default=None,
    help="Folder for the built site the server reads (default: one per archive in your cache folder).",
)
@click.option("--no-redact", is_flag=True, help="Answer with secrets as they are (redaction is on by default).")
@click.option("--redact-pii", is_flag=True, help=PII_HELP)
@repo_option("A git repository whose commits are linked to sessions: the session_commits and commit_sessions tools.")
@config_option("Settings file (default: sessite.toml at the archive's root): exclude_sessions, hide_events, redaction.")
def mcp_command(
    archive: Path,
    output: Path | None,
    no_redact: bool,
    redact_pii: bool,
    repos: tuple[Path, ...] = (),
    config_file: Path | None = None,
) -> None:
    """Serve ARCHIVE read-only to agents as an MCP server over stdio (search, list, read, problems, git refs,
    and with --repo the commits each session made)."""
    try:
        from sessite.serve.mcp_server import serve_mcp
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] in ("mcp", "mcp_types", "anyio", "pydantic"):
            raise click.ClickException(INSTALL_LINE) from None
        raise
    config = SiteConfig(
        archive=archive,
        output=output or default_site(archive),
        redact=not no_redact,
        redact_pii=redact_pii,
        repos=tuple(repos),
        progress=False,
    )
    config = with_config_file(config, archive, config_file, None)
    serve_mcp(config, log=lambda line: click.echo(line, err=True))
