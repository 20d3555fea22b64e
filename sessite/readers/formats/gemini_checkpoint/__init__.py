"""Gemini CLI's saved chats: ``/chat save <tag>`` writes ``~/.gemini/tmp/<project hash>/checkpoint-<tag>.json``,
the model's history as a list of Content objects (``{"history": […], "authType": …}`` since v0.16).

Modules by job: ``contents`` (Content parts as events, calls paired with their responses),
``reader`` (detection, one session per file).
"""

from __future__ import annotations

from sessite.readers.formats.gemini_checkpoint.reader import READER, GeminiCheckpointReader

__all__ = ["READER", "GeminiCheckpointReader"]
