"""Publishing survives a kill at any step and a full, read-only or forbidden disk.

The writer counts its filesystem steps; ``SESSITE_TEST_KILL_AT=N`` (or a step name)
makes the build SIGKILL itself just before step N. After every kill the site folder
must hold exactly the old build or exactly the new one, and the next ordinary build
must succeed, clear what the killed one left, and give the new site.
"""

from __future__ import annotations

import errno
import hashlib
import os
import pickle
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import EXAMPLE

from sessite.cli import main
from sessite.publish import swap
from sessite.publish.staging import KILL_AT_ENV, SITE_MARKER, WORK_MARKER, Steps, WorkFolder
from sessite.publish.writer import PublishError, SiteWriter, spool_file

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="kills need fork and SIGKILL")

Snapshot = dict[str, str]


def snapshot(site: Path) -> Snapshot:
    """relative path -> sha256 of every file, as ``cd site && find . -type f`` lists them."""
    found = {}
    for folder, _, names in os.walk(site):
        for name in names:
            path = Path(folder, name)
            found[path.relative_to(site).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


class Scene:
    """An old site (two sessions) and an archive changed since: one session kept, one
    removed, one added, so a publish keeps, rewrites, adds and deletes files."""

    def __init__(self, root: Path) -> None:
        self.archive = root / "archive"
        self.out = root / "out"
        self.site = self.out / "site"
        self.cache = root / "cache"
        self.saved = root / "saved"
        self.archive.mkdir()
        shutil.copy(next((EXAMPLE / "hail").iterdir()), self.archive)
        shutil.copy(next((EXAMPLE / "aics").iterdir()), self.archive)
        assert rebuild(self.args) == 0  # here, not forked: the forks below start with warm templates
        self.old = snapshot(self.site)
        shutil.copytree(self.out, self.saved / "out", symlinks=True)
        shutil.copytree(self.cache, self.saved / "cache")
        for path in self.archive.glob("*.aics.json"):
            path.unlink()
        shutil.copy(next((EXAMPLE / "amp").iterdir()), self.archive)
        assert rebuild(self.args) == 0
        self.new = snapshot(self.site)
        assert self.new != self.old and set(self.old) - set(self.new) and set(self.new) - set(self.old)
        self.restore()

    @property
    def args(self) -> list[str]:
        return ["build", str(self.archive), "-o", str(self.site), "-q", "--cache-dir", str(self.cache)]

    def restore(self) -> None:
        """Back to the old site and its cache, nothing else beside it."""
        for path in (self.out, self.cache):
            shutil.rmtree(path, ignore_errors=True)
        shutil.copytree(self.saved / "out", self.out, symlinks=True)
        shutil.copytree(self.saved / "cache", self.cache)

    def beside(self) -> list[str]:
        return sorted(os.listdir(self.out))


def build(args: list[str], kill_at: str | None = None, exchange: bool = True) -> int:
    """``sessite ARGS`` in a forked process (imports already warm): its exit status,
    or minus the signal that ended it."""
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 1
        try:
            if kill_at is not None:
                os.environ[KILL_AT_ENV] = kill_at
            if not exchange:
                swap._exchange = None
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            try:
                main(args, standalone_mode=False)
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
        finally:
            os._exit(code)
    deadline = time.monotonic() + 120
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise AssertionError(f"sessite {' '.join(args)} hung")
        time.sleep(0.005)


def rebuild(args: list[str]) -> int:
    """An ordinary ``sessite ARGS`` in this process: its exit status."""
    return CliRunner().invoke(main, args).exit_code


@pytest.fixture(scope="module")
def scene(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scene]:
    yield Scene(tmp_path_factory.mktemp("atomic"))


def test_a_kill_at_every_step_leaves_the_old_or_the_new_site(scene: Scene) -> None:
    seen = []
    for step in range(1, 500):
        scene.restore()
        status = build(scene.args, kill_at=str(step))
        if status == 0:
            break  # the build ran to its end before step N: every step has been tried
        assert status == -signal.SIGKILL, f"step {step}: exit status {status}"
        assert scene.site.is_dir() and not scene.site.is_symlink(), f"step {step}: no site folder"
        now = snapshot(scene.site)
        assert now in (scene.old, scene.new), f"step {step}: a mix of two builds"
        seen.append("old" if now == scene.old else "new")
        assert rebuild(scene.args) == 0, f"the build after a kill at step {step} failed"
        assert snapshot(scene.site) == scene.new, f"step {step}: the next build did not give the new site"
        assert scene.beside() == ["site"], f"step {step}: leftovers {scene.beside()}"
    else:
        raise AssertionError("the build never finished")
    assert len(seen) > 20 and seen[0] == "old" and seen[-1] == "new"
    assert seen == sorted(seen, key=("old", "new").index), "once new, the site never goes back"


@pytest.mark.parametrize("step", ["set-aside", "swap", "remove-old"])
def test_the_two_rename_swap_is_recovered_by_the_next_build(scene: Scene, step: str) -> None:
    """Where there is no atomic exchange (Windows, some file systems): a kill between the
    two renames leaves no site for a moment; the next build puts the old one back first."""
    scene.restore()
    assert build(scene.args, kill_at=step, exchange=False) == -signal.SIGKILL
    if scene.site.exists():
        assert snapshot(scene.site) in (scene.old, scene.new)
    else:
        assert step == "swap"
        SiteWriter(scene.site)  # what every build does first
        assert snapshot(scene.site) == scene.old
    assert build(scene.args, exchange=False) == 0
    assert snapshot(scene.site) == scene.new and scene.beside() == ["site"]


def test_a_real_process_killed_at_the_swap(scene: Scene) -> None:
    """The hook as a user's ``sessite build`` sees it: an environment variable, a separate interpreter."""
    scene.restore()
    env = {**os.environ, KILL_AT_ENV: "swap"}
    killed = subprocess.run([sys.executable, "-m", "sessite", *scene.args], env=env, capture_output=True)
    assert killed.returncode == -signal.SIGKILL
    assert snapshot(scene.site) == scene.old
    (left,) = [name for name in scene.beside() if name != "site"]
    assert left.startswith(".site.staging-")
    env.pop(KILL_AT_ENV)
    done = subprocess.run([sys.executable, "-m", "sessite", *scene.args], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert snapshot(scene.site) == scene.new and scene.beside() == ["site"]


def test_unchanged_files_keep_their_inode_and_mtime(scene: Scene) -> None:
    """Kept files are hard links of the published ones: write-if-changed still holds."""
    scene.restore()
    before = {url: os.stat(scene.site / url) for url in scene.old}
    assert build(scene.args) == 0
    for url in set(scene.old) & set(scene.new):
        if scene.old[url] == scene.new[url]:
            st = os.stat(scene.site / url)
            assert (st.st_ino, st.st_mtime_ns) == (before[url].st_ino, before[url].st_mtime_ns), url


def test_the_platform_exchange_swaps_two_folders(tmp_path: Path) -> None:
    if swap._exchange is None:
        pytest.skip("no atomic exchange on this platform: the two-rename swap is used")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "old").write_text("old")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "new").write_text("new")
    try:
        swap._exchange(os.fsencode(tmp_path / "b"), os.fsencode(tmp_path / "a"))
    except OSError as exc:
        pytest.skip(f"this file system refuses the exchange: {exc}")
    assert os.listdir(tmp_path / "a") == ["new"] and os.listdir(tmp_path / "b") == ["old"]


