"""OpenHands: V1 conversation folders (``base_state.json`` + ``events/``), legacy event
folders and trajectories (a JSON array of events).

Modules by job: ``vocabulary`` (tool categories, diffs, what is left out), ``state`` (the
builder: calls, results, usage once per response), ``legacy`` (the action/observation
stream), ``sdk`` (the V1 SDK's event kinds), ``reader`` (the Reader).
"""

from __future__ import annotations

from sessite.readers.formats.openhands.reader import READER, OpenHandsReader

__all__ = ["READER", "OpenHandsReader"]
