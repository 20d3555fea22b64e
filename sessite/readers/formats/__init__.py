"""One package per session format, each exposing ``READER`` (see ``sessite.readers.base.Reader``).

A format that needs one module is still a package (``aics``, ``amp``): every format sits in the
same kind of room, so a newcomer finds a format's code by its name alone. Adding a format means
adding its package here and one line to ``FORMATS``; nothing downstream changes.
"""

from __future__ import annotations

import importlib

from sessite.readers.base import Reader

# Order matters only when two readers could claim the same path: most specific first.
FORMATS = (
    "hail",
    "aics",
    "claude_ai",
    "claude_ai_project",
    "sage",
    "kilo",
    "opencode",
    "cline",
    "amp",
    "copilot_cli",
    "chatgpt",
    "aider",
    "specstory",
    "hermes",
    "gemini_checkpoint",
    "continue_dev",
    "gemini_takeout",
    "qwen_code",
    "kimi_cli",
    "openclaw_trajectory",
    "pi",
    "factory_droid",
    "crush",
    "goose",
    "warp",
    "zed",
    "cursor_agent",
    "kiro",
    "openhands",
    "trae",
    "claude_teams",
    "antigravity",
    "cursor",
    "codex",
    "gemini",
    "claude_code",
)


def built_in() -> tuple[Reader, ...]:
    """Every built-in reader, in detection order (imported here, on first use)."""
    return tuple(importlib.import_module(f"{__name__}.{name}").READER for name in FORMATS)
