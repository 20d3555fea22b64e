"""Claude Code transcripts: ``~/.claude/projects/<encoded-cwd>/<sessionId>.jsonl``.

One JSON object per line. ``user``/``assistant``/``system`` records carry the
conversation; ``progress``, ``file-history-snapshot`` and ``queue-operation``
records are bookkeeping and are only counted (``Session.skipped``); title
records (``summary``, ``custom-title``, ``ai-title``) feed the session title.

Things the format does that the reader undoes:

- One API response is split over several ``assistant`` lines (one content
  block each) that share ``message.id`` and repeat a growing ``usage``. Each
  block becomes its own event; the usage of the *last* line of a message is
  attached once, to the last event of that message.
- Sub-agents live next to the main file in ``<sessionId>/subagents/agent-<id>.jsonl``
  (their companions). Each becomes a SUBAGENT event placed after the result of
  the Task/Agent call that spawned it. When only ``agent_progress`` records
  remain (no sub-agent file), the sub-agent is rebuilt from the messages they
  embed. A sub-agent file whose parent file is missing is a session of its own.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from sitegen.model import (
    Block,
    Event,
    GitRefs,
    Kind,
    Problems,
    Session,
    SourceRef,
    ToolCategory,
    Usage,
    make_session_id,
)
from sitegen.readers._util import Ids
from sitegen.readers._util import project_of as _project
from sitegen.readers._util import shorten as _shorten
from sitegen.readers._util import text_of as _str
from sitegen.readers._util import to_int as _int
from sitegen.readers._util import unified_diff as _diff
from sitegen.readers.base import Reader, Sniff, as_text, iter_jsonl, load_json, parse_time

NAME = "claude_code"
AGENT = "claude-code"
TITLE_LIMIT = 100
# Beyond this many lines a diff is written as plain removal + addition (difflib is quadratic).

_CATEGORY = {
    "Bash": ToolCategory.SHELL,
    "BashOutput": ToolCategory.SHELL,
    "Edit": ToolCategory.EDIT,
    "MultiEdit": ToolCategory.EDIT,
    "Write": ToolCategory.EDIT,
    "NotebookEdit": ToolCategory.EDIT,
    "Read": ToolCategory.READ,
    "NotebookRead": ToolCategory.READ,
    "Glob": ToolCategory.SEARCH,
    "Grep": ToolCategory.SEARCH,
    "LS": ToolCategory.SEARCH,
    "WebFetch": ToolCategory.WEB,
    "WebSearch": ToolCategory.WEB,
    "web_search": ToolCategory.WEB,
    "web_fetch": ToolCategory.WEB,
    "Task": ToolCategory.TASK,
    "Agent": ToolCategory.TASK,
}
_TASK_TOOLS = {"Task", "Agent"}
_EDIT_TOOLS = {"Edit", "MultiEdit", "Write", "NotebookEdit"}

_SKIP_PROGRESS = {
    "hook_progress": "progress record (hook run notices)",
    "bash_progress": "progress record (streaming shell output; the final output is in the tool result)",
    "agent_progress": "progress record (sub-agent messages; shown from the sub-agent transcript)",
    "waiting_for_task": "progress record (waiting for a background task)",
    "mcp_progress": "progress record (MCP tool progress)",
    "query_update": "progress record (web search progress)",
    "search_results_received": "progress record (web search progress)",
}
_SKIP_TYPES = {
    "file-history-snapshot": "file-history-snapshot (editor backup bookkeeping)",
    "queue-operation": "queue-operation (prompt queue bookkeeping)",
}
# Records that describe the session rather than happen in it.
_META_TYPES = {
    "summary",
    "custom-title",
    "ai-title",
    "agent-name",
    "last-prompt",
    "mode",
    "permission-mode",
    "worktree-state",
    "bridge-session",
    "tag",
}

# Tags Claude Code wraps around text it injects into the user channel.
_SYSTEM_TAGS = (
    ("<command-name>", "Slash command"),
    ("<command-message>", "Slash command"),
    ("<local-command-stdout>", "Command output"),
    ("<local-command-stderr>", "Command error output"),
    ("<local-command-caveat>", "Local command caveat"),
    ("<bash-input>", "Shell command (run by the user)"),
    ("<bash-stdout>", "Shell output"),
    ("<bash-stderr>", "Shell output"),
    ("<system-reminder>", "System reminder"),
    ("<user-prompt-submit-hook>", "Prompt hook output"),
    ("<task-notification>", "Background task notification"),
)
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_ENCODE = re.compile(r"[^A-Za-z0-9]")
_UUID_LIKE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")

# toolUseResult fields worth showing next to a result (small scalars only).
_RESULT_META = (
    "durationMs",
    "durationSeconds",
    "numFiles",
    "numLines",
    "totalLines",
    "startLine",
    "truncated",
    "interrupted",
    "backgroundTaskId",
    "status",
    "totalDurationMs",
    "totalTokens",
    "totalToolUseCount",
    "agentId",
    "code",
    "codeText",
    "bytes",
    "mode",
    "retrieval_status",
    "isImage",
    "replaceAll",
    "userModified",
    "appliedLimit",
    "isAsync",
)


class ClaudeCodeReader(Reader):
    name = NAME
    claims_directories = False

    def detect(self, sniffed: Sniff) -> bool:
        path = sniffed.path
        if path.suffix.lower() != ".jsonl":
            return False
        main = _main_file_of_agent(path)
        if main is not None and main.is_file():
            return False  # read as a companion of its parent session
        for index, obj in enumerate(sniffed.json_lines(400)):
            kind = obj.get("type")
            if index == 0:
                if kind in ("header", "session_meta"):
                    return False  # HAIL, Codex rollout
                if kind == "summary" and isinstance(obj.get("summary"), str) and "leafUuid" in obj:
                    return True
            if "sessionId" not in obj or "uuid" not in obj:
                continue
            if kind in ("user", "assistant") and isinstance(obj.get("message"), dict):
                return True
            if kind in ("system", "progress") and "parentUuid" in obj:
                return True
        # A record cut by the sniff window (a huge pasted prompt) is judged by its
        # opening, whose key order Claude Code keeps fixed.
        for line in sniffed.text().split("\n", 400)[:400]:
            head = line[:4096]
            if (
                head.startswith('{"parentUuid":')
                and '"sessionId":"' in head
                and ('"type":"user"' in head or '"type":"assistant"' in head)
                and '"message":{' in head
            ):
                return True
        return False

    def companions(self, path: Path) -> list[Path]:
        if _main_file_of_agent(path) is not None:
            meta = _agent_meta_path(path)
            return [meta] if meta.is_file() else []
        folder = path.with_suffix("") / "subagents"
        if not folder.is_dir():
            return []
        try:
            return sorted(p for p in folder.rglob("*") if p.is_file())
        except OSError:
            return []

    def read(self, path: Path, problems: Problems) -> Iterator[Session]:
        if _main_file_of_agent(path) is not None:
            session = _read_standalone_agent(path, problems)
        else:
            session = _read_main(path, problems)
        if session is not None:
            yield session


# --------------------------------------------------------------------------- layout


def _main_file_of_agent(path: Path) -> Path | None:
    """For ``<sid>/subagents/[…/]agent-<id>.jsonl``: the ``<sid>.jsonl`` it belongs to."""
    if not path.name.startswith("agent-"):
        return None
    parent = path.parent
    for _ in range(4):
        if parent.name == "subagents":
            sid_dir = parent.parent
            return sid_dir.parent / f"{sid_dir.name}.jsonl"
        if parent.parent == parent:
            break
        parent = parent.parent
    return None


def _agent_id_from_name(path: Path) -> str:
    name = path.name
    if name.endswith(".jsonl"):
        name = name[: -len(".jsonl")]
    return name[len("agent-") :] if name.startswith("agent-") else name


def _agent_meta_path(path: Path) -> Path:
    return (
        path.with_name(path.name[: -len(".jsonl")] + ".meta.json")
        if path.name.endswith(".jsonl")
        else path.with_suffix(".meta.json")
    )


def _agent_files(main: Path) -> list[Path]:
    folder = main.with_suffix("") / "subagents"
    if not folder.is_dir():
        return []
    try:
        return sorted(p for p in folder.rglob("agent-*.jsonl") if p.is_file())
    except OSError:
        return []


# --------------------------------------------------------------------------- helpers


def _usage(raw: Any) -> Usage | None:
    if not isinstance(raw, dict):
        return None
    usage = Usage(
        input_tokens=_int(raw.get("input_tokens")),
        output_tokens=_int(raw.get("output_tokens")),
        cache_read_tokens=_int(raw.get("cache_read_input_tokens")),
        cache_write_tokens=_int(raw.get("cache_creation_input_tokens")),
    )
    return usage or None


def _inner(text: str, tag: str) -> str | None:
    """The content of the first ``<tag>…</tag>`` in text (plain find, no regex)."""
    start = text.find(f"<{tag}>")
    if start < 0:
        return None
    start += len(tag) + 2
    end = text.find(f"</{tag}>", start)
    return text[start:] if end < 0 else text[start:end]


def _strip_ansi(text: str) -> str:
    return _ANSI.sub("", text) if "\x1b" in text else text


def _patch_diff(path: str | None, hunks: list[Any]) -> str | None:
    """A unified diff from Claude Code's ``structuredPatch`` hunks."""
    out: list[str] = []
    for hunk in hunks:
        if not isinstance(hunk, dict) or not isinstance(hunk.get("lines"), list):
            continue
        out.append(
            f"@@ -{_int(hunk.get('oldStart'))},{_int(hunk.get('oldLines'))} +{_int(hunk.get('newStart'))},{_int(hunk.get('newLines'))} @@"
        )
        out.extend(str(line) for line in hunk["lines"])
    if not out:
        return None
    label = path or "file"
    return "\n".join([f"--- {label}", f"+++ {label}", *out])


