"""The only code that writes the site.

Every output is first written to a staging folder next to the site; nothing
in the published folder changes until the build has finished. Then a large
change is published by hard-linking the unchanged files into the staging
folder (keeping their mtimes) and swapping it in; a small change by moving
each new file over its old copy (atomic per file). A build that dies midway
leaves the previous site untouched, and a build that changes nothing writes
nothing.
"""

from __future__ import annotations

import itertools
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

IN_PLACE_MAX = 50  # changes up to this many files (or 5% of the site) are published file by file
MARKER = ".sessite-site"  # written into every site; we only ever replace a folder that has it
_MARKER_TEXT = b"This folder was written by sessite and is replaced on every build.\n"


class OutputError(Exception):
    """The output folder cannot be used (it is the input, or holds someone else's files)."""


def check_output(archive: Path, output: Path) -> None:
    """Refuse outputs that would write inside the input or destroy unrelated files."""
    archive, output = archive.resolve(), output.resolve()
    if output == archive or archive in output.parents:
        raise OutputError(
            f"the output folder {output} is inside the archive {archive}; sessite never writes into its input"
        )
    if output in archive.parents:
        raise OutputError(
            f"the archive {archive} is inside the output folder {output}; replacing the site would delete it"
        )
    if output.exists():
        if not output.is_dir():
            raise OutputError(f"{output} exists and is not a folder")
        if any(output.iterdir()) and not (output / MARKER).exists():
            raise OutputError(f"{output} is not empty and was not made by sessite; choose an empty or new folder")


def published_files(output: Path) -> dict[str, tuple[int, int]]:
    """url -> (size, mtime_ns) of every file in the published site (plain os calls: this runs on every build)."""
    found: dict[str, tuple[int, int]] = {}
    root = str(output)
    if not os.path.isdir(root):
        return found
    stack = [("", root)]
    while stack:
        prefix, folder = stack.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                url = prefix + entry.name
                if entry.is_dir(follow_symlinks=False):
                    stack.append((url + "/", entry.path))
                else:
                    st = entry.stat(follow_symlinks=False)
                    found[url] = (st.st_size, st.st_mtime_ns)
    return found


