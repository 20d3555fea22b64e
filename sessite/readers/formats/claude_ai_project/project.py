"""One claude.ai project as a session: its description, instructions (``prompt_template``) and
each knowledge document (``docs[]``: ``filename`` or ``file_name``, ``content``) as notes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sessite.model import Kind, Problems, Session
from sessite.readers._util import text_of
from sessite.readers.base import parse_time
from sessite.readers.builder import SessionBuilder

NAME = "claude_ai_project"


def project_session(path: Path, problems: Problems, index: int, project: dict[str, Any]) -> Session:
    """The project at record ``index`` (1 for a file of one project)."""
    b = SessionBuilder(NAME, path, problems, agent="claude_ai", label="claude.ai project")
    for field, title in (("description", "project description"), ("prompt_template", "project instructions")):
        value = project.get(field)
        if isinstance(value, str) and value.strip():
            b.emit(field, kind=Kind.SYSTEM, title=title, text=value, line=index)
        elif value not in (None, ""):
            b.report(index, f"project #{index}: {field} is a {type(value).__name__}, not text; left out")
    docs = project.get("docs")
    if docs is not None and not isinstance(docs, list):
        b.report(index, f"project #{index}: docs is a {type(docs).__name__}, not a list; left out")
        docs = []
    for at, doc in enumerate(docs or [], 1):
        if not isinstance(doc, dict) or not isinstance(doc.get("content"), str):
            b.report(index, f"project #{index}: document #{at} has no text content; left out")
            b.skip("knowledge document without text", line=index)
            continue
        name = text_of(doc.get("filename")) or text_of(doc.get("file_name")) or f"document {at}"
        b.emit(
            f"doc-{at}",
            kind=Kind.SYSTEM,
            title=f"knowledge: {name}",
            text=doc["content"],
            timestamp=parse_time(doc.get("created_at")),
            line=index,
        )
    if not b.events:
        b.skip("project with no description, instructions or documents", line=index)
    meta: dict[str, Any] = {"kind": "claude.ai project (no conversation: its instructions and knowledge)"}
    if isinstance(project.get("is_private"), bool):
        meta["private"] = "yes" if project["is_private"] else "no"
    if project.get("is_starter_project") is True:
        meta["starter project"] = "yes"
    raw_id = text_of(project.get("uuid")) or f"{path.stem}-{index}"
    return b.finish(
        raw_id,
        title=text_of(project.get("name")),
        started=parse_time(project.get("created_at")),
        ended=parse_time(project.get("updated_at")),
        meta=meta,
    )