def _exit_code(text: str) -> int | None:
    for prefix in ("Exit code ", "Error: Exit code "):
        if text.startswith(prefix):
            digits = text[len(prefix) : len(prefix) + 6].split("\n", 1)[0].strip()
            if digits.lstrip("-").isdigit():
                return int(digits)
    return None


def _image_block(block: dict[str, Any]) -> Block:
    source = block.get("source") if isinstance(block.get("source"), dict) else {}
    mime = _str(source.get("media_type"))
    uri = None
    if source.get("type") == "base64" and isinstance(source.get("data"), str):
        uri = f"data:{mime or 'image/png'};base64,{source['data']}"
    elif isinstance(source.get("url"), str):
        uri = source["url"]
    return Block("image", uri=uri, mime=mime, title=_str(block.get("title")))


def _tool_input_fields(name: str, args: Any) -> dict[str, Any]:
    """category, command, path and diff of a tool call."""
    fields: dict[str, Any] = {
        "category": ToolCategory.OTHER if name.startswith("mcp__") else _CATEGORY.get(name, ToolCategory.OTHER)
    }
    if not isinstance(args, dict):
        return fields
    path = _str(args.get("file_path")) or _str(args.get("notebook_path")) or _str(args.get("path"))
    if name == "Bash":
        fields["command"] = _str(args.get("command"))
    elif name == "Edit" and path:
        fields["diff"] = _diff(path, as_text(args.get("old_string")), as_text(args.get("new_string")))
    elif name == "MultiEdit" and path and isinstance(args.get("edits"), list):
        parts = [
            _diff(path, as_text(e.get("old_string")), as_text(e.get("new_string")))
            for e in args["edits"]
            if isinstance(e, dict)
        ]
        if parts:
            fields["diff"] = parts[0] + "".join("\n" + p.split("\n", 2)[2] for p in parts[1:] if p.count("\n") >= 2)
    elif name == "Write" and path:
        fields["diff"] = _diff(path, "", as_text(args.get("content")))
    elif name == "NotebookEdit" and path:
        fields["diff"] = _diff(path, "", as_text(args.get("new_source")))
    if path and fields["category"] in (ToolCategory.EDIT, ToolCategory.READ, ToolCategory.SEARCH):
        fields["path"] = path
    if not fields.get("diff"):
        fields.pop("diff", None)
    return fields


