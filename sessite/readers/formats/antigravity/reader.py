"""The Google Antigravity reader: which folders and files are Antigravity's, what each consumes,
where Antigravity keeps them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from sessite.model import Problems, Session
from sessite.readers.base import Reader, Sniff
from sessite.readers.formats.antigravity import extras, layout
from sessite.readers.formats.antigravity.session import brain_session, log_session
from sessite.readers.formats.antigravity.vocabulary import AGENT, ANNOTATIONS, BRAIN, HOMES, NAME, SIDE_FOLDERS
from sessite.readers.platform import Platform


class AntigravityReader(Reader):
    name = NAME
    agent = AGENT
    claims_directories = True  # a brain folder ...
    claims_files = True  # ... a transcript on its own, an encrypted conversation file

    def detect(self, sniffed: Sniff) -> bool:
        if sniffed.is_dir:
            return layout.is_brain_folder(sniffed.path)
        path = sniffed.path
        return layout.is_encrypted(path) or layout.is_annotations(path) or layout.is_step_log(sniffed)

    def companions(self, path: Path) -> list[Path]:
        """A brain folder's files and its conversation's encrypted files beside ``brain/`` (not its
        annotations: a walk meets ``annotations/`` first, and claims them on their own)."""
        if not path.is_dir():
            return []
        side = [p for kind, p in layout.side_files(path).items() if kind != "annotations"]
        return layout.brain_files(path) + side

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        if path.is_dir():
            session = brain_session(path, problems)
        elif layout.is_encrypted(path):
            extras.encrypted_alone(path, problems)
            return
        elif layout.is_annotations(path):
            extras.annotations_alone(path, problems)
            return
        else:
            session = log_session(path, problems)
        if session is not None:
            yield session

    def default_folders(self, plat: Platform) -> list[Path]:
        """``~/.gemini/antigravity`` (and ``antigravity-cli``, ``antigravity-ide``) on every system."""
        return [plat.home / ".gemini" / home for home in HOMES]

    def discovery_roots(self, folder: Path) -> tuple[Path, ...]:
        """The brain folders first (they consume their conversation's encrypted files), then the
        encrypted conversations and annotations of those that have none; not the browser
        recordings, settings or skills."""
        parts = [folder / name for name in (BRAIN, *SIDE_FOLDERS, ANNOTATIONS) if (folder / name).is_dir()]
        return tuple(parts) or (folder,)


READER = AntigravityReader()
