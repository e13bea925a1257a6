"""Shared test set-up: every test runs in its own directory with a clean environment and a
home directory that must not be touched.

The home-directory guard holds as root too, where permission bits stop nothing:

- per test: HOME, the XDG base directories (what platformdirs reads on Linux) and mcplock's
  own overrides point into the test's tmp directory; the stand-in home is read-only (for
  non-root users a write fails on the spot) and must still be empty when the test ends;
- per run, where nothing but the suite runs as this user (CI, or ``MCPLOCK_TEST_WATCH_HOME=1``):
  the real home (``$HOME`` as the run started) is fingerprinted before the first test and after
  the last: its top-level listing with mtimes, and everything named mcplock under ~/.config,
  ~/.cache, ~/.local/share and ~/.local/state. Any change fails the run and is listed
  (tests/test_home_guard.py proves it does). On a workstation other programs of the same user
  (an editor, a shell, mcplock run by hand) change the home while the suite runs, and the
  fingerprint cannot tell theirs from a test's: there the per-test isolation holds alone.
  ``MCPLOCK_TEST_WATCH_HOME=0`` turns the watch off on CI.
"""

from __future__ import annotations

import os
import pwd
import stat
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
if str(FIXTURES) not in sys.path:
    sys.path.insert(0, str(FIXTURES))

# the set-up the update-pr tests share: origin, the PyPI index, the GitHub API stand-in, a project
pytest_plugins = ["update_pr_setup"]

BIN = Path(sys.executable).parent
MCPLOCK = str(BIN / "mcplock")

# --- the real home, fingerprinted --------------------------------------------------------------

# $HOME as the run started (what Python, git, node and pip expand ~ to); the passwd entry without it
REAL_HOMES = [Path(os.environ.get("HOME") or pwd.getpwuid(os.getuid()).pw_dir)]
WATCHED_SUBDIRS = (".config", ".cache", ".local/share", ".local/state")


def _entry(path: Path) -> tuple[str, int] | None:
    try:
        st = path.lstat()
    except OSError:
        return None
    return stat.filemode(st.st_mode), st.st_mtime_ns


def home_fingerprint(homes: list[Path] = REAL_HOMES) -> dict[str, tuple[str, int] | None]:
    """path → (mode, mtime) for each real home, its top-level entries, and every entry under a
    watched directory's ``mcplock`` (None: absent)."""
    fp: dict[str, tuple[str, int] | None] = {}
    for home in homes:
        fp[str(home)] = _entry(home)
        try:
            top = list(os.scandir(home))
        except OSError:
            continue
        for e in top:
            fp[e.path] = _entry(Path(e.path))
        for sub in WATCHED_SUBDIRS:
            ours = home / sub / "mcplock"
            fp[str(ours)] = _entry(ours)
            if ours.is_dir() and not ours.is_symlink():
                for p in ours.rglob("*"):
                    fp[str(p)] = _entry(p)
    return fp


def home_changes(before: dict, after: dict) -> list[str]:
    changes = []
    for path in sorted(set(before) | set(after)):
        b, a = before.get(path), after.get(path)
        if b == a:
            continue
        what = "created" if b is None else "removed" if a is None else "modified"
        changes.append(f"{what}: {path}")
    return changes


def _is_xdist_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def watch_home(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether this run fingerprints the real home (see the module docstring)."""
    chosen = environ.get("MCPLOCK_TEST_WATCH_HOME", "")
    if chosen in ("0", "1"):
        return chosen == "1"
    return environ.get("CI", "").lower() in ("1", "true", "yes")


def pytest_configure(config: pytest.Config) -> None:
    # the controller (or the only process) watches; xdist workers run inside its watch
    if not _is_xdist_worker(config) and watch_home():
        config._mcplock_home_before = home_fingerprint()  # type: ignore[attr-defined]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    before = getattr(session.config, "_mcplock_home_before", None)
    if before is None:
        return
    changes = home_changes(before, home_fingerprint())
    session.config._mcplock_home_changes = changes  # type: ignore[attr-defined]
    if changes:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    changes = getattr(config, "_mcplock_home_changes", None)
    if changes:
        terminalreporter.section("the real home directory changed during the run", sep="!", red=True)
        for line in changes:
            terminalreporter.line(line, red=True)
        terminalreporter.line("No test may touch the home directory: use tmp_path (HOME points there).", red=True)


def live_signals() -> None:
    """``preexec_fn`` for a child a test interrupts: it starts with SIGINT, SIGTERM and SIGHUP at their
    defaults, as from a terminal. A run started in the background (``make test &``, ``nohup``) hands
    SIGINT and SIGHUP down ignored, and Python keeps an inherited ignore: the child would never stop."""
    import signal

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


# --- every test: its own home, XDG directories and working directory ---------------------------


@pytest.fixture(autouse=True)
def _isolate(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    os.chmod(home, 0o500)  # non-root: any write to the home directory fails loudly
    monkeypatch.setenv("HOME", str(home))
    for var, name in (
        ("XDG_CONFIG_HOME", "xdg-config"),
        ("XDG_CACHE_HOME", "xdg-cache"),
        ("XDG_DATA_HOME", "xdg-data"),
        ("XDG_STATE_HOME", "xdg-state"),
        ("XDG_RUNTIME_DIR", "xdg-runtime"),
    ):
        monkeypatch.setenv(var, str(tmp_path / name))
    # the caller's settings never reach a test: a CI runner sets CI=true (the reviewed lock runs
    # without trust records), a developer may have MCPLOCK_* set; tests that want them say so
    for var in [v for v in os.environ if v.startswith("MCPLOCK_")] + ["CI", "GITHUB_ACTIONS"]:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    # OSV is a stand-in here (fixtures/osv_api.py): a test that does not start one reaches a closed
    # local port ("cannot reach OSV", as offline), never the real api.osv.dev from a CI runner
    monkeypatch.setenv("MCPLOCK_OSV_URL", "http://127.0.0.1:9")
    # a user's shell: the installed `mcplock` is on PATH (`export --guard` writes `mcplock` only then;
    # tests of a venv that is not on PATH set PATH themselves)
    monkeypatch.setenv("PATH", os.pathsep.join([str(BIN), os.environ.get("PATH", "")]))
    monkeypatch.setenv("COLUMNS", "200")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    yield
    os.chmod(home, 0o700)
    # root: the permission bits stopped nothing, so look
    written = sorted(str(p.relative_to(home)) for p in home.rglob("*"))
    assert not written, f"the test wrote to the home directory ($HOME): {written}"


def run_cli(
    *args: str,
    input: str | None = None,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """Run the installed console script for real (a fresh process, real exit code)."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    return subprocess.run(
        [MCPLOCK, *args], input=input, capture_output=True, text=True, env=full_env, cwd=cwd, timeout=timeout
    )


@pytest.fixture
def cli():
    return run_cli
