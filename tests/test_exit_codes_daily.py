"""Issue 42.11: exit codes a CI step can rely on.

- A closed stdout (`mcplock check | true`, `mcplock --version | head -0`) leaves the exit code
  alone, as a closed stderr does: the reader went away, the command did not fail.
- A stdio server whose command, script or working directory is not on this machine is exit 2
  (an input error, like an unknown package), not 3 ("unreachable"): a CI that tolerates outages
  must not pass a broken path.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from conftest import MCPLOCK
from runner import stdio_command


def _closed_stdout(*args: str) -> subprocess.CompletedProcess[str]:
    """The console script with a stdout whose reader is gone before it writes a byte."""
    r, w = os.pipe()
    os.close(r)
    try:
        return subprocess.run([MCPLOCK, *args], stdout=w, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(w)


def test_a_closed_stdout_leaves_the_exit_code_alone(cli):
    cmd = stdio_command()
    assert cli("add", "docs", "--yes", "--", *cmd).returncode == 0
    for args in (("--version",), ("check",), ("list",), ("check", "--format", "json")):
        r = _closed_stdout(*args)
        assert r.returncode == 0, (args, r.stderr)
        assert "Traceback" not in r.stderr and "Exception ignored" not in r.stderr, (args, r.stderr)
    # and a failing command keeps its own code: a hand edit is 1 with or without a reader
    text = Path("mcp.lock").read_text()
    assert 'description = "' in text
    Path("mcp.lock").write_text(text.replace('description = "', 'description = "Edited. ', 1))
    assert _closed_stdout("check").returncode == cli("check").returncode == 1


def test_a_command_or_script_that_is_not_there_is_exit_2_not_3(cli):
    r = cli("add", "gone", "--yes", "--", "mcplock-no-such-command-here")
    assert r.returncode == 2, r.stdout + r.stderr
    assert "command `mcplock-no-such-command-here` not found" in r.stderr

    r = cli("add", "typo", "--yes", "--", "python3", "servre.py")
    assert r.returncode == 2, r.stdout + r.stderr
    assert "`servre.py`, which does not exist" in r.stderr

    # a locked server whose script went away: diff and refresh say 2, not "unreachable"
    cmd = stdio_command()
    script = Path("server.py")
    script.write_text(Path(cmd[1]).read_text())
    for helper in Path(cmd[1]).parent.glob("fixture_*.py"):  # the modules the script imports
        Path(helper.name).write_text(helper.read_text())
    assert cli("add", "docs", "--yes", "--", cmd[0], "server.py", *cmd[2:]).returncode == 0
    script.unlink()
    for args in (("diff",), ("refresh",)):
        r = cli(*args)
        assert r.returncode == 2, (args, r.stdout + r.stderr)
        assert "server.py" in r.stdout + r.stderr
