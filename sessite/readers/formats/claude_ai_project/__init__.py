"""claude.ai projects from the data export: ``projects/<uuid>.json`` (one file per project, in the
export's ``projects-NNN.zip``) and the older single ``projects.json`` list.

A project holds no conversation (the export does not link conversations to projects): what it
keeps is the project's description, its instructions and its knowledge documents, shown as one
page per project. Modules by job: ``project`` (one project as events), ``reader``.
"""

from __future__ import annotations

from sessite.readers.formats.claude_ai_project.reader import READER, ClaudeAiProjectReader

__all__ = ["READER", "ClaudeAiProjectReader"]
