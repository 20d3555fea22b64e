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


def test_sdist_and_wheel_carry_the_release_metadata(tmp_path):
    """What PyPI shows and pip checks: readme, licence file, classifiers, project URLs, the mcp extra;
    the wheel is built from the sdist (as ``python -m build`` does), so the sdist is complete."""
    import email
    import tarfile
    import zipfile

    dist = tmp_path / "dist"
    run(sys.executable, "-m", "build", "--outdir", dist, REPO)
    sdist = next(dist.glob("sessite-*.tar.gz"))
    wheel = next(dist.glob("sessite-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        meta = email.message_from_bytes(z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))))
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "sessite/templates/base.html" in names and "sessite/static/app.js" in names
    assert meta["License-Expression"] == "MIT" and meta["Description-Content-Type"] == "text/markdown"
    assert "pipx install sessite" in meta.get_payload()  # the README is the description
    classifiers = meta.get_all("Classifier")
    assert "Programming Language :: Python :: 3.11" in classifiers and "Typing :: Typed" in classifiers
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL"))
    assert set(urls) >= {"Source", "Issues", "Changelog", "Documentation"}
    assert "mcp" in meta.get_all("Provides-Extra")
    with tarfile.open(sdist) as t:
        members = {m.split("/", 1)[1] for m in t.getnames() if "/" in m}
    assert {"LICENSE", "README.md", "pyproject.toml", "templates/base.html", "static/app.js"} <= members
    assert any(m.startswith("example-archive/") for m in members)
