"""build(config) -> BuildReport: discover → (read → redact → enrich → render) → write.

- Streaming: each source is read, rendered and written as it comes; only small
  per-session items for the aggregates (index, search, refs, …) are kept.
- Parallel: sources render in forked worker processes (``worker.py``), results
  are taken in archive order so the output does not depend on timing.
- Incremental: a source whose files did not change since the last build is
  not read again (``cache.py``); its pages stay as published and its cached
  items feed the aggregates. Aggregates are rewritten only when some source
  changed. A build that changes nothing touches nothing.
- Safe: the site is swapped in whole at the end (``writer.py``); problems are
  collected as data, never raised.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sessite.analyze.filenames import reserved_on_windows
from sessite.analyze.redact import Redactor
from sessite.analyze.session import SessionSummary
from sessite.config import SiteConfig
from sessite.gitlinks.repository import repo_state
from sessite.gitlinks.stored_sessions import copies_read_elsewhere, export_repo, stored_dir
from sessite.model import Problems
from sessite.outputs.aggregate import Aggregate
from sessite.outputs.registry import DEFAULT_AGGREGATES, AggregateFactory, aggregate_names
from sessite.parallel import default_jobs
from sessite.pipeline import cache as build_cache
from sessite.pipeline import learned_elsewhere
from sessite.pipeline import plan as planning
from sessite.pipeline.build_context import BuildContext
from sessite.pipeline.cache import BuildCache, SessionRecord, SourceRecord, Stamp, cached_items, source_key
from sessite.pipeline.encrypt import SiteVault, encrypt_site
from sessite.pipeline.output_scan import EarlyScan, Leak, leak_lines, scan_site, start_early_scan
from sessite.pipeline.plan import Plan
from sessite.pipeline.report import BuildReport, CatalogEntry
from sessite.pipeline.worker import RenderedSession, SourceResult, SourceTask, SourceWorker, discard, run_sources
from sessite.publish.minify import minified
from sessite.publish.vault import url_key
from sessite.publish.writer import SiteWriter, check_output
from sessite.readers import Claim, discover
from sessite.readers.merge import copy_id
from sessite.render.markup import pygments_css
from sessite.render.resources import static_dir, templates_dir
from sessite.site.urls import PYGMENTS_CSS_URL, STATIC_FOLDER, opaque_urls, session_url

__all__ = ["PARALLEL_MIN_BYTES", "ProgressHook", "build", "cached_items", "source_key"]

ProgressHook = Callable[[int, int, str], None]  # (done, total, current path)
PARALLEL_MIN_BYTES = 2 << 20  # below this much input to render, worker processes cost more than they save


def build(
    config: SiteConfig,
    progress: ProgressHook | None = None,
    defer: frozenset[str] = frozenset(),
    outputs: Sequence[AggregateFactory] = DEFAULT_AGGREGATES,
    password: str | None = None,
) -> BuildReport:
    """Build the whole site; problems are collected, never raised.

    ``outputs``: the site-wide outputs (aggregates) to write, in order (``sessite.outputs.registry``).

    ``defer`` names aggregates that may keep their published files for now when
    only some sources changed (the preview server publishes changed pages
    first, then builds again to bring those aggregates up to date); the report
    lists the ones deferred. Raises OutputError when the output folder cannot
    be used safely.

    ``password``: with ``config.encrypt``, what opens the site (``pipeline/encrypt.py``); the
    published site's key is kept when it opens it, so an incremental build re-encrypts only what changed.
    """
    report, again = _build(config, progress, defer, outputs, password)
    if again is None:
        return report
    # What only the output scan saw, standing in the model's text: once more, redacting it everywhere.
    # (Never a third time: what the second build still finds stops its publish.)
    report, _ = _build(again[0], progress, defer, outputs, password, again[1])
    return report


def _build(
    config: SiteConfig,
    progress: ProgressHook | None,
    defer: frozenset[str],
    outputs: Sequence[AggregateFactory],
    password: str | None,
    told: Sequence[tuple[str, str]] | None = None,
) -> tuple[BuildReport, tuple[SiteConfig, list[tuple[str, str]]] | None]:
    """One build; with the settings and lines of a second one when its scan's findings can be healed
    (``learned_elsewhere``). ``told``: this is that second build, and what to tell when it publishes."""
    started = time.perf_counter()
    run = _BuildRun.start(config, tuple(outputs), password)
    run.told = told
    # An encrypted site's URLs are opaque (docs/encryption.md): made so wherever they are made.
    with opaque_urls(url_key(run.vault.key) if run.vault else None), SiteWriter(run.report.output) as writer:
        if run.vault is not None:
            writer.published_as = run.vault.published
        plan = planning.plan_sources(run.claims, run.old, writer, run.digests)
        run.report.reused = sum(1 for _, record in plan if record is not None)
        aggregates = run.choose_aggregates(plan, writer, defer)
        run.take_sources(plan, writer, aggregates, progress)
        if not run.report.sessions:
            if not run.claims:
                skipped = f" (skipped: {run.skipped})" if run.skipped else ""
                run.problems.add(run.roots[0], None, f"no session files found{skipped}", "discover", full=True)
            run.report.problems = run.problems.items
            run.report.seconds = time.perf_counter() - started
            writer.abort()
            return run.report, None
        early = run.start_scan(writer)  # the session pages, while the aggregates are written
        try:
            run.write_aggregates(writer, aggregates)
            run.write_static(writer, aggregates.rewrite)
        except BaseException:
            if early is not None:
                early.cancel()
            raise
        if not run.scan_output(writer, early):
            run.report.problems = run.problems.items
            run.report.seconds = time.perf_counter() - started
            writer.abort()  # the previous site stays as it is
            return run.report, run.again
        if run.vault is not None:  # after the scan: it reads the plain pages
            encrypt_site(writer, run.vault, run.unlock_page)
        run.publish(writer)
    run.save_cache()
    run.report.seconds = time.perf_counter() - started
    return run.report, None


@dataclass
class _Aggregates:
    """Which aggregates this build writes (``active``, made fresh) and whether any changed at all."""

    rewrite: bool
    active: list[tuple[str, Aggregate]]
    names: list[str] = field(init=False)  # of the active ones

    def __post_init__(self) -> None:
        self.names = [name for name, _ in self.active]


@dataclass
class _BuildRun:
    """One build's state between its steps."""

    config: SiteConfig
    roots: list[Path]
    problems: Problems
    report: BuildReport
    claims: list[Claim]
    cache_dir: Path
    theme: str
    old: BuildCache | None
    context: BuildContext
    factories: tuple[AggregateFactory, ...]  # the aggregates' factories, in build order
    new: BuildCache = field(init=False)
    catalog: list[CatalogEntry] = field(default_factory=list)
    owners: dict[str, str] = field(default_factory=dict)  # session id -> the source it was first read from
    folded: dict[str, str] = field(default_factory=dict)  # casefolded id -> the id published (macOS, Windows)
    summaries: dict[str, SessionSummary] = field(default_factory=dict)  # session id -> what was published
    names: list[str] = field(init=False)  # every aggregate, in build order
    # source key -> (stamp, content hash) of a source to be read, taken before it is read
    digests: dict[str, tuple[Stamp, str]] = field(default_factory=dict)
    skipped: str = ""  # the folders discovery did not enter and why (DiscoveryResult.skipped)
    vault: SiteVault | None = None  # --encrypt: the site key and its keyring
    unlock_pages: dict[tuple[tuple[str, ...], str], str] = field(default_factory=dict)  # made once per depth
    repos_state: str = ""  # the --repo repositories' ref tips: a new commit rewrites the aggregates
    learned: dict[str, str] = field(default_factory=dict)  # value -> kind: what rules replaced, every source
    snippet_leaks: list[Leak] = field(default_factory=list)  # what workers found in search snippets where made
    # The settings to build again with and what to tell then (learned_elsewhere), when the scan says so.
    again: tuple[SiteConfig, list[tuple[str, str]]] | None = None
    told: Sequence[tuple[str, str]] | None = None  # this is that build again: the lines to tell when it publishes

    def __post_init__(self) -> None:
        self.new = BuildCache(key=build_cache.cache_key(), theme=self.theme, known=self.config.redact_known)
        self.report.catalog = self.catalog
        self.names = aggregate_names(self.factories)

    @classmethod
    def start(
        cls, config: SiteConfig, factories: tuple[AggregateFactory, ...], password: str | None = None
    ) -> _BuildRun:
        """Check the folders, discover the sources, load the last build's cache when it still applies."""
        if config.output is None:
            raise ValueError("build() needs an output folder")
        output = config.output.resolve()
        roots = planning.build_roots(config)
        stored_problems: list[tuple[Path, str]] = []
        for repo in config.repos:  # sessions kept inside the repositories (Entire, opensession)
            dest = stored_dir(output, repo)
            count, lines = export_repo(repo, dest)
            stored_problems.extend((repo, line) for line in lines)
            if count and dest.resolve() not in roots:
                roots.append(dest.resolve())
        roots = [root for root in roots if root.exists()] or roots
        for root in roots:
            check_output(root, output)
        problems = Problems(planning.common_root(roots), Redactor.scrub_for(config))
        for repo, line in stored_problems:
            problems.add(repo, None, line, "git")
        found = discover(
            roots[0] if len(roots) == 1 else roots, problems, include=config.include, exclude=config.exclude
        )
        if config.repos:  # a git-ai transcript of a session the archive holds in the agent's own log
            copies = copies_read_elsewhere(
                (c.path for c in found.claims), (stored_dir(output, repo) for repo in config.repos)
            )
            found.claims = [c for c in found.claims if c.path not in copies]
        report = BuildReport(output=output, files=len(found.claims), ignored=len(found.ignored))
        cache_dir = planning.cache_folder(config, roots, output)
        old = None if config.clean else build_cache.load(cache_dir / "build.pickle")
        config = learned_elsewhere.with_known(config, old)
        theme = build_cache.theme_fingerprint(
            config, [*config.template_dirs, templates_dir()], [*config.static_dirs, static_dir()]
        )
        if config.encrypt:  # its pages have other addresses, and link to them: a plain build's cannot be kept
            theme += "|opaque-urls"
        if old is not None and old.theme != theme:
            old = None
        vault = None
        if config.encrypt:
            if not password:
                raise ValueError("an encrypted build needs a password")
            vault = SiteVault.for_site(output, password, config.clean)
            if vault.new:
                old = None  # pages sealed under another key cannot be kept
        context = BuildContext.for_config(config, cache_dir)
        return cls(
            config,
            roots,
            problems,
            report,
            found.claims,
            cache_dir,
            theme,
            old,
            context,
            factories,
            skipped=found.skipped,
            vault=vault,
            repos_state="".join(repo_state(path) for path in config.repos),
        )

    # ---- which aggregates

    def choose_aggregates(self, plan: Plan, writer: SiteWriter, defer: frozenset[str]) -> _Aggregates:
        """Rewrite the aggregates when a source changed or their published files are not what the cache says;
        those named in ``defer`` may wait while their published files are complete."""
        old = self.old
        unchanged = all(record is not None for _, record in plan)
        rewrite = (
            not unchanged
            or old is None
            or any(
                not planning.aggregate_current(
                    old, name, planning.aggregate_fingerprint(self.theme + self.repos_state, plan), writer
                )
                for name in self.names
            )
        )
        deferred: set[str] = set()
        if rewrite and old is not None:
            deferred = {
                n
                for n in self.names
                if n in defer and n in old.aggregates and planning.aggregate_published(old, n, writer)
            }
        active = [
            (name, factory(replace(self.config, cache_dir=self.cache_dir)))  # the cache folder this build uses
            for factory, name in zip(self.factories, self.names)
            if rewrite and name not in deferred
        ]
        return _Aggregates(rewrite, active)

    # ---- sources

    def take_sources(
        self, plan: Plan, writer: SiteWriter, aggregates: _Aggregates, progress: ProgressHook | None
    ) -> None:
        """Each source in archive order: its fresh rendering, or what the cache kept of it."""
        tasks = [
            SourceTask(key, claim.reader.name, claim.path, self.problems.root, claim.group, (), self.trusted)
            for (key, claim), record in plan
            if record is None
        ]
        fresh = self._render(tasks, writer)
        for done, ((key, claim), record) in enumerate(plan):
            if progress:
                progress(done, len(plan), self.problems.display(claim.path))
            if record is None:
                record = self._take_result(claim, next(fresh), writer, aggregates)
            else:
                record = self._take_cached(key, claim, record, writer, aggregates)
            self.new.sources[key] = record
        if progress:
            progress(len(plan), len(plan), "")

    def _render(self, tasks: list[SourceTask], writer: SiteWriter) -> Iterator[SourceResult]:
        if not tasks:
            return iter(())
        jobs = self.config.jobs or default_jobs()
        if sum(planning.file_size(t.path) for t in tasks) < PARALLEL_MIN_BYTES:
            jobs = 1
        context = self.context.with_spool(writer.spool_dir())  # workers render pages into files there
        return run_sources(tasks, context, self.factories, jobs)

    def _take_cached(
        self, key: str, claim: Claim, record: SourceRecord, writer: SiteWriter, aggregates: _Aggregates
    ) -> SourceRecord:
        items = build_cache.load_items(self.cache_dir, key, aggregates.names)
        if any(name not in items.get(s.id, {}) for s in record.sessions for name in aggregates.names):
            # Damaged or missing cache items: render this source again, here.
            return self._take_result(claim, self._render_here(key, claim, writer), writer, aggregates)
        if any(self._taken(s.id) for s in record.sessions):  # another source now has one of its ids
            return self._take_result(claim, self._render_here(key, claim, writer), writer, aggregates)
        self.problems.items.extend(record.problems)
        self.report.redactions.update(record.redactions)
        self.report.excluded += record.excluded
        self.learned.update(record.learned)
        for s in record.sessions:
            for url in (s.url, *s.parts, *s.extra):
                writer.keep(url)
            self._feed(s, claim, aggregates, items.get(s.id, {}))
        return record

    def _take_result(
        self, claim: Claim, result: SourceResult, writer: SiteWriter, aggregates: _Aggregates
    ) -> SourceRecord:
        self._drop_copies(result)
        clashes = [s.id for s in result.sessions if self._taken(s.id)]
        if clashes:
            for s in result.sessions:
                discard(s.pages)
                discard(s.extra)
            result = self._render_here(result.key, claim, writer, self._copy_ids(clashes, claim))
            self._drop_copies(result, quiet=True)
        record = planning.source_record(claim, result, self.cache_dir, self.names, self.digests.pop(result.key, None))
        self.problems.items.extend(result.problems)
        self.report.redactions.update(result.redactions)
        self.report.excluded += result.excluded
        self.learned.update(result.learned)
        self.snippet_leaks += result.snippet_leaks
        items = {s.id: s.items for s in result.sessions}
        for s in result.sessions:
            if s.pages is not None:
                for url, path in [*s.pages, *s.extra]:  # part 1 (the session's URL), later parts, parts.js, exports
                    writer.write_file(url, path)
                self._feed(s, claim, aggregates, items[s.id])
        return record

    def _drop_copies(self, result: SourceResult, quiet: bool = False) -> None:
        """Leave out sessions identical to one another source published (a copied file)."""
        copies = [s for s in result.sessions if s.id in self.owners and self._same_as_owner(s)]
        for s in copies:
            discard(s.pages)
            discard(s.extra)
            if not quiet:
                self.problems.add(
                    s.source, s.line, f"session {s.id} is an identical copy of {self.owners[s.id]}; skipped", "render"
                )
        result.sessions = [s for s in result.sessions if s not in copies]

    def _same_as_owner(self, s: RenderedSession) -> bool:
        """The session another source published under this id, word for word (a copied file)."""
        owner = self.summaries.get(s.id)
        return owner is not None and replace(owner, source="") == replace(s.summary, source="")

    def _render_here(
        self, key: str, claim: Claim, writer: SiteWriter, renames: dict[str, str] | None = None
    ) -> SourceResult:
        """Render one source in this process (a damaged cache entry, or ids to rename)."""
        worker = SourceWorker(self.context.with_spool(writer.spool_dir()), self.factories)
        task = SourceTask(
            key,
            claim.reader.name,
            claim.path,
            self.problems.root,
            claim.group,
            tuple((renames or {}).items()),
            self.trusted,
        )
        return worker.run(task)

    @property
    def trusted(self) -> tuple[str, ...]:
        return tuple(sorted(self.problems.trusted))

    def _taken(self, session_id: str) -> bool:
        """May a session not be published under this id? Another source has it, or one that
        differs only in case (one file on macOS and Windows), or Windows reserves it (``nul``)."""
        return (
            session_id in self.owners
            or self.folded.get(session_id.casefold(), session_id) != session_id
            or reserved_on_windows(session_id)
        )

    def _copy_ids(self, clashes: list[str], claim: Claim) -> dict[str, str]:
        """New ids for sessions another source already published under their ids (or ids that
        differ only in case, or that Windows reserves): both are kept (different files that
        merely share an id), and a problem says so."""
        renames: dict[str, str] = {}
        for session_id in clashes:
            new_id = copy_id(session_id, str(claim.path), self.owners.keys() | renames.values())
            renames[session_id] = new_id
            owner = self.owners.get(session_id) or self.owners.get(self.folded.get(session_id.casefold(), ""))
            why = f"already read from {owner}" if owner else "a name Windows reserves"
            if owner and session_id not in self.owners:
                why = f"differs only in case from one read from {owner}"
            self.problems.add(
                claim.path, None, f"session id {session_id} {why}; this file's session is kept as {new_id}", "render"
            )
        return renames

    def _feed(
        self, s: RenderedSession | SessionRecord, claim: Claim, aggregates: _Aggregates, items: dict[str, Any]
    ) -> None:
        """Count a published session and hand its items to the active aggregates, in archive order."""
        self.owners[s.id] = s.source
        self.folded.setdefault(s.id.casefold(), s.id)
        self.summaries[s.id] = s.summary
        self.report.sessions += 1
        self.catalog.append(CatalogEntry(s.summary, claim.reader.name, claim.path, claim.group))
        for name, aggregate in aggregates.active:
            if name in items:
                aggregate.add(items[name])

    # ---- aggregates, static files, publishing

    def write_aggregates(self, writer: SiteWriter, aggregates: _Aggregates) -> None:
        """Write the active aggregates; keep the files of the others (deferred ones are marked stale)."""
        fingerprint = planning.aggregate_fingerprint(
            self.theme + self.repos_state, [((key, None), rec) for key, rec in self.new.sources.items()]
        )
        if aggregates.active:
            renderer = self.context.renderer()
            for name, aggregate in aggregates.active:
                before = set(writer.written)
                aggregate.write(writer, renderer, self.problems)
                self.new.aggregates[name] = (fingerprint, sorted(set(writer.written) - before))
        for name in self.names:
            if name in aggregates.names:
                continue
            assert self.old is not None  # nothing to rewrite, or deferred: both need a previous build
            stale = aggregates.rewrite  # deferred: keep its files, and its old fingerprint so the next build redoes it
            old_fingerprint, urls = self.old.aggregates[name]
            self.new.aggregates[name] = (old_fingerprint if stale else fingerprint, urls)
            for url in urls:
                writer.keep(url)
            if stale:
                self.report.deferred.append(name)

    def write_static(self, writer: SiteWriter, rewrite: bool) -> None:
        writer.copy_tree(static_dir(), STATIC_FOLDER, minified)
        for user_static in self.config.static_dirs:
            writer.copy_tree(user_static, STATIC_FOLDER)
        if not rewrite and PYGMENTS_CSS_URL in writer.previous:
            writer.keep(PYGMENTS_CSS_URL)  # same theme, same highlighting styles
        else:
            writer.write(PYGMENTS_CSS_URL, minified("pygments.css", pygments_css().encode()))
        writer.write(".nojekyll", b"")

    def unlock_page(self, roots: list[str], page: str) -> str:
        """The plain page at an encrypted page's address (the same for every page at one depth)."""
        made = self.unlock_pages.get((tuple(roots), page))
        if made is None:
            template = self.context.renderer().env.get_template("unlock.html")
            made = self.unlock_pages[tuple(roots), page] = template.render(roots=roots, page=page)
        return made

    def start_scan(self, writer: SiteWriter) -> EarlyScan | None:
        """The scan of what the sources wrote, started in a process of its own (not with ``jobs = 1``)."""
        if (self.config.jobs or default_jobs()) < 2:
            return None
        return start_early_scan(writer, self.config, self._scan_only_new(), self.learned)

    def _plain_names(self) -> dict[str, str]:
        """An encrypted build's hashed session addresses, each with its plain one (for the leak report)."""
        with opaque_urls(None):
            plain = {sid: session_url(sid) for sid in self.summaries}
        return {session_url(sid): f"{url} → {session_url(sid)}" for sid, url in plain.items()}

    def scan_output(self, writer: SiteWriter, early: EarlyScan | None = None) -> bool:
        """Scan the staged site for what redaction missed (``output_scan``); False: do not publish.
        Kept files were scanned when published, if the cache says that build's scan passed."""
        jobs = self.config.jobs or default_jobs()
        leaks = scan_site(writer, self.config, self._scan_only_new(), jobs, early, self.learned, self.snippet_leaks)
        if leaks:
            if self.vault is not None:  # a hashed address says nothing to the user: name the session too
                leaks = [replace(leak, url=self._plain_names().get(leak.url, leak.url)) for leak in leaks]
            if self.told is None:  # (the first build: the values may stand in the model's text)
                spread = learned_elsewhere.spread(self.config, leaks)
                self.again = (spread, learned_elsewhere.told(leaks)) if spread is not None else None
            self.report.leaks = leak_lines(leaks)
            return False
        for where, message in self.told or ():
            self.problems.add(where, None, message, "scan", full=True)
        self.new.scanned = self.config.redact
        return True

    def _scan_only_new(self) -> bool:
        return self.old is not None and self.old.scanned

    def publish(self, writer: SiteWriter) -> None:
        report = self.report
        report.changed_urls = writer.changed_urls | writer.removed_urls
        report.changed = writer.commit()
        report.sizes = writer.sizes
        report.pages = len(writer.written)
        report.published = True
        report.problems = self.problems.items
        report.cache_dir = self.cache_dir

    def save_cache(self) -> None:
        try:
            build_cache.save(self.cache_dir / "build.pickle", self.new)
            keep = {build_cache.items_path(self.cache_dir, key).name for key in self.new.sources}
            build_cache.prune_items(self.cache_dir, keep)
        except OSError as exc:
            self.problems.add(
                self.cache_dir,
                None,
                f"could not save the build cache ({exc.strerror or exc}); the next build will be a full one",
                "write",
            )
