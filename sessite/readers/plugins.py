"""Readers from other packages: the ``sessite.readers`` entry-point group.

A package adds a format without a fork by naming its reader in its ``pyproject.toml``::

    [project.entry-points."sessite.readers"]
    myformat = "my_package.reader:READER"

The object is a ``Reader`` instance (or a ``Reader`` subclass, made with no arguments). Plugins
come after the built-in readers, so they never take a file a built-in format claims. A plugin
that fails to import, is not a Reader, or reuses a reader's name is left out and becomes one
problem line of every build: a bad plugin never stops a build. Once loaded, a plugin reader runs
inside the same guard as the built-ins (a bug in its ``detect`` or ``read`` is a problem line).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points

from sessite.readers.base import Reader

ENTRY_POINT_GROUP = "sessite.readers"


@dataclass(frozen=True)
class PluginError:
    """A plugin left out: the entry point's name and why."""

    name: str
    message: str


def plugin_readers(
    taken: Iterable[str], found: Iterable[EntryPoint] | None = None
) -> tuple[tuple[Reader, ...], tuple[PluginError, ...]]:
    """The readers the installed packages declare (sorted by entry-point name), and the ones left out.

    ``taken``: the names already in use (the built-ins'); ``found``: the entry points (default:
    those installed)."""
    names = set(taken)
    readers: list[Reader] = []
    errors: list[PluginError] = []
    points = entry_points(group=ENTRY_POINT_GROUP) if found is None else found
    for point in sorted(points, key=lambda p: p.name):
        reader, error = _load(point, names)
        if error:
            errors.append(PluginError(point.name, error))
        elif reader is not None:
            names.add(reader.name)
            readers.append(reader)
    return tuple(readers), tuple(errors)


def _load(point: EntryPoint, names: set[str]) -> tuple[Reader | None, str]:
    try:
        found = point.load()
        if isinstance(found, type) and issubclass(found, Reader):
            found = found()
    except Exception as exc:  # noqa: BLE001 - a broken plugin is a problem line, never the end of a build
        return None, f"reader plugin {point.value} cannot be loaded ({type(exc).__name__}: {exc}); left out"
    if not isinstance(found, Reader):
        return None, f"reader plugin {point.value} is a {type(found).__name__}, not a sessite Reader; left out"
    if not isinstance(found.name, str) or not found.name:
        return None, f"reader plugin {point.value} has no name; left out"
    if found.name in names:
        return None, f"reader plugin {point.value} is named {found.name!r} like another reader; left out"
    return found, ""
