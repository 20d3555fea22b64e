"""The only code that writes the site.

Every output is first written to a staging folder next to the site; nothing in the
published folder changes until the build has finished. Unchanged files are then
hard-linked from the published site into the staging folder (so they keep their
inode and mtime: live reload and rsync see them as untouched), and the staging
folder is swapped in whole (``swap.swap_in``: an atomic exchange where the platform
has one). At every instant the site folder holds one whole build, the old or the
new. A build that dies midway leaves the previous site untouched and its work
folders are removed by the next build (``staging``); a build that changes nothing
writes nothing.
"""

from __future__ import annotations

import errno
import itertools
import os
import secrets
import shutil
from collections.abc import Callable, Iterable
from contextlib import suppress
from pathlib import Path
from types import TracebackType

from sessite.publish.staging import SITE_MARKER, Steps, WorkFolder, clean_leftovers, site_of
from sessite.publish.swap import recover, swap_in

MARKER = SITE_MARKER  # written into every site; we only ever replace a folder that has it
_MARKER_TEXT = b"This folder was written by sessite and is replaced on every build.\n"


class OutputError(Exception):
    """The output folder cannot be used (it is the input, or holds someone else's files)."""


class PublishError(OSError):
    """Writing the site failed (disk full, read-only, permission denied…) and the previous site is as it was.

    ``str()`` is the one line to show: what could not be done, to which path, and why. It
    keeps the cause's errno and file name, and pickles (a worker process may raise it)."""

    message = ""

    @classmethod
    def of(cls, what: str, cause: OSError, output: Path | None = None) -> PublishError:
        reason = cause.strerror or str(cause)
        error = cls(cause.errno, reason, cause.filename)
        published = output is None or output.is_dir()
        left = "the previous site is left as it was" if published else "nothing was published"
        error.message = f"cannot {what}: {reason}; {left}"
        return error

    def __str__(self) -> str:
        return self.message or super().__str__()


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
    """Collects a build's outputs; publishes them atomically, or not at all when nothing changed.

    An OSError from the file system (full, read-only, permission denied) comes out as a
    PublishError naming the file; the caller aborts, which leaves the previous site."""

    def __init__(self, output: Path) -> None:
        self.output = output.resolve()
        self.steps = Steps.from_environment()  # tests stop a build at any step here
        try:
            recover(self.output, self.steps)  # a site a killed two-rename swap left aside
            clean_leftovers(self.output, self.steps)
            self.previous = published_files(self.output)
        except OSError as exc:
            raise PublishError.of(f"read {self.output}", exc, self.output) from None
        self.staging: Path | None = None
        self.written: set[str] = set()  # every URL this build produced
        self.kept: set[str] = set()  # produced, identical to the published copy
        self.sizes: dict[str, int] = {}  # url -> bytes of every file this build produced (kept ones too)
        self.changed_urls: set[str] = set()  # written with new bytes
        # --encrypt: whether the published site holds a URL (as its sealed copy and its unlock page)
        self.published_as: Callable[[str, dict[str, tuple[int, int]]], bool] | None = None
        self.missing: set[str] = set()  # asked to keep, not in the published site (``--encrypt`` keeps its sealed copy)
        self.spool: Path | None = None  # where pages are rendered to disk before write_file takes them
        self._work: dict[str, WorkFolder] = {}  # "staging", "spool"
        self._folders: set[str] = set()  # folders made in the staging folder

    def _stage(self) -> Path:
        if self.staging is None:
            self.staging = self._work_folder("staging").path
        return self.staging

    def _work_folder(self, kind: str) -> WorkFolder:
        try:
            folder = WorkFolder.create(self.output, kind, self.steps, 0o777 if kind == "staging" else 0o700)
        except OSError as exc:
            raise PublishError.of(f"create a {kind} folder beside {self.output}", exc, self.output) from None
        self._work[kind] = folder
        return folder

    def _target(self, url: str) -> Path:
        """Where ``url`` goes in the staging folder (its folder made)."""
        self._make_folder(url)
        return self._stage() / url

    def _make_folder(self, url: str) -> None:
        folder = url.rpartition("/")[0]
        if folder and folder not in self._folders:
            os.makedirs(f"{self._stage()}{os.sep}{folder}", exist_ok=True)
            self._folders.add(folder)

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
        self.sizes[url] = len(data)
        if self._same_as_published(url, data):
            self.kept.add(url)
            return
        self.changed_urls.add(url)
        try:
            target = self._target(url)
            self.steps("write")
            with open(target, "wb") as fh:
                fh.write(data)
        except PublishError:
            raise
        except OSError as exc:
            raise PublishError.of(f"write {self.output / url}", exc, self.output) from None

    def spool_dir(self) -> Path:
        """A private folder beside the site (same file system as the staging folder) for
        files rendered straight to disk, e.g. by worker processes; removed at commit or abort."""
        if self.spool is None:
            self.spool = self._work_folder("spool").path
        return self.spool

    def write_file(self, url: str, path: Path) -> None:
        """``write`` for a finished file: moved in (or dropped when the published copy is the same),
        never read into memory whole, so a big page costs no memory here."""
        self._claim(url)
        try:
            size = path.stat().st_size
            self.sizes[url] = size
            known = self.previous.get(url)
            if known is not None and known[0] == size and _same_file(path, self.output / url):
                self.kept.add(url)
                path.unlink(missing_ok=True)
                return
            self.changed_urls.add(url)
            target = self._target(url)
            self.steps("move")
            shutil.move(path, target)  # a rename: the spool folder sits beside the staging folder
        except PublishError:
            raise
        except OSError as exc:
            raise PublishError.of(f"write {self.output / url}", exc, self.output) from None

    def published(self, url: str) -> bool:
        """Is ``url`` in the published site (an encrypted site: in the form ``published_as`` says)?"""
        return url in self.previous if self.published_as is None else self.published_as(url, self.previous)

    def staged_bytes(self, url: str) -> bytes:
        """This build's bytes of ``url`` (staged, or the published copy kept as it is)."""
        return self.current_path(url).read_bytes()

    def replace(self, url: str, data: bytes | str) -> None:
        """Give a URL this build wrote other bytes (``--encrypt``: the plain page becomes its unlock
        page); bytes the published copy already has leave that file untouched."""
        self.drop(url)
        self.write(url, data)

    def drop(self, url: str) -> None:
        """Take back a URL this build wrote: it is not published (its staged file goes)."""
        if url not in self.written:
            return
        self.written.discard(url)
        self.kept.discard(url)
        self.sizes.pop(url, None)
        if url in self.changed_urls:
            self.changed_urls.discard(url)
            if self.staging is not None:
                try:
                    (self.staging / url).unlink(missing_ok=True)
                except OSError as exc:
                    raise PublishError.of(f"write {self.output / url}", exc, self.output) from None
                self._drop_empty_folders(url)

    def _drop_empty_folders(self, url: str) -> None:
        """Remove the folders of a dropped file that it leaves empty (an empty folder tells its name)."""
        folder = url.rpartition("/")[0]
        while folder and self.staging is not None:
            try:
                os.rmdir(self.staging / folder)
            except OSError:
                return  # not empty
            self._folders.discard(folder)
            folder = folder.rpartition("/")[0]

    def keep(self, url: str) -> bool:
        """Reuse the published file as it is (the cache knows it is current).

        Returns False when there is no published copy, so the caller must write it.
        """
        if url not in self.previous:
            self.missing.add(url)
            return False
        self._claim(url)
        self.kept.add(url)
        self.sizes[url] = self.previous[url][0]
        return True

    def copy_tree(self, source: Path, prefix: str, transform: Callable[[str, bytes], bytes] | None = None) -> None:
        """Copy a folder of static files under ``prefix`` (later copies override earlier);
        ``transform`` (path under ``source``, bytes) → the bytes to write."""
        for path in sorted(source.rglob("*")):
            if path.is_file() and not path.name.startswith("."):
                relative = path.relative_to(source).as_posix()
                url = f"{prefix}/{relative}"
                if url in self.written:  # user static files may override the package's
                    self.written.discard(url)
                    self.kept.discard(url)
                    self.changed_urls.discard(url)
                    if self.staging is not None:
                        (self.staging / url).unlink(missing_ok=True)
                data = path.read_bytes()
                self.write(url, transform(relative, data) if transform is not None else data)

    def current_path(self, url: str) -> Path:
        """Where this build's copy of ``url`` is before publishing: the staging folder for new
        bytes, the published site for a file kept as it is."""
        if url in self.changed_urls and self.staging is not None:
            return self.staging / url
        return self.output / url

    @property
    def unchanged(self) -> bool:
        """True when publishing would change nothing: same files, same bytes."""
        return not self.changed_urls and set(self.previous) == self.written | {MARKER}

    @property
    def removed_urls(self) -> set[str]:
        return set(self.previous) - self.written - {MARKER}

    def commit(self) -> bool:
        """Publish. Returns False when nothing changed (and nothing was touched)."""
        self._drop_spool()
        if MARKER not in self.written:
            self.write(MARKER, _MARKER_TEXT)
        if self.unchanged:
            self.abort()  # a staging folder emptied by an override (copy_tree) goes
            return False
        staging = self._stage()
        self._link_kept()
        folder = self._work["staging"]
        try:
            folder.go_live(self.output, self.steps)
            old = swap_in(staging, self.output, self.steps)
        except OSError as exc:
            raise PublishError.of(f"publish {self.output}", exc, self.output) from None
        del self._work["staging"]  # it is the site now
        self.staging = None
        folder.release()
        if old is not None:
            _best_effort(self.steps, "remove-old", old)
        return True

    def _link_kept(self) -> None:
        """Hard-link every unchanged file of the published site into the staging folder
        (same inode, same mtime; a copy where the file system has no hard links). Plain
        strings: this runs for every file of the site on every publish."""
        published, staging = f"{self.output}{os.sep}", f"{self._stage()}{os.sep}"
        for url in sorted(self.kept):
            source, target = published + url, staging + url
            try:
                self._make_folder(url)
                self.steps("link")
                try:
                    os.link(source, target)
                except OSError as exc:
                    if _disk_fault(exc):
                        raise
                    shutil.copy2(source, target)
            except OSError as exc:
                raise PublishError.of(f"write {self.output / url}", exc, self.output) from None

    def _drop_spool(self) -> None:
        folder = self._work.pop("spool", None)
        if folder is not None:
            folder.release()
            _best_effort(self.steps, "drop-spool", folder.path)
        self.spool = None

    def abort(self) -> None:
        """Forget this build: its work folders go, the published site stays as it is."""
        for kind in list(self._work):
            self._work.pop(kind).remove()
        self.spool = self.staging = None

    def __enter__(self) -> SiteWriter:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
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