def test_a_site_that_is_a_symlink_keeps_pointing_at_its_folder(scene: Scene, tmp_path: Path) -> None:
    """SITE given as a link to a folder elsewhere (on the same disk): the folder is replaced, the link stays."""
    scene.restore()
    real = scene.out / "www"
    os.rename(scene.site, real)
    scene.site.symlink_to(real, target_is_directory=True)
    assert rebuild(scene.args) == 0
    assert scene.site.is_symlink() and snapshot(real) == scene.new
    assert sorted(os.listdir(scene.out)) == ["site", "www"]


def test_a_static_override_rebuilt_changes_nothing(tmp_path: Path) -> None:
    """A --static file replacing a built-in one: the second build finds the site up to date
    (it once staged the built-in file, dropped it, and failed publishing the gap)."""
    static = tmp_path / "static"
    static.mkdir()
    (static / "style.css").write_text("body { color: teal }")
    site = tmp_path / "out" / "site"
    args = [
        "build",
        str(EXAMPLE / "hail"),
        "-o",
        str(site),
        "--static",
        str(static),
        "--cache-dir",
        str(tmp_path / "c"),
    ]
    assert rebuild(args) == 0
    before = os.stat(site / "static" / "style.css")
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0 and "already up to date" in result.output, result.output
    after = os.stat(site / "static" / "style.css")
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert os.listdir(tmp_path / "out") == ["site"]


