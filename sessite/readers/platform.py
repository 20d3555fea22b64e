"""The facts an agent's default folders depend on: a home folder, the environment, the system.

Kept apart from ``locations`` so each reader can say where its agent keeps
sessions (``Reader.default_folders``) without importing discovery.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Platform:
    """The facts the default folders depend on."""

    home: Path
    env: Mapping[str, str] = field(default_factory=dict)
    system: str = "linux"  # linux, darwin or windows

    def var(self, name: str) -> Path | None:
        value = self.env.get(name)
        return Path(value).expanduser() if value else None

    @property
    def config_dirs(self) -> list[Path]:
        """Where desktop apps keep their settings (VS Code's ``User`` folders live here)."""
        dirs = [self.var("XDG_CONFIG_HOME") or self.home / ".config", self.home / "Library" / "Application Support"]
        if self.system == "windows" or self.env.get("APPDATA"):
            dirs.insert(0, self.var("APPDATA") or self.home / "AppData" / "Roaming")
        return unique(dirs)

    @property
    def data_dirs(self) -> list[Path]:
        """XDG data folders (OpenCode and Amp use them on every system)."""
        dirs = [self.var("XDG_DATA_HOME") or self.home / ".local" / "share"]
        if self.system == "windows" or self.env.get("LOCALAPPDATA"):
            dirs.append(self.var("LOCALAPPDATA") or self.home / "AppData" / "Local")
        return unique(dirs)


def unique(paths: Iterable[Path]) -> list[Path]:
    """``paths`` without repeats, in order."""
    return list(dict.fromkeys(paths))
