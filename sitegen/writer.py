"""The only code that writes the site.

A build never edits the published folder in place. The first output whose
bytes differ from the published copy starts a staging folder next to the
output; at the end, unchanged files are hard-linked into it (keeping their
mtimes) and the staging folder is swapped in. A build that dies midway leaves
the previous site untouched, and a build that changes nothing writes nothing.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

MARKER = ".sessite-site"  # written into every site; we only ever replace a folder that has it
_MARKER_TEXT = b"This folder was written by sessite and is replaced on every build.\n"


class OutputError(Exception):
    """The output folder cannot be used (it is the input, or holds someone else's files)."""


def check_output(archive: Path, output: Path) -> None:
    """Refuse outputs that would write inside the input or destroy unrelated files."""
    archive, output = archive.resolve(), output.resolve()
    if output == archive or archive in output.parents:
        raise OutputError(f"the output folder {output} is inside the archive {archive}; sessite never writes into its input")
    if output in archive.parents:
        raise OutputError(f"the archive {archive} is inside the output folder {output}; replacing the site would delete it")
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
        target = self._stage() / url
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "wb") as fh:
            fh.write(data)

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

    def commit(self) -> bool:
        """Publish. Returns False when nothing changed (and nothing was touched)."""
        if MARKER not in self.written:
            self.write(MARKER, _MARKER_TEXT)
        if self.unchanged:
            return False
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

    def abort(self) -> None:
        if self.staging is not None:
            shutil.rmtree(self.staging, ignore_errors=True)
            self.staging = None

    def __enter__(self) -> "SiteWriter":
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