def test_the_site_folder_keeps_its_mode(scene: Scene) -> None:
    scene.restore()
    os.chmod(scene.site, 0o750)
    assert rebuild(scene.args) == 0
    assert scene.site.stat().st_mode & 0o777 == 0o750


def test_a_first_site_is_readable_by_a_web_server(tmp_path: Path) -> None:
    """The staging folder takes the umask's mode (mkdtemp's 0700 would hide the site from nginx)."""
    old = os.umask(0o022)
    try:
        assert rebuild(["build", str(EXAMPLE / "hail"), "-o", str(tmp_path / "site"), "-q"]) == 0
    finally:
        os.umask(old)
    assert (tmp_path / "site").stat().st_mode & 0o777 == 0o755


# ---------------------------------------------------------------- leftovers


def test_only_our_leftovers_are_removed(scene: Scene) -> None:
    scene.restore()
    out = scene.out
    mine = {  # name -> files in it
        ".site.staging-dead01": [WORK_MARKER, "index.html"],
        ".site.spool-dead02": [WORK_MARKER, "1-2-ab.part"],
        ".site.old-dead03": [SITE_MARKER, "index.html"],
        ".site.staging-empty4": [],
    }
    foreign = {
        ".site.staging-theirs": ["index.html"],  # our name, but no marker
        ".site.backup": [SITE_MARKER],  # a marker, but not our name
        ".other.staging-abc": [WORK_MARKER],  # another site's
        "site.staging-abc": [WORK_MARKER],
    }
    for name, files in {**mine, **foreign}.items():
        (out / name).mkdir()
        for file in files:
            (out / name / file).write_text("x")
    (out / ".site.spool-file").write_text("a file, not a folder")
    live = WorkFolder.create(scene.site, "staging", Steps())  # a build still running: locked
    try:
        assert build(scene.args) == 0
        assert set(scene.beside()) == {"site", *foreign, ".site.spool-file", live.path.name}
        assert (live.path / WORK_MARKER).is_file()
    finally:
        live.remove()
    assert snapshot(scene.site) == scene.new


def test_a_failed_build_leaves_no_work_folder(scene: Scene, monkeypatch: pytest.MonkeyPatch) -> None:
    scene.restore()

    def explode(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr("sessite.publish.writer.swap_in", explode)
    result = CliRunner().invoke(main, scene.args)
    assert isinstance(result.exception, RuntimeError)
    assert snapshot(scene.site) == scene.old and scene.beside() == ["site"]


# ---------------------------------------------------------------- disk faults


def _names_of_steps(scene: Scene) -> list[str]:
    """The step names of one publish, in order of first appearance."""
    names: list[str] = []
    real = Steps.__call__

    def record(self: Steps, name: str) -> None:
        if name not in names:
            names.append(name)
        real(self, name)

    scene.restore()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Steps, "__call__", record)
        assert CliRunner().invoke(main, scene.args).exit_code == 0
    return names