def _classify_user_text(text: str) -> tuple[Kind, str | None, str, dict[str, Any]]:
    """(kind, title, text, meta) for a user string that may be injected noise."""
    head = text.lstrip()[:40]
    if head.startswith("<"):
        for tag, label in _SYSTEM_TAGS:
            if not head.startswith(tag):
                continue
            name = tag[1:-1]
            if name in ("command-name", "command-message"):
                command = (_inner(text, "command-name") or _inner(text, "command-message") or "").strip()
                if command and not command.startswith("/"):
                    command = "/" + command
                args = (_inner(text, "command-args") or "").strip()
                return (
                    Kind.SYSTEM,
                    label,
                    f"{command} {args}".strip(),
                    {"command": command, "command_args": args} if args else {"command": command},
                )
            if name == "bash-input":
                return Kind.SYSTEM, label, "```sh\n$ " + (_inner(text, name) or "").strip() + "\n```", {}
            if name in ("local-command-stdout", "local-command-stderr", "bash-stdout", "bash-stderr"):
                parts = [
                    _strip_ansi(_inner(text, t) or "").strip()
                    for t in ("local-command-stdout", "local-command-stderr", "bash-stdout", "bash-stderr")
                    if f"<{t}>" in text
                ]
                return Kind.SYSTEM, label, "\n".join(p for p in parts if p), {}
            return Kind.SYSTEM, label, (_inner(text, name) or text).strip(), {}
    if head.startswith("[Request interrupted by user"):
        return Kind.SYSTEM, "Interrupted", text.strip().strip("[]"), {}
    return Kind.USER, None, text, {}


def _title_from_prompt(kind: Kind, text: str, meta: dict[str, Any]) -> str | None:
    if kind == Kind.USER and text.strip():
        return _shorten(text)
    if meta.get("command_args"):
        return _shorten(f"{meta['command']} {meta['command_args']}")
    return None


# --------------------------------------------------------------------------- one transcript


