"""One module per format: ``records(path)`` yields the ``Record``s of one file of that format.

``ENUMERATORS`` maps a reader's name to its module's ``records``.
"""

from __future__ import annotations

import importlib

from ..records import Enumerate

# reader name -> module in this package (filled in as formats are covered)
_MODULES = {
    "claude_code": "claude_code",
    "codex": "codex",
    "hail": "hail",
    "claude_ai": "claude_ai",
    "cline": "cline",
    "cursor": "cursor",
    "copilot_cli": "copilot_cli",
    "chatgpt": "chatgpt",
    "aider": "aider",
    "continue_dev": "continue_dev",
    "gemini_takeout": "gemini_takeout",
    "qwen_code": "qwen_code",
    "kimi_cli": "kimi_cli",
    "pi": "pi",
    "factory_droid": "factory_droid",
    "crush": "crush",
    "goose": "goose",
    "warp": "warp",
    "zed": "zed",
    "cursor_agent": "cursor_agent",
    "kiro": "kiro",
    "openhands": "openhands",
    "trae": "trae",
    "claude_teams": "claude_teams",
    "antigravity": "antigravity",
}


def enumerator(reader: str) -> Enumerate | None:
    """The ``records`` function for a reader's files, None for a format not covered yet."""
    module = _MODULES.get(reader)
    if module is None:
        return None
    try:
        loaded = importlib.import_module(f"{__package__}.{module}")
    except ModuleNotFoundError:
        return None
    result: Enumerate = loaded.records
    return result
