"""Trae Agent trajectories (``bytedance/trae-agent``, Python and Rust ports). The TRAE CLI's
sessions are Codex rollouts, read by the ``codex`` reader.

Modules: ``trajectory`` (a trajectory's steps and interactions as events), ``reader``.
"""

from __future__ import annotations

from sessite.readers.formats.trae.reader import READER, TraeReader

__all__ = ["READER", "TraeReader"]