class _Transcript:
    """The events of one JSONL stream (a main file, a sub-agent file, or a
    sub-agent rebuilt from progress records), plus what linking needs."""

    def __init__(
        self,
        path: Path,
        problems: Problems,
        ids: Ids,
        *,
        prefix: str = "",
        agent_id: str | None = None,
        agent_files: Iterable[str] = (),
    ) -> None:
        self.path = path
        self.problems = problems
        self.ids = ids
        self.prefix = prefix
        self.agent_id = agent_id
        self.is_agent = agent_id is not None
        self.agent_files = set(agent_files)
        self.events: list[Event] = []
        self.records = 0
        # message id -> (index of its last event or None, usage of its last record)
        self.messages: dict[str, tuple[int | None, Usage | None]] = {}
        self.calls: dict[str, tuple[int, str, Any]] = {}  # call id -> (event index, tool name, input)
        self.results: dict[str, int] = {}  # call id -> index of its (first) result event
        self.agent_links: dict[str, str] = {}  # agent id -> call id that spawned it
        self.task_prompts: dict[str, str] = {}  # Task prompt text -> call id
        self.progress: dict[str, list[tuple[int, dict[str, Any]]]] = {}  # agent id -> embedded messages
        self._progress_seen: set[str] = set()
        self.skipped: Counter[str] = Counter()
        self.models: dict[str, None] = {}
        self.session_ids: dict[str, None] = {}
        self.cwds: dict[str, None] = {}
        self.branches: dict[str, None] = {}
        self.versions: dict[str, None] = {}
        self.slug: str | None = None
        self.first_prompt: str | None = None  # raw text of the first real prompt (links sub-agents)
        self.prompt_title: str | None = None
        self.titles: dict[str, str] = {}
        self.meta: dict[str, Any] = {}
        self.pull_requests: dict[str, None] = {}
        self.repos: dict[str, None] = {}
        self.issues: dict[str, None] = {}
        self.started = None
        self.ended = None
        self._last_cwd: Any = None
        self._last_sid: Any = None
        self._last_branch: Any = None
        self._last_version: Any = None

    # ---- envelope

    def feed(self, lineno: int, rec: dict[str, Any]) -> None:
        self.records += 1
        kind = rec.get("type")
        ts = parse_time(rec.get("timestamp"))
        if ts is not None:
            if self.started is None or ts < self.started:
                self.started = ts
            if self.ended is None or ts > self.ended:
                self.ended = ts
        self._envelope(rec)
        try:
            if kind == "assistant":
                self._assistant(lineno, rec, ts)
            elif kind == "user":
                self._user(lineno, rec, ts)
            elif kind == "system":
                self._system(lineno, rec, ts)
            elif kind == "progress":
                self._progress(lineno, rec)
            elif kind in _SKIP_TYPES:
                self.skipped[_SKIP_TYPES[kind]] += 1
            elif kind in _META_TYPES:
                self._metadata(kind, rec)
            elif kind == "pr-link":
                self._pr_link(lineno, rec, ts)
            else:
                self._emit(
                    lineno, rec, ts, [(0, {"kind": Kind.UNKNOWN, "title": f"unknown record type {kind!r}", "raw": rec})]
                )
        except Exception as exc:  # never let one odd record stop the file
            self.problems.add(
                self.path,
                lineno,
                f"could not interpret {kind!r} record ({type(exc).__name__}: {exc}); shown as raw JSON",
            )
            self._emit(
                lineno, rec, ts, [(0, {"kind": Kind.UNKNOWN, "title": f"unreadable {kind!r} record", "raw": rec})]
            )

    def _envelope(self, rec: dict[str, Any]) -> None:
        cwd = rec.get("cwd")
        if cwd != self._last_cwd:
            self._last_cwd = cwd
            if isinstance(cwd, str) and cwd:
                self.cwds.setdefault(cwd)
        sid = rec.get("sessionId")
        if sid != self._last_sid:
            self._last_sid = sid
            if isinstance(sid, str) and sid:
                self.session_ids.setdefault(sid)
        branch = rec.get("gitBranch")
        if branch != self._last_branch:
            self._last_branch = branch
            if isinstance(branch, str) and branch and branch != "HEAD":
                self.branches.setdefault(branch)
        version = rec.get("version")
        if version != self._last_version:
            self._last_version = version
            if isinstance(version, str) and version:
                self.versions.setdefault(version)
        if self.slug is None and isinstance(rec.get("slug"), str):
            self.slug = rec["slug"]
        if self.agent_id is None and self.is_agent and isinstance(rec.get("agentId"), str):
            self.agent_id = rec["agentId"]

    def _emit(self, lineno: int, rec: dict[str, Any], ts: Any, specs: list[tuple[int, dict[str, Any]]]) -> None:
        """Turn one record's event specs into events with stable, unique ids."""
        if not specs:
            return
        uuid = rec.get("uuid")
        base = uuid if isinstance(uuid, str) and uuid else f"line{lineno}"
        sidechain = bool(rec.get("isSidechain")) and not self.is_agent
        for index, spec in specs:
            event_id = self.ids.take(f"{self.prefix}{base}" if len(specs) == 1 else f"{self.prefix}{base}-{index}")
            if sidechain:
                spec["meta"] = {**spec.get("meta", {}), "sidechain": True}
            spec.setdefault("timestamp", ts)
            self.events.append(Event(id=event_id, line=lineno, **spec))

    # ---- assistant

    def _assistant(self, lineno: int, rec: dict[str, Any], ts: Any) -> None:
        msg = rec.get("message")
        if not isinstance(msg, dict):
            self.problems.add(self.path, lineno, "assistant record has no message object; shown as raw JSON")
            self._emit(
                lineno,
                rec,
                ts,
                [(0, {"kind": Kind.UNKNOWN, "title": "assistant record without a message", "raw": rec})],
            )
            return
        model = _str(msg.get("model"))
        meta: dict[str, Any] = {}
        if model == "<synthetic>":
            model = None
            meta["synthetic"] = True
        elif model:
            self.models.setdefault(model)
        is_error = bool(rec.get("isApiErrorMessage"))
        if is_error:
            meta["api_error"] = True
        content = msg.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        elif not isinstance(content, list):
            self.problems.add(
                self.path, lineno, f"assistant message content is {type(content).__name__}, not a list; skipped"
            )
            content = []
        specs: list[tuple[int, dict[str, Any]]] = []
        for index, block in enumerate(content):
            spec = self._assistant_block(block, model)
            if spec is not None:
                if meta:
                    spec["meta"] = {**meta, **spec.get("meta", {})}
                if is_error and spec["kind"] == Kind.ASSISTANT:
                    spec["is_error"] = True
                specs.append((index, spec))
        first_new = len(self.events)
        self._emit(lineno, rec, ts, specs)
        for position in range(first_new, len(self.events)):
            event = self.events[position]
            if event.kind == Kind.TOOL_CALL and event.call_id:
                self.calls.setdefault(event.call_id, (position, event.tool_name or "", event.tool_input))
                if (
                    event.tool_name in _TASK_TOOLS
                    and isinstance(event.tool_input, dict)
                    and isinstance(event.tool_input.get("prompt"), str)
                ):
                    self.task_prompts.setdefault(event.tool_input["prompt"].strip(), event.call_id)
        mid = _str(msg.get("id")) or _str(rec.get("requestId"))
        usage = _usage(msg.get("usage"))
        last = len(self.events) - 1 if len(self.events) > first_new else None
        if mid is None:
            if last is not None and usage:
                self.events[last] = replace(self.events[last], usage=usage)
            return
        previous = self.messages.get(mid)
        if last is None and previous is not None:
            last = previous[0]
        self.messages[mid] = (last, usage if usage is not None else (previous[1] if previous else None))

    def _assistant_block(self, block: Any, model: str | None) -> dict[str, Any] | None:
        if not isinstance(block, dict):
            return {"kind": Kind.UNKNOWN, "title": "assistant content that is not an object", "raw": block}
        btype = block.get("type")
        if btype == "text":
            text = block.get("text")
            if not isinstance(text, str):
                text = as_text(text)
            if not text.strip():
                return None
            return {"kind": Kind.ASSISTANT, "text": text, "model": model}
        if btype == "thinking":
            text = as_text(block.get("thinking"))
            if not text.strip():
                return None
            return {"kind": Kind.THINKING, "text": text, "model": model}
        if btype == "redacted_thinking":
            return {
                "kind": Kind.THINKING,
                "text": "*(thinking redacted by the API)*",
                "model": model,
                "meta": {"redacted": True},
            }
        if btype in ("tool_use", "server_tool_use"):
            name = _str(block.get("name")) or "tool"
            args = block.get("input")
            call_id = _str(block.get("id"))
            spec = {
                "kind": Kind.TOOL_CALL,
                "tool_name": name,
                "tool_input": args,
                "call_id": call_id,
                "model": model,
                **_tool_input_fields(name, args),
            }
            if btype == "server_tool_use":
                spec["meta"] = {"server_tool": True}
            if name in _TASK_TOOLS and isinstance(args, dict) and _str(args.get("description")):
                spec["title"] = args["description"]
            return spec
        if isinstance(btype, str) and btype.endswith("_tool_result"):
            text, blocks = _result_content(block.get("content"))
            return {
                "kind": Kind.TOOL_RESULT,
                "call_id": _str(block.get("tool_use_id")),
                "text": text,
                "blocks": blocks,
                "meta": {"server_tool": True},
            }
        if btype == "image":
            return {"kind": Kind.ASSISTANT, "blocks": (_image_block(block),), "model": model}
        return {"kind": Kind.UNKNOWN, "title": f"unknown assistant block type {btype!r}", "raw": block}

    # ---- user

    def _user(self, lineno: int, rec: dict[str, Any], ts: Any) -> None:
        msg = rec.get("message")
        if not isinstance(msg, dict):
            self.problems.add(self.path, lineno, "user record has no message object; shown as raw JSON")
            self._emit(
                lineno, rec, ts, [(0, {"kind": Kind.UNKNOWN, "title": "user record without a message", "raw": rec})]
            )
            return
        content = msg.get("content")
        if isinstance(content, str):
            self._emit(lineno, rec, ts, [(0, self._user_text_spec(rec, content))])
            return
        if not isinstance(content, list):
            self.problems.add(
                self.path,
                lineno,
                f"user message content is {type(content).__name__}, not text or a list; shown as raw JSON",
            )
            self._emit(
                lineno,
                rec,
                ts,
                [(0, {"kind": Kind.UNKNOWN, "title": "user message with unexpected content", "raw": rec})],
            )
            return
        results = sum(1 for b in content if isinstance(b, dict) and b.get("type") == "tool_result")
        specs: list[tuple[int, dict[str, Any]]] = []
        texts: list[str] = []
        images: list[Block] = []
        first_index = None

        def flush() -> None:
            nonlocal texts, images, first_index
            if texts or images:
                spec = self._user_text_spec(rec, "\n\n".join(texts))
                if images:
                    spec["blocks"] = tuple(images)
                specs.append((first_index or 0, spec))
            texts, images, first_index = [], [], None

        for index, block in enumerate(content):
            btype = block.get("type") if isinstance(block, dict) else None
            if btype == "text":
                if first_index is None:
                    first_index = index
                texts.append(as_text(block.get("text")))
            elif btype == "image":
                if first_index is None:
                    first_index = index
                images.append(_image_block(block))
            elif btype == "tool_result":
                flush()
                specs.append((index, self._result_spec(block, rec if results == 1 else None)))
            elif isinstance(block, str):
                if first_index is None:
                    first_index = index
                texts.append(block)
            else:
                flush()
                specs.append(
                    (index, {"kind": Kind.UNKNOWN, "title": f"unknown user block type {btype!r}", "raw": block})
                )
        flush()
        first_new = len(self.events)
        self._emit(lineno, rec, ts, specs)
        for position in range(first_new, len(self.events)):
            event = self.events[position]
            if event.kind == Kind.TOOL_RESULT and event.call_id:
                self.results.setdefault(event.call_id, position)

    def _user_text_spec(self, rec: dict[str, Any], text: str) -> dict[str, Any]:
        if rec.get("isCompactSummary"):
            return {"kind": Kind.COMPACTION, "title": "Compaction summary", "text": text, "meta": {"summary": True}}
        if rec.get("isMeta"):
            kind, title, clean, meta = _classify_user_text(text)
            return {
                "kind": Kind.SYSTEM,
                "title": title or "Injected context",
                "text": clean,
                "meta": {**meta, "meta": True},
            }
        kind, title, clean, meta = _classify_user_text(text)
        if self.prompt_title is None:
            self.prompt_title = _title_from_prompt(kind, clean, meta)
        if self.first_prompt is None and kind == Kind.USER and clean.strip():
            self.first_prompt = clean.strip()
        spec: dict[str, Any] = {"kind": kind, "text": clean}
        if title:
            spec["title"] = title
        if meta:
            spec["meta"] = meta
        return spec

    def _result_spec(self, block: dict[str, Any], rec: dict[str, Any] | None) -> dict[str, Any]:
        call_id = _str(block.get("tool_use_id"))
        text, blocks = _result_content(block.get("content"))
        is_error = block.get("is_error") is True
        spec: dict[str, Any] = {"kind": Kind.TOOL_RESULT, "call_id": call_id, "text": text, "is_error": is_error}
        if blocks:
            spec["blocks"] = blocks
        call = self.calls.get(call_id or "")
        name = call[1] if call else None
        args = call[2] if call else None
        if name:
            spec["tool_name"] = name
        extra = rec.get("toolUseResult") if rec is not None else None
        meta: dict[str, Any] = {}
        if name == "Bash" or (name is None and text.startswith("Exit code ")):
            if is_error:
                code = _exit_code(text)
                if code is None and isinstance(extra, str):
                    code = _exit_code(extra)
                spec["exit_code"] = code
        if isinstance(extra, dict):
            for key in _RESULT_META:
                value = extra.get(key)
                if (
                    value is True
                    or (isinstance(value, (int, float)) and not isinstance(value, bool))
                    or (isinstance(value, str) and value and len(value) <= 200)
                ):
                    meta[key] = value
            file = extra.get("file")
            if isinstance(file, dict):
                for key in ("numLines", "startLine", "totalLines"):
                    if isinstance(file.get(key), int):
                        meta[key] = file[key]
                if _str(file.get("filePath")):
                    spec["path"] = file["filePath"]
            path = _str(extra.get("filePath")) or spec.get("path")
            if path:
                spec["path"] = path
            if name in _EDIT_TOOLS or "structuredPatch" in extra:
                patch = extra.get("structuredPatch")
                diff = _patch_diff(path, patch) if isinstance(patch, list) else None
                if diff is None and extra.get("type") == "create" and isinstance(extra.get("content"), str):
                    diff = _diff(path, "", extra["content"])
                if (
                    diff is None
                    and isinstance(extra.get("originalFile"), str)
                    and name == "Write"
                    and isinstance(args, dict)
                ):
                    diff = _diff(path, extra["originalFile"], as_text(args.get("content")))
                if diff and not (call and self.events[call[0]].diff == diff):
                    spec["diff"] = diff
            agent_id = _str(extra.get("agentId"))
            if agent_id and call_id:
                self.agent_links.setdefault(agent_id, call_id)
        elif isinstance(extra, str) and extra.strip() and extra.strip() != text.strip() and len(extra) <= 500:
            meta["result"] = extra
        if meta:
            spec["meta"] = meta
        return spec

    # ---- system and the rest

    def _system(self, lineno: int, rec: dict[str, Any], ts: Any) -> None:
        subtype = rec.get("subtype")
        content = rec.get("content")
        text = content if isinstance(content, str) else as_text(content)
        meta: dict[str, Any] = {"subtype": subtype} if subtype else {}
        if isinstance(rec.get("level"), str):
            meta["level"] = rec["level"]
        spec: dict[str, Any]
        if subtype in ("compact_boundary", "microcompact_boundary"):
            data = rec.get("compactMetadata") or rec.get("microcompactMetadata")
            if isinstance(data, dict):
                meta.update({k: v for k, v in data.items() if isinstance(v, (str, int, float, bool))})
            if _str(rec.get("logicalParentUuid")):
                meta["logicalParentUuid"] = rec["logicalParentUuid"]
            title = "Conversation compacted" if subtype == "compact_boundary" else "Context micro-compacted"
            spec = {
                "kind": Kind.COMPACTION,
                "title": title,
                "text": text if text and text != title else "",
                "meta": meta,
            }
        elif subtype == "local_command":
            kind, title, clean, extra = _classify_user_text(text)
            spec = {"kind": Kind.SYSTEM, "title": title or "Local command", "text": clean, "meta": {**meta, **extra}}
        elif subtype == "turn_duration":
            ms = rec.get("durationMs")
            meta["durationMs"] = ms
            spec = {
                "kind": Kind.SYSTEM,
                "title": "Turn duration",
                "text": f"Turn took {_int(ms) / 1000:.1f} s" if isinstance(ms, (int, float)) else text,
                "meta": meta,
            }
        elif subtype == "stop_hook_summary":
            hooks = rec.get("hookInfos") if isinstance(rec.get("hookInfos"), list) else []
            errors = rec.get("hookErrors") if isinstance(rec.get("hookErrors"), list) else []
            lines = [f"{_int(rec.get('hookCount')) or len(hooks)} stop hook(s) ran."]
            lines += [f"- `{h.get('command')}`" for h in hooks if isinstance(h, dict) and h.get("command")]
            lines += [f"- error: {as_text(e)}" for e in errors]
            if rec.get("preventedContinuation"):
                lines.append(f"Prevented continuation: {as_text(rec.get('stopReason'))}")
            for key in ("hookCount", "preventedContinuation", "hasOutput"):
                if key in rec:
                    meta[key] = rec[key]
            spec = {
                "kind": Kind.SYSTEM,
                "title": "Stop hooks",
                "text": "\n".join(lines),
                "meta": meta,
                "is_error": bool(errors),
            }
        elif subtype == "api_error":
            detail = text or as_text(rec.get("error"))
            for key in ("retryAttempt", "maxRetries", "retryInMs"):
                if key in rec:
                    meta[key] = rec[key]
            spec = {"kind": Kind.SYSTEM, "title": "API error", "text": detail, "meta": meta, "is_error": True}
        else:
            label = str(subtype).replace("_", " ") if subtype else "System message"
            spec = {
                "kind": Kind.SYSTEM,
                "title": label[:1].upper() + label[1:],
                "text": _strip_ansi(text),
                "meta": meta,
            }
        self._emit(lineno, rec, ts, [(0, spec)])

    def _progress(self, lineno: int, rec: dict[str, Any]) -> None:
        data = rec.get("data") if isinstance(rec.get("data"), dict) else {}
        dtype = data.get("type")
        if dtype == "agent_progress":
            agent_id = _str(data.get("agentId"))
            parent_call = _str(rec.get("parentToolUseID"))
            if agent_id and parent_call:
                self.agent_links.setdefault(agent_id, parent_call)
            message = data.get("message")
            if (
                agent_id
                and agent_id not in self.agent_files
                and isinstance(message, dict)
                and message.get("type") in ("user", "assistant")
            ):
                key = f"{agent_id}:{message.get('uuid')}" if message.get("uuid") else None
                if key is None or key not in self._progress_seen:
                    if key:
                        self._progress_seen.add(key)
                    self.progress.setdefault(agent_id, []).append((lineno, message))
                return  # shown as the rebuilt sub-agent
        reason = _SKIP_PROGRESS.get(dtype) if isinstance(dtype, str) else None
        self.skipped[reason or f"progress record ({dtype or 'no type'})"] += 1

    def _metadata(self, kind: str, rec: dict[str, Any]) -> None:
        field_name = {
            "summary": "summary",
            "custom-title": "customTitle",
            "ai-title": "aiTitle",
            "agent-name": "agentName",
        }.get(kind)
        value = _str(rec.get(field_name)) if field_name else None
        if kind == "ai-title" and value is None:
            value = _str(rec.get("title"))
        if value:
            self.titles[kind] = value
        if kind == "agent-name" and value:
            self.meta["agent_name"] = value
        elif kind in ("mode", "permission-mode"):
            mode = _str(rec.get("mode")) or _str(rec.get("permissionMode"))
            if mode:
                self.meta["mode"] = mode
        self.skipped[f"{kind} record (used for the session title and details)"] += 1

    def _pr_link(self, lineno: int, rec: dict[str, Any], ts: Any) -> None:
        url = _str(rec.get("prUrl"))
        number = rec.get("prNumber")
        repo = _str(rec.get("prRepository")) or _str(rec.get("repository"))
        key = url or f"{repo}#{number}"
        if key in self.pull_requests:
            self.skipped["pr-link record (repeated link to the same pull request)"] += 1
            return
        self.pull_requests.setdefault(key)
        if repo:
            self.repos.setdefault(repo)
        if isinstance(number, int) and not isinstance(number, bool):
            self.issues.setdefault(f"{repo}#{number}" if repo else f"#{number}")
        label = f"#{number}" if isinstance(number, int) else "pull request"
        text = f"[{repo or ''}{label}]({url})" if url else f"{repo or ''}{label}"
        self._emit(
            lineno,
            rec,
            ts,
            [
                (
                    0,
                    {
                        "kind": Kind.SYSTEM,
                        "title": "Pull request linked",
                        "text": text,
                        "meta": {k: rec[k] for k in ("prNumber", "prUrl", "prRepository") if k in rec},
                    },
                )
            ],
        )

    # ---- end

    def finish(self) -> None:
        """Attach each message's usage (its last record's) to its last event."""
        for index, usage in self.messages.values():
            if index is not None and usage:
                self.events[index] = replace(self.events[index], usage=usage)
        self.messages.clear()

    @property
    def title(self) -> str | None:
        for key in ("custom-title", "ai-title", "summary"):
            if self.titles.get(key):
                return _shorten(self.titles[key], 200)
        return self.prompt_title or self.slug


