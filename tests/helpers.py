"""What many tests share: where the archives are, building a site, reading its pages.

Tests import from here (``from helpers import build_site``); ``conftest.py`` keeps only
pytest's fixtures and hooks. pytest puts this folder on ``sys.path`` (rootdir conftest,
"prepend" import mode), so ``helpers`` imports like any module.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
import os
import re
import shutil
import zlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from bs4 import BeautifulSoup

from sessite.config import SiteConfig
from sessite.model import Problems, Session, walk
from sessite.pipeline import BuildReport, build
from sessite.readers import Claim, DiscoveryResult, discover, registry
from sessite.render.pages import session_pages
from sessite.render.renderer import Renderer
from sessite.site.view import build_view

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SAMPLES = Path(os.environ.get("SESSITE_SAMPLES", REPO.parent / "shared" / "formats" / "samples"))
EXAMPLE = REPO / "example-archive"


ALL_EXPORTS = ("aics", "hail", "markdown")  # downloads are opt-in; tests of them turn them on


def build_site(archive: Path, output: Path, **options: Any) -> BuildReport:
    """Build a site with the real pipeline and return its BuildReport."""
    return build(SiteConfig(archive=archive, output=output, **options))


def parse_html(path: Path) -> BeautifulSoup:
    """A built page, parsed."""
    return BeautifulSoup(path.read_text("utf-8"), "html.parser")


def follow_link(page: Path, href: str) -> tuple[Path, str]:
    """The file a relative link of a built page points at, and its fragment (asserts it exists)."""
    parts = urlsplit(href)
    assert not parts.scheme and not href.startswith("/"), f"{page}: {href} is not relative"
    target = (page.parent / unquote(parts.path)).resolve()
    assert target.is_file(), f"{page}: broken link {href}"
    return target, parts.fragment


def chromium_path() -> str | None:
    """Debian's Chromium (or the one SESSITE_CHROMIUM names), if there is one."""
    return os.environ.get("SESSITE_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


def render_session_page(session: Session) -> str:
    """The HTML of a session's (first) page, rendered by the site's own renderer and templates.

    The one place tests build a Renderer for a single page: when its constructor changes,
    only this function does.
    """
    page = session_pages(build_view(session))[0]
    return Renderer({"title": "t", "base_url": "", "forge_url": ()}).render(page)


# ------------------------------------------------------------------ which reader claims which file


def files_under(root: Path) -> list[Path]:
    """Every file below a folder (or the file itself), sorted."""
    if root.is_file():
        return [root]
    return sorted(p for p in root.rglob("*") if p.is_file())


def claimed_files(claims: Iterable[Claim]) -> dict[Path, str]:
    """Each file a discovery consumes (a claimed file, or a companion of a claim) and the reader
    that consumes it; asserts that no file is consumed twice."""
    owner: dict[Path, str] = {}
    for claim in claims:
        for path in [claim.path, *claim.companions]:
            if not path.is_file():
                continue  # a claimed folder: its files are the claim's companions
            assert path not in owner, f"{path} claimed by {owner[path]} and {claim.reader.name}"
            owner[path] = claim.reader.name
    return owner


def discover_cleanly(root: Path) -> DiscoveryResult:
    """Discover a folder's sources, asserting that discovery reports no problem."""
    problems = Problems(root)
    found = discover(root, problems)
    assert not problems.items, [str(p) for p in problems.items]
    return found


def assert_claimed_by_folder_reader(
    root: Path, folder_reader: Mapping[str, str], non_sessions: Mapping[str, str] | None = None
) -> None:
    """Every file under ``root`` is consumed exactly once, by the reader its top folder is
    named for (``folder_reader``), except the ``non_sessions`` (path relative to ``root`` ->
    why it is there), which discovery must pass over.

    Detection agrees: the path a source starts from is detected by its reader alone, and no
    reader but the folder's detects any other path (file or folder) under it.
    """
    non_sessions = non_sessions or {}

    def reader_for(path: Path) -> str | None:
        return folder_reader.get(path.relative_to(root).parts[0]) if path != root else None

    found = discover_cleanly(root)
    expected = {path: reader_for(path) for path in files_under(root) if _relative(path, root) not in non_sessions}
    assert claimed_files(found.claims) == expected
    assert sorted(found.ignored) == sorted(root / name for name in non_sessions)
    starts = {claim.path: claim.reader.name for claim in found.claims}
    for path in [root, *sorted(root.rglob("*"))]:
        detected = detected_by(path)
        if path in starts:
            assert detected == [starts[path]] == [reader_for(path)], (_relative(path, root), detected)
        else:
            assert set(detected) <= {reader_for(path)}, (_relative(path, root), detected)


def _relative(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()


def detected_by(path: Path) -> list[str]:
    """The names of the readers whose ``detect`` accepts a path."""
    return [reader.name for reader in registry() if reader.detect_path(path)]


def node_path() -> str | None:
    """Node.js for the vendored lunr.js: $SESSITE_NODE, else node or nodejs on the PATH."""
    return os.environ.get("SESSITE_NODE") or shutil.which("node") or shutil.which("nodejs")


_PACKED_CALL = re.compile(rb'^sessiteSearch\.\w+\([\d,]*"([A-Za-z0-9+/=]+)"\);\n$')


def search_file_text(data: bytes) -> str:
    """A search file as text: a packed one (snippets, term chunks: deflated JSON in base64,
    see sessite/search/item.py) inflated, any other as it is."""
    m = _PACKED_CALL.match(data)
    return zlib.decompress(base64.b64decode(m.group(1))).decode() if m else data.decode("utf-8", "replace")


def search_text(site: Path) -> str:
    """Everything the search index of a built site holds, unpacked."""
    return "".join(search_file_text(p.read_bytes()) for p in sorted((site / "search").rglob("*.js")))


def _scanned_texts(path: Path, data: bytes) -> list[str]:
    """What to scan in one file: its bytes, for HTML its visible text too (markup can split a token),
    for gzip and packed search files what they hold too (a secret must not survive compressed
    either), and its name."""
    text = data.decode("utf-8", "replace").lower()
    out = [text, path.as_posix().lower()]
    if path.suffix == ".gz":
        out.append(gzip.decompress(data).decode("utf-8", "replace").lower())
    if path.parts[0] == "search":
        out.append(search_file_text(data).lower())
    if path.suffix == ".html":
        out.append(html.unescape(re.sub(r"<[^>]+>", "", text)))
    return out


def scan_site(site: Path, needles: dict[str, list[str]]) -> dict[str, list[str]]:
    """label -> the built files (and file names) holding any of that label's needles (lower case)."""
    found: dict[str, list[str]] = {}
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        texts = _scanned_texts(path.relative_to(site), path.read_bytes())
        for label, pieces in needles.items():
            if any(n in t for t in texts for n in pieces):
                found.setdefault(label, []).append(path.relative_to(site).as_posix())
    return found


def message_texts() -> list[str]:
    """Every message text of the test fixtures, the example archive and the shared real logs
    (when present): what the markdown equivalence tests compare on."""
    texts = []
    for root in (FIXTURES, EXAMPLE, *(p for p in [REPO.parent / "shared" / "formats" / "real"] if p.is_dir())):
        problems = Problems()
        for claim in discover([root], problems).claims:
            texts += [e.text for s in claim.read(problems) for e in walk(s.events) if e.text]
    return texts


def write_claude_session(folder: Path, session_id: str, prompts: list[str]) -> None:
    """A Claude Code session file in ``folder``: each prompt a user turn, answered "Done (n)."."""
    lines = []
    parent = None
    for n, prompt in enumerate(prompts):
        for role, text in (("user", prompt), ("assistant", f"Done ({n}).")):
            uuid = f"{session_id[:8]}-0000-4000-8000-{len(lines):012d}"
            message: dict[str, Any] = {"role": role, "content": text}
            if role == "assistant":
                message = {"role": role, "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": text}]}
            lines.append(
                {
                    "type": role,
                    "uuid": uuid,
                    "parentUuid": parent,
                    "sessionId": session_id,
                    "timestamp": f"2026-10-0{1 + len(lines) // 10}T10:{len(lines):02d}:00Z",
                    "cwd": "/home/dev/app",
                    "message": message,
                }
            )
            parent = uuid
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{session_id}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")


def count_build_runs(monkeypatch: Any) -> list[tuple[tuple[str, str], ...]]:
    """The ``redact_known`` of each run of the build from now on (one entry per ``_BuildRun.start``:
    a build that learns a secret elsewhere, or heals what its output scan saw, runs twice)."""
    from sessite.pipeline import pipeline

    runs: list[tuple[tuple[str, str], ...]] = []
    start = pipeline._BuildRun.start.__func__  # type: ignore[attr-defined]

    def counted(cls: Any, config: Any, *args: Any, **kwargs: Any) -> Any:
        run = start(cls, config, *args, **kwargs)
        runs.append(run.config.redact_known)
        return run

    monkeypatch.setattr(pipeline._BuildRun, "start", classmethod(counted))
    return runs
