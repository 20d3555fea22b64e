"""The wheel carries its templates and static files: install it into a fresh venv and build."""

import subprocess
import sys
import venv
from pathlib import Path

from helpers import EXAMPLE, REPO


def run(*cmd, cwd=None):
    result = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"{cmd}\n{result.stdout}\n{result.stderr}"
    return result


def test_wheel_installs_and_builds_the_example(tmp_path):
    dist = tmp_path / "dist"
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", dist, REPO)
    wheel = next(dist.glob("sessite-*.whl"))
    env = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env)
    python = env / "bin" / "python"
    run(python, "-m", "pip", "install", "-q", wheel)
    # Run from outside the checkout so only the installed package can be found.
    out = tmp_path / "site"
    result = run(env / "bin" / "sessite", "build", EXAMPLE, "-o", out, cwd=tmp_path)
    assert result.stdout.startswith("built ")
    assert (out / "index.html").is_file() and (out / "static" / "app.js").is_file()
    located = run(
        python, "-c", "import sessite.render.resources as r; print(r.templates_dir())", cwd=tmp_path
    ).stdout.strip()
    assert Path(located).is_relative_to(env), located
