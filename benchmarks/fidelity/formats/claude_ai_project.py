"""claude.ai projects (``projects/<uuid>.json``, or the older ``projects.json`` list), read straight
from the file (independently of the reader).

Each project is one record, numbered by its 1-based place (1 for a file of one project). A
project holds no conversation: no user or assistant texts, no calls; what a page must show is
the project itself (its description, ``prompt_template`` and ``docs``), which the fidelity
check counts as the record being shown.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..records import Record, json_document


def records(path: Path) -> Iterator[Record]:
    data = json_document(path)
    projects = data if isinstance(data, list) else [data] if isinstance(data, dict) else []
    for index, project in enumerate(projects, 1):
        if isinstance(project, dict):
            yield Record(path, index, "project")
