"""SpecStory: the markdown history SpecStory saves of Claude Code, Cursor, Codex and Gemini CLI
sessions, ``<project>/.specstory/history/<time>-<slug>.md``, often committed with the project.

Modules by job: ``markdown`` (the file cut into turns and a turn into its parts: text, thinking,
tool use), ``reader`` (the Reader, one session per file).
"""

from __future__ import annotations

from sessite.readers.formats.specstory.reader import READER, SpecStoryReader

__all__ = ["READER", "SpecStoryReader"]
