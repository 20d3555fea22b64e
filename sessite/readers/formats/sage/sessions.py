"""sage sessions: a project's conversation files, and REPL session files.

A project folder ``~/.emacs.d/sage/projects/<encoded-path>/`` holds the
current ``conversation.jsonl``, ``metadata.json`` and archived
``history/<YYYYMMDD-HHMMSS>.jsonl``; each JSONL file is one session. A REPL
session file ``~/.emacs.d/sage/sessions/<name>.json`` is one session.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from sessite.model import Event, Kind, Problems, Session
from sessite.readers.base import parse_time
from sessite.readers.files import iter_jsonl, load_json
from sessite.readers.formats.sage.detect import CONVERSATION, METADATA, history_files
from sessite.readers.formats.sage.messages import SageSession, message_events, title_from

# Session-file keys read into the session; the rest go to its details.
_SESSION_FILE_KEYS = (
    "name",
    "model",
    "provider",
    "messages",
    "created_at",
    "updated_at",
    "message_count",
    "total_tokens",
    "workspace",
)


def read_project(path: Path, problems: Problems) -> Iterator[Session]:
    """The current conversation, then every archived one."""
    metadata = _project_metadata(path / METADATA, problems)
    conversation = path / CONVERSATION
    if conversation.is_file():
        yield read_conversation(
            conversation, f"{path.name}/conversation", problems, project_dir=path, metadata=metadata
        )
    for archive in history_files(path):
        yield read_conversation(
            archive,
            f"{path.name}/history/{archive.stem}",
            problems,
            project_dir=path,
            metadata=metadata,
            archived=archive.stem,
        )


def _project_metadata(meta_path: Path, problems: Problems) -> dict[str, Any] | None:
    if not meta_path.is_file():
        return None
    doc = load_json(meta_path, problems)
    if isinstance(doc, dict):
        value = doc.get("project_dir")
        if value is not None and not (isinstance(value, str) and value.strip()):
            what = "empty" if value == "" else "a " + type(value).__name__
            problems.add(meta_path, None, f"sage: project_dir is {what}, not a path; the folder name is used")
        return doc
    if doc is not None:
        problems.add(meta_path, None, f"sage: metadata.json is a {type(doc).__name__}, not an object; ignored")
    return None


def _decode_folder(name: str) -> str | None:
    """The project path from an encoded folder name: lossy (a '-' may have been a '/', a '.' or a '-')."""
    if not name.startswith("-"):
        return None
    decoded = name.replace("-", "/").rstrip("/")
    return decoded or "/"


def _clean_dir(value: str) -> str:
    return (value.rstrip("/") or "/") if value.strip() else value


def _project_name(cwd: str | None) -> str | None:
    if not cwd:
        return None
    name = PurePosixPath(cwd.replace("\\", "/")).name
    return name or cwd


def _archive_time(stem: str) -> str | None:
    match = re.fullmatch(r"(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})", stem)
    if not match:
        return None
    y, mo, d, h, mi, s = match.groups()
    return f"{y}-{mo}-{d} {h}:{mi}:{s}"


def read_conversation(
    path: Path,
    key: str,
    problems: Problems,
    *,
    project_dir: Path,
    metadata: dict[str, Any] | None,
    archived: str | None = None,
) -> Session:
    """One JSONL conversation of a project (``archived``: the stem of a history file)."""
    cwd, meta = _conversation_context(project_dir, metadata, archived)
    session = SageSession(path, problems)
    session_ids: list[str] = []
    for lineno, obj in iter_jsonl(path, problems):
        try:
            for event in message_events(obj, lineno, session, where=f"line {lineno}"):
                session.keep(event)
        except Exception as exc:  # noqa: BLE001 - one odd line must not stop the file
            session.unreadable(lineno, "line", obj, exc)
        sid = obj.get("session_id")
        if isinstance(sid, str) and sid and sid not in session_ids:
            session_ids.append(sid)
    if session_ids:
        meta["session_id"] = session_ids[0] if len(session_ids) == 1 else session_ids
    started = ended = None
    if archived is None and metadata is not None and session.span()[0] is None:
        started = parse_time(metadata.get("created_at"))
        ended = parse_time(metadata.get("updated_at"))
    return session.finish(
        key,
        title=title_from(session.first_user),
        started=started,
        ended=ended,
        cwd=cwd,
        project=_project_name(cwd),
        meta=meta,
    )


def _conversation_context(
    project_dir: Path, metadata: dict[str, Any] | None, archived: str | None
) -> tuple[str | None, dict[str, Any]]:
    """The working directory (from the metadata, else the folder's lossy name) and the session details."""
    cwd: str | None = None
    meta: dict[str, Any] = {}
    if metadata is not None:
        value = metadata.get("project_dir")
        if isinstance(value, str) and value.strip():
            cwd = _clean_dir(value)
        if archived is None:
            for field in ("message_count", "total_size", "created_at", "updated_at"):
                if metadata.get(field) is not None:
                    meta[f"project {field.replace('_', ' ')}"] = metadata[field]
    if cwd is None:
        cwd = _decode_folder(project_dir.name)
        if cwd is not None:
            meta["cwd source"] = "decoded from the folder name (lossy)"
    if archived is not None:
        meta["archived"] = _archive_time(archived) or archived
    return cwd, meta


# --------------------------------------------------------------------------- REPL session files


def read_session_file(path: Path, problems: Problems) -> Session | None:
    doc = load_json(path, problems)
    if doc is None:
        return None
    if not isinstance(doc, dict):
        problems.add(path, None, f"sage: session file is a {type(doc).__name__}, not an object")
        return None
    name = doc.get("name")
    if name is not None and not isinstance(name, str):
        problems.add(path, None, f"sage: 'name' is a {type(name).__name__}, not a string; ignored")
        name = None
    model = doc.get("model") if isinstance(doc.get("model"), str) and doc.get("model") else None
    messages = doc.get("messages")
    if not isinstance(messages, list):
        what = "missing" if messages is None else "a " + type(messages).__name__
        problems.add(path, None, f"sage: 'messages' is {what}, not an array")
        messages = []
    for key in ("created_at", "updated_at"):
        if doc.get(key) is not None and parse_time(doc.get(key)) is None:
            problems.add(path, None, f"sage: {key} is not ISO 8601: {doc.get(key)!r}")
    session = SageSession(path, problems)
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        if not isinstance(message, dict):
            session.report(None, f"{where} is a {type(message).__name__}, not an object; shown as raw JSON")
            eid = session.ids.take(f"m{index + 1}")
            session.keep(Event(id=eid, kind=Kind.UNKNOWN, title="sage message", raw=message))
            continue
        obj = {"uuid": f"m{index + 1}", **message}
        try:
            for event in message_events(obj, None, session, where=where, default_model=model):
                session.keep(event)
        except Exception as exc:  # noqa: BLE001 - one odd message must not stop the file
            session.unreadable(None, where, message, exc)
    workspace = doc.get("workspace")
    cwd = _clean_dir(workspace) if isinstance(workspace, str) and workspace.strip() else None
    return session.finish(
        f"session/{path.stem}",
        title=name.strip() if name and name.strip() else title_from(session.first_user),
        started=parse_time(doc.get("created_at")),
        ended=parse_time(doc.get("updated_at")),
        cwd=cwd,
        project=_project_name(cwd),
        models=(model,) if model else (),
        meta=_session_file_meta(doc, len(messages)),
    )


def _session_file_meta(doc: dict[str, Any], held: int) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    for key, label in (
        ("provider", "provider"),
        ("message_count", "message count"),
        ("total_tokens", "estimated tokens"),
    ):
        if doc.get(key) not in (None, ""):
            meta[label] = doc[key]
    if isinstance(doc.get("message_count"), int) and doc["message_count"] != held:
        meta["message count"] = f"{doc['message_count']} (file holds {held})"
    for key, value in doc.items():
        if key not in _SESSION_FILE_KEYS and value not in (None, "", [], {}):
            meta[key] = value
    return meta