def _result_content(content: Any) -> tuple[str, tuple[Block, ...]]:
    """Plain text and non-text blocks of a tool_result's content."""
    if content is None:
        return "", ()
    if isinstance(content, str):
        return content, ()
    if not isinstance(content, list):
        return as_text(content), ()
    texts: list[str] = []
    blocks: list[Block] = []
    for item in content:
        if isinstance(item, str):
            texts.append(item)
        elif not isinstance(item, dict):
            texts.append(as_text(item))
        elif item.get("type") == "text":
            texts.append(as_text(item.get("text")))
        elif item.get("type") == "image":
            blocks.append(_image_block(item))
        elif item.get("type") == "tool_reference":
            blocks.append(Block("reference", title=as_text(item.get("tool_name")) or None, data=item))
        else:
            blocks.append(Block("json", title=str(item.get("type") or "content"), data=item))
    return "\n".join(texts), tuple(blocks)


# --------------------------------------------------------------------------- sessions


def _read_stream(transcript: _Transcript, records: Iterable[tuple[int, dict[str, Any]]]) -> _Transcript:
    for lineno, rec in records:
        transcript.feed(lineno, rec)
    transcript.finish()
    return transcript


def _read_main(path: Path, problems: Problems) -> Session | None:
    ids = Ids()
    files = _agent_files(path)
    file_ids = {_agent_id_from_name(p) for p in files}
    main = _read_stream(_Transcript(path, problems, ids, agent_files=file_ids), iter_jsonl(path, problems))
    if not main.events and not files and not main.progress:
        if main.records:
            problems.add(path, None, "no Claude Code conversation events found; skipped")
        return None

    agents: list[tuple[_Transcript, dict[str, Any]]] = []
    for agent_path in files:
        aid = _agent_id_from_name(agent_path)
        transcript = _read_stream(
            _Transcript(agent_path, problems, ids, prefix=f"{aid}-", agent_id=aid, agent_files=file_ids),
            iter_jsonl(agent_path, problems),
        )
        info: dict[str, Any] = {
            "source": str(agent_path.relative_to(path.parent))
            if agent_path.is_relative_to(path.parent)
            else str(agent_path)
        }
        meta_path = _agent_meta_path(agent_path)
        if meta_path.is_file():
            meta = load_json(meta_path, problems)
            if isinstance(meta, dict):
                info["meta.json"] = meta
        agents.append((transcript, info))
    # Sub-agents known only from the agent_progress records that embed their messages.
    pending = [main] + [t for t, _ in agents]
    rebuilt: set[str] = set()
    while pending:
        holder = pending.pop(0)
        for aid, records in holder.progress.items():
            if aid in file_ids or aid in rebuilt:
                continue
            rebuilt.add(aid)
            transcript = _read_stream(
                _Transcript(path, problems, ids, prefix=f"{aid}-", agent_id=aid, agent_files=file_ids), records
            )
            agents.append((transcript, {"rebuilt_from": "agent_progress records"}))
            pending.append(transcript)
        holder.progress = {}

    events = _assemble(main, agents, ids)
    everything = [main] + [t for t, _ in agents]
    raw_id = path.stem if _UUID_LIKE.match(path.stem) else next(iter(main.session_ids), path.stem)
    models: dict[str, None] = {}
    skipped: Counter[str] = Counter()
    started = ended = None
    for t in everything:
        models.update(t.models)
        skipped.update(t.skipped)
        if t.started is not None and (started is None or t.started < started):
            started = t.started
        if t.ended is not None and (ended is None or t.ended > ended):
            ended = t.ended
    cwd = _launch_cwd(main.cwds, path.parent.name)
    meta = _session_meta(main, raw_id)
    if agents:
        meta["subagents"] = len(agents)
    return Session(
        id=make_session_id(NAME, raw_id),
        source=SourceRef(str(path), NAME),
        agent=AGENT,
        events=tuple(events),
        title=main.title,
        started=started,
        ended=ended,
        cwd=cwd,
        project=_project(cwd),
        models=tuple(models),
        git=GitRefs(branches=tuple(main.branches), issues=tuple(main.issues), repos=tuple(main.repos)),
        meta=meta,
        skipped=dict(skipped),
    )