def _best_effort(steps: Steps, step: str, folder: Path) -> None:
    """Delete a folder nobody needs any more; what cannot go now, the next build removes."""
    with suppress(OSError):
        steps(step)
        shutil.rmtree(folder)


_DISK_FAULTS = frozenset({errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC), errno.EROFS, errno.EIO})


def _disk_fault(exc: OSError) -> bool:
    """An error a copy would hit as well (so no copy is tried)."""
    return exc.errno in _DISK_FAULTS


SPOOL_BATCH = 1 << 18  # characters of text encoded and written at once
_spooled = itertools.count()


def spool_file(folder: Path, chunks: Iterable[str | bytes]) -> Path:
    """Write text (as UTF-8) or bytes, given in pieces, to a new file of a spool folder
    (``SiteWriter.spool_dir``), batching small pieces; the file's path, for
    ``SiteWriter.write_file``. Safe to call from several processes at once: names carry
    the process id. A failing disk raises PublishError (not a page's fault: callers
    that drop a page on an error let it through); what the chunks raise comes as it is."""
    path = folder / f"{os.getpid()}-{next(_spooled)}-{secrets.token_hex(4)}.part"
    spooled = _Spooled(path)
    try:
        batch: list[str] = []
        size = 0
        for chunk in chunks:
            if isinstance(chunk, bytes):
                spooled.write("".join(batch).encode("utf-8"))
                batch.clear()
                size = 0
                spooled.write(chunk)
                continue
            batch.append(chunk)
            size += len(chunk)
            if size >= SPOOL_BATCH:
                spooled.write("".join(batch).encode("utf-8"))
                batch.clear()
                size = 0
        spooled.write("".join(batch).encode("utf-8"))
        spooled.close()
    except BaseException:
        spooled.discard()
        raise
    return path


class _Spooled:
    """One spool file; its OSErrors come out as PublishError naming the site."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            # not mkstemp: a published page needs the usual permissions; closed by close() or discard()
            self.fh = open(path, "xb")  # noqa: SIM115
        except OSError as exc:
            raise self._error(exc) from None

    def write(self, data: bytes) -> None:
        try:
            self.fh.write(data)
        except OSError as exc:
            raise self._error(exc) from None

    def close(self) -> None:
        try:
            self.fh.close()
        except OSError as exc:
            raise self._error(exc) from None

    def discard(self) -> None:
        with suppress(OSError):
            self.fh.close()
        self.path.unlink(missing_ok=True)

    def _error(self, exc: OSError) -> PublishError:
        site = site_of(self.path.parent)
        return PublishError.of(f"write {site or self.path.parent}", exc, site)


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