class SiteWriter:
    """Collects a build's outputs; publishes them atomically, or not at all when nothing changed."""

    def __init__(self, output: Path) -> None:
        self.output = output.resolve()
        self.previous = published_files(self.output)
        self.staging: Path | None = None
        self.written: set[str] = set()  # every URL this build produced
        self.kept: set[str] = set()  # produced, identical to the published copy
        self.bytes_written = 0
        self.changed = 0
        self.changed_urls: set[str] = set()  # written with new bytes
        self.spool: Path | None = None  # where pages are rendered to disk before write_file takes them

    def _stage(self) -> Path:
        if self.staging is None:
            self.output.parent.mkdir(parents=True, exist_ok=True)
            self.staging = Path(tempfile.mkdtemp(prefix=f".{self.output.name}.staging-", dir=self.output.parent))
        return self.staging

    def _claim(self, url: str) -> None:
        if url in self.written:
            raise ValueError(f"two pages want the same URL: {url}")
        if url.startswith("/") or ".." in url.split("/"):
            raise ValueError(f"unsafe output path: {url}")
        self.written.add(url)

    def write(self, url: str, data: bytes | str) -> None:
        """Write one output file; a second write to the same URL is an error."""
        self._claim(url)
        if isinstance(data, str):
            data = data.encode("utf-8")
        self.bytes_written += len(data)
        if self._same_as_published(url, data):
            self.kept.add(url)
            return
        self.changed += 1
        self.changed_urls.add(url)
        target = self._stage() / url
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "wb") as fh:
            fh.write(data)

    def spool_dir(self) -> Path:
        """A private folder beside the site (same file system as the staging folder) for
        files rendered straight to disk, e.g. by worker processes; removed at commit or abort."""
        if self.spool is None:
            self.output.parent.mkdir(parents=True, exist_ok=True)
            self.spool = Path(tempfile.mkdtemp(prefix=f".{self.output.name}.spool-", dir=self.output.parent))
        return self.spool

    def write_file(self, url: str, path: Path) -> None:
        """``write`` for a finished file: moved in (or dropped when the published copy is the same),
        never read into memory whole, so a big page costs no memory here."""
        self._claim(url)
        size = path.stat().st_size
        self.bytes_written += size
        known = self.previous.get(url)
        if known is not None and known[0] == size and _same_file(path, self.output / url):
            self.kept.add(url)
            path.unlink(missing_ok=True)
            return
        self.changed += 1
        self.changed_urls.add(url)
        target = self._stage() / url
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(path, target)  # a rename: the spool folder sits beside the staging folder

    def keep(self, url: str) -> bool:
        """Reuse the published file as it is (the cache knows it is current).

        Returns False when there is no published copy, so the caller must write it.
        """
        if url not in self.previous:
            return False
        self._claim(url)
        self.kept.add(url)
        self.bytes_written += self.previous[url][0]
        return True

    def copy_tree(self, source: Path, prefix: str) -> None:
        """Copy a folder of static files under ``prefix`` (later copies override earlier)."""
        for path in sorted(source.rglob("*")):
            if path.is_file() and not path.name.startswith("."):
                url = f"{prefix}/{path.relative_to(source).as_posix()}"
                if url in self.written:  # user static files may override the package's
                    self.written.discard(url)
                    self.kept.discard(url)
                    if self.staging is not None:
                        (self.staging / url).unlink(missing_ok=True)
                self.write(url, path.read_bytes())

    @property
    def unchanged(self) -> bool:
        """True when publishing would change nothing: same files, same bytes."""
        return self.staging is None and set(self.previous) == self.written | {MARKER}

    @property
    def removed_urls(self) -> set[str]:
        return set(self.previous) - self.written - {MARKER}

    def commit(self) -> bool:
        """Publish. Returns False when nothing changed (and nothing was touched)."""
        self._drop_spool()
        if MARKER not in self.written:
            self.write(MARKER, _MARKER_TEXT)
        if self.unchanged:
            return False
        removed = self.removed_urls
        if self.output.is_dir() and len(self.changed_urls) + len(removed) <= max(
            IN_PLACE_MAX, len(self.previous) // 20
        ):
            self._commit_in_place(removed)
            return True
        staging = self._stage()
        for url in self.kept:
            target = staging / url
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(self.output / url, target)
            except OSError:
                shutil.copy2(self.output / url, target)
        old = None
        if self.output.exists():
            old = self.output.parent / f".{self.output.name}.old-{os.getpid()}"
            os.replace(self.output, old)
        os.replace(staging, self.output)
        self.staging = None
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return True

    def _commit_in_place(self, removed: set[str]) -> None:
        """A small change: move each new file over its old copy (os.replace is atomic per
        file, so no page is ever half-written), then drop the files no longer produced.
        Hard-linking thousands of unchanged files into a new folder would cost more than
        the change itself."""
        assert self.staging is not None
        for url in sorted(self.changed_urls):
            target = self.output / url
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(self.staging / url, target)
        for url in removed:
            (self.output / url).unlink(missing_ok=True)
        for url in removed:  # prune folders left empty
            folder = (self.output / url).parent
            while folder != self.output and folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
                folder = folder.parent
        shutil.rmtree(self.staging, ignore_errors=True)
        self.staging = None

    def _drop_spool(self) -> None:
        if self.spool is not None:
            shutil.rmtree(self.spool, ignore_errors=True)
            self.spool = None

    def abort(self) -> None:
        self._drop_spool()
        if self.staging is not None:
            shutil.rmtree(self.staging, ignore_errors=True)
            self.staging = None

    def __enter__(self) -> SiteWriter:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is not None:
            self.abort()

    def _same_as_published(self, url: str, data: bytes) -> bool:
        known = self.previous.get(url)
        if known is None or known[0] != len(data):
            return False
        try:
            return (self.output / url).read_bytes() == data
        except OSError:
            return False


SPOOL_BATCH = 1 << 18  # characters of text encoded and written at once
_spooled = itertools.count()


def spool_file(folder: Path, chunks: Iterable[str | bytes]) -> Path:
    """Write text (as UTF-8) or bytes, given in pieces, to a new file of a spool folder
    (``SiteWriter.spool_dir``), batching small pieces; the file's path, for
    ``SiteWriter.write_file``. Safe to call from several processes at once: names carry
    the process id."""
    path = folder / f"{os.getpid()}-{next(_spooled)}-{secrets.token_hex(4)}.part"
    try:
        with open(path, "xb") as fh:  # not mkstemp: a published page needs the usual permissions
            batch: list[str] = []
            size = 0
            for chunk in chunks:
                if isinstance(chunk, bytes):
                    fh.write("".join(batch).encode("utf-8"))
                    batch.clear()
                    size = 0
                    fh.write(chunk)
                    continue
                batch.append(chunk)
                size += len(chunk)
                if size >= SPOOL_BATCH:
                    fh.write("".join(batch).encode("utf-8"))
                    batch.clear()
                    size = 0
            fh.write("".join(batch).encode("utf-8"))
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return path


def _same_file(a: Path, b: Path, block: int = 1 << 20) -> bool:
    """Same bytes, read a block at a time (filecmp would keep a cache of every pair)."""
    try:
        with open(a, "rb") as fa, open(b, "rb") as fb:
            while True:
                x, y = fa.read(block), fb.read(block)
                if x != y:
                    return False
                if not x:
                    return True
    except OSError:
        return False