BEST_EFFORT = {"drop-spool", "remove-old", "clean"}  # deleting what nobody needs: a failure waits for the next build


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EACCES])
def test_a_disk_fault_at_any_step_is_one_line_and_keeps_the_old_site(
    scene: Scene, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    names = _names_of_steps(scene)
    assert {"staging", "mark", "write", "link", "unmark", "swap", "remove-old"} <= set(names)
    for name in names:
        scene.restore()

        def fault(self: Steps, step: str, failing: str = name) -> None:
            if step == failing:
                raise OSError(code, os.strerror(code), str(scene.out / "somewhere"))

        with monkeypatch.context() as patch:
            patch.setattr(Steps, "__call__", fault)
            result = CliRunner().invoke(main, scene.args)
        if name in BEST_EFFORT:
            assert result.exit_code == 0, (name, result.output)
            assert snapshot(scene.site) == scene.new
            continue
        lines = result.output.strip().splitlines()
        assert result.exit_code == 1 and len(lines) == 1, (name, result.output)
        assert lines[0].startswith("Error: cannot ") and os.strerror(code) in lines[0], lines[0]
        assert str(scene.site) in lines[0] and "previous site is left as it was" in lines[0]
        assert snapshot(scene.site) == scene.old, name
        assert scene.beside() == ["site"], (name, scene.beside())


@pytest.mark.parametrize("step", ["staging", "spool"])
def test_a_first_build_on_a_read_only_disk_publishes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    def read_only(self: Steps, name: str) -> None:
        if name == step:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(Steps, "__call__", read_only)
    site = tmp_path / "out" / "site"
    result = CliRunner().invoke(main, ["build", str(EXAMPLE / "hail"), "-o", str(site), "-q"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"Error: cannot create a {step} folder beside {site}: Read-only file system; nothing was published"
    ]
    assert os.listdir(tmp_path / "out") == []


def test_an_os_error_elsewhere_in_the_build_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def denied(*args: object, **kwargs: object) -> None:
        raise PermissionError(errno.EACCES, "Permission denied", "/srv/sessions/locked")

    monkeypatch.setattr("sessite.cli.build.build", denied)
    result = CliRunner().invoke(main, ["build", str(EXAMPLE / "hail"), "-o", str(tmp_path / "site")])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == ["Error: /srv/sessions/locked: Permission denied"]


def test_a_spool_write_that_fails_is_a_publish_error(tmp_path: Path) -> None:
    """Workers spool pages; a failing disk there must stop the build, not drop a page as if it were the page's fault."""
    with pytest.raises(PublishError) as caught:
        spool_file(tmp_path / "gone", ["<p>page</p>"])
    assert caught.value.errno == errno.ENOENT and str(tmp_path / "gone") in str(caught.value)

    def broken_page() -> Iterator[str]:
        yield "<p>half"
        raise ValueError("a template bug")

    with pytest.raises(ValueError):  # the page's own fault comes through as it is
        spool_file(tmp_path, broken_page())
    assert os.listdir(tmp_path) == []


def test_publish_error_pickles_for_worker_processes() -> None:
    error = PublishError.of("write /x/site", OSError(errno.EROFS, "Read-only file system", "/x/.site.spool-1/a"))
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is PublishError and str(again) == str(error) and again.errno == errno.EROFS


def test_publish_error_keeps_the_errno() -> None:
    error = PublishError.of("write /x/site/a.html", OSError(errno.ENOSPC, "No space left on device", "/x/.site.s/a"))
    assert error.errno == errno.ENOSPC and isinstance(error, OSError)
    assert str(error) == ("cannot write /x/site/a.html: No space left on device; the previous site is left as it was")