def _launch_cwd(cwds: dict[str, None], folder: str) -> str | None:
    """The directory the session was started in.

    The shell's cwd wanders (``cd assets``); the project folder name under
    ``~/.claude/projects`` is the launch directory with every non-alphanumeric
    character turned into ``-``. Failing that, the first cwd or an ancestor of it.
    """
    if not cwds:
        return None
    for cwd in cwds:
        if _ENCODE.sub("-", cwd) == folder:
            return cwd
    first = next(iter(cwds))
    ancestors = [c for c in cwds if first.startswith(c.rstrip("/") + "/")]
    return min(ancestors, key=len) if ancestors else first


def _session_meta(t: _Transcript, raw_id: str) -> dict[str, Any]:
    meta: dict[str, Any] = {"session_id": raw_id}
    if len(t.session_ids) > 1 or (t.session_ids and raw_id not in t.session_ids):
        meta["session_ids"] = list(t.session_ids)
    if t.versions:
        meta["version"] = list(t.versions)[-1]
        if len(t.versions) > 1:
            meta["versions"] = list(t.versions)
    if t.slug:
        meta["slug"] = t.slug
    if len(t.cwds) > 1:
        meta["cwds"] = list(t.cwds)
    if t.pull_requests:
        meta["pull_requests"] = [k for k in t.pull_requests]
    meta.update(t.meta)
    return meta


