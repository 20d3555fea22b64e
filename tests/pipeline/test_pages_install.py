"""The Pages workflow's install line works before and after the first PyPI release.

The line ``sessite init --github-pages`` writes is run as GitHub Actions runs it
(bash), in a fresh venv, with pip pointed at local folders only (no index):
after a release it finds ``sessite==X`` (here: the wheel built from this checkout,
in a --find-links folder); before one, that fails and it builds the same version
from its git tag (here: a clone of this checkout, tagged, reached by ``file://``).
Only sessite itself is installed (``PIP_NO_DEPS``): what is tested is which
distribution the line finds, and that it is this version with its templates.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest
import yaml
from helpers import REPO

from sessite import __version__
from sessite.pipeline.github_pages import default_install, github_pages_workflow, repository_url


def _run(*cmd, env=None, cwd=None, check=True):
    result = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=600, env=env, cwd=cwd)
    if check:
        assert result.returncode == 0, f"{cmd}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


def _install_line(workflow: str) -> str:
    steps = yaml.safe_load(workflow)["jobs"]["build"]["steps"]
    return next(s["run"] for s in steps if s.get("name") == "Install sessite")


def _fresh_venv(path: Path) -> Path:
    venv.EnvBuilder(with_pip=True).create(path)
    return path / "bin"


def _offline(bin_dir: Path, links: Path, **more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env |= {
        "PATH": f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(links),
        "PIP_NO_DEPS": "1",
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    return env | more


def _installed(bin_dir: Path) -> tuple[str, bool]:
    code = (
        "import importlib.metadata as m, pathlib, sessite;"
        "print(m.version('sessite'), (pathlib.Path(sessite.__file__).parent / 'templates' / 'base.html').is_file())"
    )
    version, templates = _run(bin_dir / "python", "-c", code, cwd="/").stdout.split()
    return version, templates == "True"


def test_the_default_line_pins_this_version_from_pypi_then_its_git_tag():
    line = _install_line(github_pages_workflow())
    pypi, from_git = default_install()
    assert line == f'python -m pip install "{pypi}" || python -m pip install "{from_git}"'
    assert pypi == f"sessite=={__version__}"
    assert from_git == f"sessite @ git+{repository_url()}@v{__version__}"
    assert repository_url().startswith("https://github.com/")  # from the package's [project.urls] Source


def test_after_a_release_the_line_installs_the_published_wheel(tmp_path):
    links = tmp_path / "index"
    _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", links, REPO)
    bin_dir = _fresh_venv(tmp_path / "venv")
    line = _install_line(github_pages_workflow())
    result = _run("bash", "-e", "-c", line, env=_offline(bin_dir, links), cwd=tmp_path)
    assert "git" not in result.stdout.lower()  # the first requirement was enough
    assert _installed(bin_dir) == (__version__, True)


def test_before_a_release_the_line_builds_the_tagged_source(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    # the build backend, from a local folder: pip builds the tag without an index
    backend = tmp_path / "backend"
    fetched = _run(sys.executable, "-m", "pip", "download", "-q", "-d", backend, "hatchling>=1.27", check=False)
    if fetched.returncode != 0:
        pytest.skip("hatchling could not be fetched for the build backend")
    repo = tmp_path / "sessite-repo"
    _run("git", "clone", "-q", "--no-hardlinks", REPO, repo)
    _run("git", "-C", repo, "checkout", "-q", "-B", "work")
    for item in ("pyproject.toml", "sessite", "templates", "static", "README.md", "LICENSE"):  # this checkout as it is
        source = REPO / item
        target = repo / item
        if source.is_dir():
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target)
    env_git = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    env_git["GIT_COMMITTER_EMAIL"] = "t@t"
    _run("git", "-C", repo, "add", "-A", env=env_git)
    _run("git", "-C", repo, "commit", "-q", "--allow-empty", "-m", "release", env=env_git)
    _run("git", "-C", repo, "tag", f"v{__version__}", env=env_git)

    bin_dir = _fresh_venv(tmp_path / "venv")
    env = _offline(bin_dir, tmp_path / "empty-index")
    (tmp_path / "empty-index").mkdir()
    _run(
        bin_dir / "python",
        "-m",
        "pip",
        "install",
        "-q",
        "--find-links",
        backend,
        "hatchling",
        env=env | {"PIP_NO_DEPS": ""},
    )
    # file://localhost/: the old pip a fresh venv brings reads no empty host in a requirement's URL
    line = _install_line(github_pages_workflow(repository=f"file://localhost{repo}"))
    assert line.endswith(f'"sessite @ git+file://localhost{repo}@v{__version__}"')
    # PIP_NO_BUILD_ISOLATION=0 (pip reads it inverted): build with the venv's hatchling, no index needed
    result = _run("bash", "-e", "-c", line, env=env | {"PIP_NO_BUILD_ISOLATION": "0"}, cwd=tmp_path)
    assert "sessite==" in result.stderr or "No matching distribution" in result.stderr  # PyPI's turn failed first
    assert _installed(bin_dir) == (__version__, True)
