"""Extension points: a reader plugin and an extending template override, installed into a
fresh venv as a package; a broken plugin is a problem line; outputs passed into build()."""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sysconfig
import venv
import zipfile
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest
from helpers import EXAMPLE, REPO

from sessite.config import ConfigFileError, SiteConfig, settings_from_dict
from sessite.model import Problems
from sessite.outputs.registry import DEFAULT_AGGREGATES
from sessite.outputs.search import SearchIndex
from sessite.pipeline import build
from sessite.readers import discover
from sessite.readers.formats.hail import READER as HAIL
from sessite.readers.plugins import plugin_readers

PLUGIN = '''
"""A demo format: a file named *.demo.txt, one message per line."""
from datetime import datetime, timezone

from sessite.model import Event, Kind, Session, SourceRef, make_session_id
from sessite.readers.base import Reader


class DemoReader(Reader):
    name = "demo"

    def detect(self, sniff):
        return sniff.path.name.endswith(".demo.txt")

    def read_source(self, path, problems):
        lines = path.read_text("utf-8").splitlines()
        when = datetime(2025, 1, 2, 3, 4, tzinfo=timezone.utc)
        events = tuple(
            Event(id=f"e{i}", kind=Kind.USER if i % 2 == 0 else Kind.ASSISTANT, timestamp=when, text=line)
            for i, line in enumerate(lines)
        )
        yield Session(
            id=make_session_id("demo", path.name.split(".")[0]),
            source=SourceRef(str(path), "demo"),
            agent="demo-agent",
            events=events,
            title=lines[0] if lines else None,
            started=when,
        )


READER = DemoReader()
'''

OVERRIDE = """{% extends "sessite:session.html" %}
{% block nav %}<span class="demo-banner">from the demo plugin</span> {{ super() }}{% endblock %}
"""


def _record(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def make_wheel(folder: Path) -> Path:
    """The plugin as a wheel, written by hand: installing it needs no build backend and no network."""
    dist = "sessite_demo_plugin-0.1.dist-info"
    files = {
        "sessite_demo_plugin/__init__.py": PLUGIN.encode(),
        "sessite_demo_plugin/templates/session.html": OVERRIDE.encode(),
        f"{dist}/METADATA": b"Metadata-Version: 2.1\nName: sessite-demo-plugin\nVersion: 0.1\n",
        f"{dist}/WHEEL": b"Wheel-Version: 1.0\nGenerator: sessite-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{dist}/entry_points.txt": b"[sessite.readers]\ndemo = sessite_demo_plugin:READER\n",
    }
    wheel = folder / "sessite_demo_plugin-0.1-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
        record = [_record(name, data) for name, data in files.items()] + [f"{dist}/RECORD,,"]
        zf.writestr(f"{dist}/RECORD", "\n".join(record) + "\n")
    return wheel


def test_an_installed_plugin_reads_its_format_and_extends_a_template(tmp_path: Path) -> None:
    env = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env)
    python = env / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True
    ).stdout.strip()
    # The project and its dependencies, from this checkout and this interpreter: nothing is downloaded.
    Path(purelib, "sessite_under_test.pth").write_text(f"{REPO}\n{sysconfig.get_paths()['purelib']}\n")
    wheel = make_wheel(tmp_path)
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", "--no-index", wheel], check=True)
    templates = subprocess.run(
        [
            python,
            "-c",
            "import sessite_demo_plugin as p, pathlib; print(pathlib.Path(p.__file__).parent / 'templates')",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    archive = tmp_path / "archive"
    archive.mkdir()
    (archive / "hello.demo.txt").write_text("Hello from a plugin format\nHi back\n", "utf-8")
    (archive / "sessite.toml").write_text(f"templates = {json.dumps(templates)}\n", "utf-8")
    out = tmp_path / "site"
    result = subprocess.run(
        [python, "-m", "sessite", "build", archive, "-o", out, "--cache-dir", tmp_path / "cache"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("built 1 session"), result.stdout
    page = (out / "sessions" / "demo-hello.html").read_text("utf-8")
    assert '<span class="demo-banner">from the demo plugin</span>' in page
    assert "Hello from a plugin format" in page and "All sessions" in page  # the built-in page around it


def test_a_broken_plugin_is_a_problem_line_not_a_stopped_build() -> None:
    points = [
        EntryPoint("missing", "no_such_module_here:READER", "sessite.readers"),
        EntryPoint("clash", "sessite.readers.formats.hail:READER", "sessite.readers"),
        EntryPoint("notreader", "json:dumps", "sessite.readers"),
    ]
    readers, errors = plugin_readers({HAIL.name}, points)
    assert readers == ()
    assert [e.name for e in errors] == ["clash", "missing", "notreader"]
    assert "named 'hail' like another reader" in errors[0].message
    assert "ModuleNotFoundError" in errors[1].message
    assert "not a sessite Reader" in errors[2].message


def test_discovery_without_plugins_adds_no_problem() -> None:
    problems = Problems()
    discover(EXAMPLE / "hail", problems)
    assert not [p for p in problems.items if p.source.startswith("plugin ")]


def test_outputs_are_passed_into_the_build(tmp_path: Path) -> None:
    outputs = tuple(a for a in DEFAULT_AGGREGATES if a is not SearchIndex)
    config = SiteConfig(archive=EXAMPLE / "hail", output=tmp_path / "site", cache_dir=tmp_path / "cache")
    report = build(config, outputs=outputs)
    assert report.sessions and (tmp_path / "site" / "index.html").is_file()
    assert not (tmp_path / "site" / "search.html").exists()
    assert DEFAULT_AGGREGATES[1] is SearchIndex  # the default list is untouched


def test_templates_and_static_in_the_settings_file(tmp_path: Path) -> None:
    (tmp_path / "theme").mkdir()
    settings = settings_from_dict({"templates": "theme", "static": ["theme"]}, "sessite.toml", tmp_path)
    assert settings == {"template_dirs": (tmp_path / "theme",), "static_dirs": (tmp_path / "theme",)}
    with pytest.raises(ConfigFileError, match="'templates': .*missing is not a folder"):
        settings_from_dict({"templates": "missing"}, "sessite.toml", tmp_path)