def _assemble(main: _Transcript, agents: list[tuple[_Transcript, dict[str, Any]]], ids: Ids) -> list[Event]:
    """Main events with every sub-agent inserted where it was spawned."""
    everyone = [main] + [t for t, _ in agents]
    # parent transcript id -> list of (insert-before position, order, SUBAGENT builder args)
    placements: dict[int, list[tuple[int, int, _Transcript, dict[str, Any], str | None]]] = {}
    parent_of: dict[int, int] = {}
    for order, (agent, info) in enumerate(agents):
        parent, call_id = _find_parent(agent, everyone)
        if parent is not None and _creates_cycle(id(agent), id(parent), parent_of):
            parent, call_id = None, None
        if parent is None:
            parent = main
            position = (
                _compaction_position(main, agent) if (agent.agent_id or "").startswith("acompact") else len(main.events)
            )
        elif call_id in parent.results:
            position = parent.results[call_id] + 1
        elif call_id in parent.calls:
            position = parent.calls[call_id][0] + 1
        else:
            position = len(parent.events)
        parent_of[id(agent)] = id(parent)
        placements.setdefault(id(parent), []).append((position, order, agent, info, call_id))

    def build(t: _Transcript, depth: int) -> list[Event]:
        slots = sorted(placements.get(id(t), []), key=lambda p: (p[0], p[1]))
        if not slots:
            return t.events
        out: list[Event] = []
        cursor = 0
        for position, _, agent, info, call_id in slots:
            out.extend(t.events[cursor:position])
            cursor = max(cursor, position)
            children = build(agent, depth + 1) if depth < 20 else agent.events
            out.append(_subagent_event(agent, info, t, call_id, children, ids))
        out.extend(t.events[cursor:])
        return out

    return build(main, 0)


