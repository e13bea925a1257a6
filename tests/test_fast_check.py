"""`mcplock check`'s all-clear without typer and rich (`mcplock/cli/fast_check.py`): the same
bytes and exit code as the full CLI, and every other outcome left to the full CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from mcplock.cli import fast_check

from lockdata import make_lock

PROBE = (
    "import sys\nfrom mcplock.__main__ import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n"
    "    code = e.code\nheavy = sorted({'typer', 'rich'} & {m.split('.')[0] for m in sys.modules})\n"
    "print('exit', code, 'heavy', heavy, file=sys.stderr)\n"
)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=120)


def test_the_all_clear_skips_the_cli_stack_and_says_the_same(cli):
    make_lock()
    fast = _run("check")
    assert fast.stderr.strip().endswith("exit 0 heavy []"), fast.stderr
    full = cli("check", "--format", "text")  # an option of its own: the full CLI
    assert full.returncode == 0 and fast.stdout == full.stdout
    assert fast.stdout.startswith("ok: mcp.lock: 1 server, ")  # one server, not "1 servers" (issue 42.10)
    quiet = _run("-q", "check", "--lockfile", "mcp.lock")
    assert quiet.stdout == "" and quiet.stderr.strip().endswith("exit 0 heavy []")


def test_anything_else_goes_to_the_full_cli(cli):
    assert fast_check.parse(["check", "--format", "json"]) is None
    assert fast_check.parse(["-v", "check"]) is None
    assert fast_check.parse(["list"]) is None
    assert fast_check.parse(["--lockfile", "x.lock", "check", "--no-color"]) == ("x.lock", False)
    missing = _run("check")  # no lock here: the full CLI's error and exit code
    assert "no lock file here" in missing.stderr and "exit 2 heavy ['rich', 'typer']" in missing.stderr
    make_lock()
    text = Path("mcp.lock").read_text()
    Path("mcp.lock").write_text(text.replace("Search the docs", "Search the docs, edited", 1))
    tampered = _run("check")
    assert "hash-mismatch" in tampered.stdout and "exit 1 heavy ['rich', 'typer']" in tampered.stderr
