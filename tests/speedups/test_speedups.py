"""The speed-ups switch (SESSITE_SPEEDUPS=0): the libraries do the work, and every byte is the same."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import EXAMPLE, REPO, SAMPLES

from sessite import speedups
from sessite.speedups import pretty


def _build(archive: Path, out: Path, switch: str) -> dict[str, bytes]:
    env = dict(os.environ, SESSITE_SPEEDUPS=switch)
    result = subprocess.run(
        [sys.executable, "-m", "sessite", "build", archive, "-o", out, "--cache-dir", out.parent / f"cache-{switch}"],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert result.returncode in (0, 2), result.stderr
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("name", ["example", "samples"])
def test_the_switch_changes_no_byte_of_a_site(tmp_path: Path, name: str) -> None:
    archive = EXAMPLE if name == "example" else SAMPLES
    if not archive.is_dir():
        pytest.skip(f"{archive} not found")
    fast = _build(archive, tmp_path / "fast", "1")
    plain = _build(archive, tmp_path / "plain", "0")
    assert fast.keys() == plain.keys()
    assert [name for name in fast if fast[name] != plain[name]] == []


def test_the_switch_is_read_from_the_environment() -> None:
    code = "from sessite import speedups; print(speedups.ENABLED)"
    off = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, SESSITE_SPEEDUPS="0"), capture_output=True)
    on = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, SESSITE_SPEEDUPS="1"), capture_output=True)
    assert (off.stdout.strip(), on.stdout.strip()) == (b"False", b"True")
    assert (os.environ.get("SESSITE_SPEEDUPS", "1").strip() != "0") == speedups.ENABLED


VALUES = [
    {"command": "ls -la", "timeout": 120, "nested": {"list": [1, 2.5, None, True, False], "empty": {}, "none": []}},
    ["ünïcode ✓", 'quote " and \\ backslash', "\u2028 line sep", "\x00 nul", 1e300, -0.0, 10**30],
    {"a": [{"b": [[]]}], "c": ""},
    3,
    None,
]


@pytest.mark.parametrize("value", VALUES)
def test_pretty_is_json_dumps(value: object) -> None:
    assert pretty.dumps(value) == json.dumps(value, ensure_ascii=False, indent=2)


@pytest.mark.parametrize("value", [{1: "a"}, {"x": object()}, [float("nan")]])
def test_pretty_leaves_the_rest_to_json_dumps(value: object) -> None:
    assert pretty.dumps(value) is None
