"""The ``sessite`` command: parse options, build a config, call build()."""

from __future__ import annotations

import gc
import json
import sys
import tomllib
from collections.abc import Callable
from dataclasses import replace
from functools import cache
from pathlib import Path

import click
from click.core import ParameterSource
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from sessite import __version__
from sessite.analyze.insights import price_table
from sessite.analyze.redact import Redactor
from sessite.analyze.refs import Forge
from sessite.config import (
    CONFIG_NAME,
    ConfigFileError,
    SiteConfig,
    check_base_url,
    find_config_file,
    load_config_file,
    parse_exports,
)
from sessite.config_edit import add_allow_entries
from sessite.model import Problems
from sessite.pipeline import build
from sessite.pipeline.check import CheckReport, check, pick_numbers
from sessite.pipeline.convert import ConvertError, convert
from sessite.pipeline.github_pages import WORKFLOW_PATH, github_pages_workflow, pages_limit_warnings
from sessite.pipeline.leave_out import LeaveOut, archive_folders
from sessite.pipeline.report import problem_lines
from sessite.readers.locations import display, find, parse_agent_dirs, platform, survey
from sessite.serve import serve
from sessite.site.single_file import SingleFileError, SingleFilePacker, SingleFileSettings, parse_size
from sessite.site.writer import OutputError, PublishError

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
            callback=lambda ctx, param, value: _check_forge(value),
            metavar="PRESET|PATTERN",
            help=FORGE_HELP,
        ),
        click.option(
            "--prices",
            "prices",
            type=click.Path(exists=True, dir_okay=False, path_type=Path),
            callback=lambda ctx, param, value: _load_prices(value),
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


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sessite")
def main() -> None:
    """Publish archives of AI coding sessions as a static, searchable site."""
    _tune_gc()


@cache  # once a process: a second freeze would keep the cycles made since out of every collection
def _tune_gc() -> None:
    """Fewer cycle collections: a build makes millions of short-lived objects that reference
    counting frees, yet the collector's default thresholds walk the whole growing heap about ten
    times (0.75 s of a 100 MB build). What the imports made is frozen out of those walks, which
    also keeps forked workers from copying the pages it sits on. About 3% less CPU, same memory."""
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)


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
@click.option("-q", "--quiet", is_flag=True, help="Print only problems and the summary line.")
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
    quiet: bool,
    prices: dict | None = None,
    config_file: Path | None = None,
    exports: str | None = None,
    redact_pii: bool = False,
) -> None:
    """Build a static site from ARCHIVE (a folder of session files in any supported format)."""
    roots: list[Path] = [archive] if archive is not None else []
    if use_discover:
        roots += [root for loc in _find_locations(agent_dirs) for root in loc.roots]
        if not roots:
            raise click.ClickException("no agent folders found on this machine (see 'sessite discover')")
    elif archive is None:
        raise click.UsageError("give an ARCHIVE folder, or --discover to build the agent folders found on this machine")
    elif agent_dirs:
        raise click.UsageError("--agent-dir only applies with --discover")
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
    )
    config = _with_config_file(config, archive, config_file, exports)
    try:
        report = _build_with_progress(config, show=not quiet and sys.stderr.isatty())
    except OutputError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:  # disk full, read-only, permission denied: one line; the writer kept the previous site
        raise click.ClickException(_os_error_line(exc)) from None
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
    if not report.published:
        sys.exit(1)
    if strict and report.problems:
        sys.exit(2)


@main.command("serve")
@click.argument("archive", type=click.Path(exists=True, file_okay=True, path_type=Path))
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
@site_options(watched=True)
def serve_command(
    archive: Path,
    output: Path | None,
    host: str,
    port: int,
    title: str,
    no_redact: bool,
    template_dirs: tuple[Path, ...],
    static_dirs: tuple[Path, ...],
    open_browser: bool,
    forge: tuple[str, ...],
    prices: dict | None = None,
    config_file: Path | None = None,
    exports: str | None = None,
    redact_pii: bool = False,
) -> None:
    """Build ARCHIVE, serve it on localhost, and rebuild and reload on every change."""

    config = SiteConfig(
        archive=archive,
        output=output,
        title=title,
        redact=not no_redact,
        redact_pii=redact_pii,
        template_dirs=tuple(template_dirs),
        static_dirs=tuple(static_dirs),
        progress=False,
        forge_url=forge,
        prices=prices,
    )
    config = _with_config_file(config, archive, config_file, exports)
    try:
        serve(config, host=host, port=port, log=lambda line: click.echo(line, err=True), open_browser=open_browser)
    except OutputError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None


def _load_prices(path: Path | None) -> dict | None:
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


def _check_forge(values: tuple[str, ...]) -> tuple[str, ...]:

    errors = Forge.from_config(values).errors
    if errors:
        raise click.BadParameter("; ".join(errors), param_hint="--forge")
    return tuple(values)


def _find_locations(agent_dirs: tuple[str, ...]):

    try:
        overrides = parse_agent_dirs(agent_dirs)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--agent-dir") from None
    return find(overrides=overrides)


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
    found = [survey(loc, problems) for loc in _find_locations(agent_dirs)]
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


def _with_config_file(
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
    wrote gives back the same session (see the README's "Round trips").
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

    Exits 1 when anything would be redacted or would stop a build, 0 when clean, 2 when the
    settings cannot be used.
    """
    config = SiteConfig(archive=archive, output=None, redact_pii=redact_pii, jobs=jobs, progress=False)
    try:
        config = _with_config_file(config, archive, config_file, None)
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


def _os_error_line(exc: OSError) -> str:
    """One line for a file system error: the writer's own (it names the site and the file), or path: cause."""
    if isinstance(exc, PublishError):
        return str(exc)
    cause = exc.strerror or str(exc)
    return f"{exc.filename}: {cause}" if exc.filename else cause


def _build_with_progress(config: SiteConfig, show: bool):
    if not show:
        return build(config)

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

        return build(config, progress=hook)


if __name__ == "__main__":
    main()
