"""The Gemini CLI checkpoint reader: one session per ``checkpoint-<tag>.json``.

A checkpoint keeps no times and no model: only what the model was given. The tag (its
``%``-encoding undone) is the title; the project hash folder it sits in is the project.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from sessite.model import Problems, Session
from sessite.readers._util import text_of
from sessite.readers.base import Reader, Sniff
from sessite.readers.builder import SessionBuilder
from sessite.readers.files import load_json
from sessite.readers.formats.gemini_checkpoint.contents import Pairing, add_content
from sessite.readers.platform import Platform

NAME = "gemini_checkpoint"
_NAME = re.compile(r"^checkpoint-(.+)\.json$")
_CONTENT = re.compile(r'^\[\s*\{\s*"(role|parts)"\s*:')


class GeminiCheckpointReader(Reader):
    name = NAME
    agent = ""  # found in Gemini CLI's own folder: ``sessite discover`` lists it under ``gemini``
    dot_names = (".gemini",)

    def detect(self, sniffed: Sniff) -> bool:
        if sniffed.is_dir or not _NAME.match(sniffed.path.name):
            return False
        head = sniffed.text(4096).lstrip()
        if head.startswith("["):
            return bool(_CONTENT.match(head)) or head[1:].lstrip().startswith("]")
        return head.startswith("{") and re.search(r'"history"\s*:\s*\[', head) is not None

    def default_folders(self, plat: Platform) -> list[Path]:
        """``.gemini/tmp`` (a folder per project hash) in ``$GEMINI_CLI_HOME``, else the home folder;
        the same on Linux, macOS and Windows: the Gemini CLI reader's folder, walked once for both."""
        return [(plat.var("GEMINI_CLI_HOME") or plat.home) / ".gemini" / "tmp"]

    def read_source(self, path: Path, problems: Problems) -> Iterator[Session]:
        data = load_json(path, problems)
        if data is None:
            return
        history: Any = data.get("history") if isinstance(data, dict) else data
        if not isinstance(history, list):
            problems.add(path, None, "gemini checkpoint: neither a Content list nor an object with a history list")
            return
        b = SessionBuilder(NAME, path, problems, label="gemini checkpoint")
        pairing = Pairing()
        for index, content in enumerate(history, 1):
            add_content(b, pairing, index, content)
        match = _NAME.match(path.name)
        tag = unquote(match.group(1)) if match else path.stem
        project = path.parent.name
        meta = {"saved with": "/chat save", "tag": tag}
        if isinstance(data, dict) and text_of(data.get("authType")):
            meta["sign-in"] = data["authType"]
        yield b.finish(f"{project}-{tag}", title=f"/chat save {tag}", project=project, meta=meta)


READER = GeminiCheckpointReader()
