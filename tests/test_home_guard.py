"""The home-directory guard of tests/conftest.py fails a run that writes to the real home, even
as root (where the read-only stand-in home stops nothing): proven on a throwaway test file run
by a real pytest in a subprocess, with a scratch directory as its "real" home."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import ROOT, watch_home


def _run_inner(tmp_path: Path, body: str, watch: str = "1") -> tuple[subprocess.CompletedProcess[str], Path]:
    real_home = tmp_path / "real-home"
    (real_home / ".config").mkdir(parents=True)
    (real_home / ".profile").write_text("# untouched\n")
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "pytest.ini").write_text("[pytest]\n")
    (inner / "test_inner.py").write_text(
        f"import os\nfrom pathlib import Path\n\nREAL_HOME = Path({str(real_home)!r})\n\n\ndef test_it():\n{body}\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "XDIST_"))}
    env.update(HOME=str(real_home), PYTHONPATH=str(ROOT / "tests"), MCPLOCK_TEST_WATCH_HOME=watch)
    # the guard is tests/conftest.py alone (-p conftest): no installed plugin is loaded (hypothesis's
    # import alone is ~1.3 s of CPU, four times over)
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "conftest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "-c",
            str(inner / "pytest.ini"),
            "--rootdir",
            str(inner),
            str(inner / "test_inner.py"),
        ],
        cwd=inner,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return r, real_home


def test_a_clean_run_passes(tmp_path):
    r, _ = _run_inner(tmp_path, "    Path('scratch.txt').write_text('x')  # the working directory is the test's own")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "home directory changed" not in r.stdout


def test_writing_to_the_real_home_fails_the_run_and_names_the_paths(tmp_path):
    body = (
        "    (REAL_HOME / '.config' / 'mcplock').mkdir()\n"
        "    (REAL_HOME / '.config' / 'mcplock' / 'tokens.json').write_text('{}')\n"
        "    (REAL_HOME / 'mcp.lock').write_text('version = 1')\n"
        "    os.utime(REAL_HOME / '.profile', (1, 1))"
    )
    r, home = _run_inner(tmp_path, body)
    out = r.stdout + r.stderr
    assert r.returncode == 1, out  # the test itself passed; the guard failed the run
    assert "1 passed" in out, out
    assert "the real home directory changed during the run" in out, out
    for line in (
        f"created: {home / '.config' / 'mcplock'}",
        f"created: {home / '.config' / 'mcplock' / 'tokens.json'}",
        f"created: {home / 'mcp.lock'}",
        f"modified: {home / '.profile'}",
    ):
        assert line in out, out


def test_writing_to_home_through_the_environment_fails_the_test(tmp_path):
    # $HOME is the test's stand-in: root writes there unhindered, and the test still fails
    r, home = _run_inner(tmp_path, "    Path(os.environ['HOME'], '.mcplockrc').write_text('x')")
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    if os.geteuid() == 0:
        assert "the test wrote to the home directory ($HOME): ['.mcplockrc']" in out, out
    else:
        assert "PermissionError" in out, out
    assert sorted(p.name for p in home.iterdir()) == [".config", ".profile"]


def test_the_real_home_is_watched_only_where_the_suite_runs_alone(tmp_path):
    # a workstation: other programs of this user write to the home while the suite runs
    r, _ = _run_inner(tmp_path, "    (REAL_HOME / 'mcp.lock').write_text('version = 1')", watch="0")
    assert r.returncode == 0 and "home directory changed" not in r.stdout, r.stdout + r.stderr
    assert watch_home({"CI": "true"}) and watch_home({"MCPLOCK_TEST_WATCH_HOME": "1"})
    assert not watch_home({}) and not watch_home({"CI": "true", "MCPLOCK_TEST_WATCH_HOME": "0"})