def _creates_cycle(child: int, parent: int, parent_of: dict[int, int]) -> bool:
    seen = set()
    node: int | None = parent
    while node is not None and node not in seen:
        if node == child:
            return True
        seen.add(node)
        node = parent_of.get(node)
    return False


def _find_parent(agent: _Transcript, everyone: list[_Transcript]) -> tuple[_Transcript | None, str | None]:
    aid = agent.agent_id
    if aid:
        for t in everyone:
            if t is not agent and aid in t.agent_links:
                return t, t.agent_links[aid]
    if agent.first_prompt:
        for t in everyone:
            if t is not agent and agent.first_prompt in t.task_prompts:
                return t, t.task_prompts[agent.first_prompt]
    return None, None


def _compaction_position(main: _Transcript, agent: _Transcript) -> int:
    """A compaction agent goes just before the compact boundary it produced."""
    for index, event in enumerate(main.events):
        if event.kind == Kind.COMPACTION and event.title == "Conversation compacted":
            if agent.ended is None or event.timestamp is None or event.timestamp >= agent.ended:
                return index
    return len(main.events)


def _subagent_event(
    agent: _Transcript, info: dict[str, Any], parent: _Transcript, call_id: str | None, children: list[Event], ids: Ids
) -> Event:
    aid = agent.agent_id or "agent"
    meta: dict[str, Any] = {"agent_id": aid}
    call = parent.calls.get(call_id or "")
    args = call[2] if call and isinstance(call[2], dict) else {}
    sidecar = info.get("meta.json") if isinstance(info.get("meta.json"), dict) else {}
    agent_type = _str(args.get("subagent_type")) or _str(sidecar.get("agentType"))
    if agent_type:
        meta["agent_type"] = agent_type
    for key in ("source", "rebuilt_from"):
        if info.get(key):
            meta[key] = info[key]
    for key, value in sidecar.items():
        if key != "agentType" and isinstance(value, (str, int, float, bool)):
            meta[key] = value
    if aid.startswith("acompact"):
        title = "Compaction agent"
    else:
        title = _str(args.get("description")) or _str(sidecar.get("description")) or agent_type or f"Sub-agent {aid}"
    return Event(
        id=ids.take(f"agent-{aid}"),
        kind=Kind.SUBAGENT,
        timestamp=agent.started,
        title=title,
        children=tuple(children),
        call_id=call_id,
        model=next(iter(agent.models), None),
        meta=meta,
    )


def _read_standalone_agent(path: Path, problems: Problems) -> Session | None:
    """A sub-agent file whose parent session file is not in the archive."""
    ids = Ids()
    aid = _agent_id_from_name(path)
    t = _read_stream(_Transcript(path, problems, ids, agent_id=aid), iter_jsonl(path, problems))
    if not t.events:
        if t.records:
            problems.add(path, None, "no Claude Code conversation events found; skipped")
        return None
    aid = t.agent_id or aid
    parent_sid = next(iter(t.session_ids), None) or path.parent.parent.name
    meta = _session_meta(t, parent_sid)
    meta.pop("session_id", None)
    meta["parent_session_id"] = parent_sid
    meta["agent_id"] = aid
    meta["subagent"] = True
    sidecar_path = _agent_meta_path(path)
    if sidecar_path.is_file():
        sidecar = load_json(sidecar_path, problems)
        if isinstance(sidecar, dict) and _str(sidecar.get("agentType")):
            meta["agent_type"] = sidecar["agentType"]
    if aid.startswith("acompact"):
        title = "Compaction agent"
    else:
        base = t.title
        title = f"Sub-agent: {base}" if base else f"Sub-agent {aid}"
    cwd = _launch_cwd(t.cwds, path.parent.parent.parent.name)
    return Session(
        id=make_session_id(NAME, f"{parent_sid}-agent-{aid}"),
        source=SourceRef(str(path), NAME),
        agent=AGENT,
        events=tuple(t.events),
        title=title,
        started=t.started,
        ended=t.ended,
        cwd=cwd,
        project=_project(cwd),
        models=tuple(t.models),
        git=GitRefs(branches=tuple(t.branches), issues=tuple(t.issues), repos=tuple(t.repos)),
        meta=meta,
        skipped=dict(t.skipped),
    )


READER = ClaudeCodeReader()
