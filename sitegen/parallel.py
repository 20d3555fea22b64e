"""One way to run work on every core."""

from __future__ import annotations

import os
from typing import Any


def aggregate_jobs(config: Any, cap: int = 4) -> int:
    """Processes a site-wide output may fork for its own work (search chunks, ref pages):
    the build's ``jobs``, else one per core, at most ``cap``."""
    return max(1, min(getattr(config, "jobs", 0) or os.cpu_count() or 1, cap))
