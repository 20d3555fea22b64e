"""The only code that writes the site.

A build writes into a staging folder next to the output and swaps it into
place only when the build finished, so a build that dies midway leaves the
previous site untouched. Files whose bytes did not change are hard-linked from
the previous site, which keeps their mtimes (and live reload) quiet.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

MARKER = ".sessite-site"  # written into every site; we only ever replace a folder that has it


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


class SiteWriter:
    """Writes pages into a staging folder, then publishes it atomically."""

    def __init__(self, output: Path) -> None:
        self.output = output.resolve()
        self.output.parent.mkdir(parents=True, exist_ok=True)
        self.staging = Path(tempfile.mkdtemp(prefix=f".{self.output.name}.staging-", dir=self.output.parent))
        self.written: set[str] = set()
        self.bytes_written = 0
        self.changed = 0

    def write(self, url: str, data: bytes | str) -> None:
        """Write one output file; a second write to the same URL is an error."""
        if url in self.written:
            raise ValueError(f"two pages want the same URL: {url}")
        if isinstance(data, str):
            data = data.encode("utf-8")
        self.written.add(url)
        target = self.staging / url
        target.parent.mkdir(parents=True, exist_ok=True)
        self.bytes_written += len(data)
        previous = self.output / url
        if _same_bytes(previous, data):
            try:
                os.link(previous, target)
                return
            except OSError:
                pass
        self.changed += 1
        with open(target, "wb") as fh:
            fh.write(data)

    def copy_tree(self, source: Path, prefix: str) -> None:
        """Copy a folder of static files under ``prefix`` (later copies override earlier)."""
        for path in sorted(source.rglob("*")):
            if path.is_file() and not path.name.startswith("."):
                url = f"{prefix}/{path.relative_to(source).as_posix()}"
                self.written.discard(url)  # user static files may override the package's
                self.write(url, path.read_bytes())

    def commit(self) -> None:
        """Swap the staging folder into place; the old site is removed after."""
        self.write(MARKER, b"This folder was written by sessite and is replaced on every build.\n")
        old = None
        if self.output.exists():
            old = self.output.parent / f".{self.output.name}.old-{os.getpid()}"
            os.replace(self.output, old)
        os.replace(self.staging, self.output)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)

    def abort(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)

    def __enter__(self) -> "SiteWriter":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is not None:
            self.abort()


def _same_bytes(path: Path, data: bytes) -> bool:
    try:
        if path.stat().st_size != len(data):
            return False
        return path.read_bytes() == data
    except OSError:
        return False
