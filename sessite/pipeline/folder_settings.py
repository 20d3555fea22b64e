"""What a build, a conversion or the preview leaves out: the archive's ``exclude_sessions`` and
``hide_events``, plus those of a ``sessite.toml`` in a session's own folder.

A folder's file adds to the archive's lists (it can hide more, never show what the
archive hides) and applies to the sessions read from that folder. A folder file that
cannot be read leaves its sessions out, with a problem that says why: a typo must not
publish what the user meant to hide.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from sessite.analyze.leave_out import HideRule, hide_events, is_excluded
from sessite.config import CONFIG_NAME, ConfigFileError, SiteConfig, load_config_file
from sessite.model import Problems, Session

FOLDER_KEYS = ("exclude_sessions", "hide_events")


@dataclass(frozen=True)
class _Rules:
    exclude: tuple[str, ...] = ()
    hide: tuple[HideRule, ...] = ()
    error: str | None = None  # the folder's sessite.toml cannot be used


@dataclass
class LeaveOut:
    """The archive's rules and each session folder's own (read once per folder)."""

    exclude: tuple[str, ...] = ()
    hide: tuple[HideRule, ...] = ()
    roots: tuple[Path, ...] = ()  # archive folders: their sessite.toml is the archive's own settings
    excluded: int = 0  # sessions this one left out
    _folders: dict[Path, _Rules] = field(default_factory=dict)

    @classmethod
    def for_config(cls, config: SiteConfig) -> LeaveOut:
        return cls(config.exclude_sessions, config.hide_events, archive_folders([config.archive, *config.archives]))

    def session(self, session: Session, read_id: str, source: Path, problems: Problems) -> Session | None:
        """``session`` (redacted, read from ``source`` with the id ``read_id``) without its hidden
        events, or None when it is left out."""
        rules = self.rules_for(source)
        if rules.error is not None:
            shown = problems.display(session_folder(source) / CONFIG_NAME)
            problems.add(source, None, f"left out: {shown}: {rules.error}", "read")
        elif not is_excluded({read_id, session.id}, (*self.exclude, *rules.exclude)):
            return hide_events(session, (*self.hide, *rules.hide))
        self.excluded += 1
        return None

    def rules_for(self, source: Path) -> _Rules:
        folder = session_folder(source)
        found = self._folders.get(folder)
        if found is None:
            found = self._folders[folder] = _Rules() if folder in self.roots else _folder_rules(folder)
        return found


def archive_folders(archives: Iterable[Path]) -> tuple[Path, ...]:
    return tuple(a.resolve() if a.is_dir() else a.resolve().parent for a in archives)


def session_folder(source: Path) -> Path:
    """The folder whose sessite.toml applies to a source: the folder holding the session file,
    or the source itself when a format keeps a session as a folder."""
    source = source.resolve()
    return source if source.is_dir() else source.parent


def folder_settings(source: Path) -> list[Path]:
    """The settings file of a source's folder (present or not): part of the source for the
    build cache, so editing it renders the source again."""
    return [session_folder(source) / CONFIG_NAME]


def _folder_rules(folder: Path) -> _Rules:
    path = folder / CONFIG_NAME
    if not path.is_file():
        return _Rules()
    try:
        settings = load_config_file(path)
    except ConfigFileError as exc:
        return _Rules(error=str(exc).removeprefix(f"{path}: "))
    other = [key for key in settings if key not in FOLDER_KEYS]
    if other:
        return _Rules(
            error=f"a session folder's {CONFIG_NAME} may hold only {' and '.join(FOLDER_KEYS)} "
            f"('{other[0]}' belongs in the archive's)"
        )
    return _Rules(settings.get("exclude_sessions", ()), settings.get("hide_events", ()))
