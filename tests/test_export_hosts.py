"""A real host reads what `mcplock export` wrote: Gemini CLI (from npm, tests/hostcli) lists the
servers of the exported `.gemini/settings.json` and still connects to the fixture server.
`gemini mcp list` needs no account or network; it runs in an isolated HOME that trusts the
project folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lockdata import make_lock

ROOT = Path(__file__).resolve().parent.parent
GEMINI = ROOT / "tests" / "hostcli" / "node_modules" / ".bin" / "gemini"
FIXTURE = ROOT / "fixtures" / "mcp_fixture.py"

pytestmark = pytest.mark.skipif(
    not GEMINI.exists(), reason="Gemini CLI not installed (make setup runs npm ci in tests/hostcli)"
)


def _gemini_list(home: Path, project: Path) -> str:
    gdir = home / ".gemini"
    gdir.mkdir(parents=True, exist_ok=True)
    (gdir / "trustedFolders.json").write_text(json.dumps({str(project): "TRUST_FOLDER"}))
    # `mcplock` on PATH: a guard-routed entry launches `mcplock run NAME`
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    env = {**os.environ, "HOME": str(home), "NO_COLOR": "1", "PATH": path}
    r = subprocess.run([str(GEMINI), "mcp", "list"], cwd=project, env=env, capture_output=True, text=True, timeout=120)
    return r.stdout + r.stderr


def test_gemini_reads_the_exported_settings_and_connects(cli, tmp_path):
    project = Path.cwd()
    make_lock()
    Path(".gemini").mkdir()
    settings = {"mcpServers": {"docs": {"command": sys.executable, "args": [str(FIXTURE), "stdio"]}}}
    Path(".gemini/settings.json").write_text(json.dumps(settings, indent=2) + "\n")
    assert cli("disable", "docs/delete_page").returncode == 0
    assert cli("approval", "docs/search_docs", "never").returncode == 0
    r = cli("export")
    assert r.returncode == 0, r.stderr
    exported = json.loads(Path(".gemini/settings.json").read_text())
    assert exported["mcpServers"]["docs"]["excludeTools"] == ["delete_page"]
    assert exported["tools"]["allowed"] == ["mcp_docs_search_docs"]
    out = _gemini_list(tmp_path / "ghome", project)
    assert "docs" in out and "Connected" in out and "Disconnected" not in out, out
    assert "fix the configuration" not in out, out  # Gemini validates settings.json against its schema
    # --guard: Gemini now launches `mcplock run docs` (the guard itself is another command)
    assert cli("export", "--guard").returncode == 0
    out = _gemini_list(tmp_path / "ghome", project)
    assert "mcplock run docs" in out, out
    assert cli("export", "--no-guard").returncode == 0
    assert "Connected" in _gemini_list(tmp_path / "ghome", project)


def test_gemini_would_report_a_wrongly_shaped_export(tmp_path):
    """The control for the test above: Gemini CLI does check what it reads."""
    project = Path.cwd()
    Path(".gemini").mkdir()
    Path(".gemini/settings.json").write_text(
        json.dumps(
            {"mcpServers": {"docs": {"command": sys.executable, "args": [str(FIXTURE), "stdio"], "excludeTools": "x"}}}
        )
    )
    out = _gemini_list(tmp_path / "ghome", project)
    assert "Expected array, received string" in out and "fix the configuration" in out, out


def test_gemini_connects_through_the_guard(cli, tmp_path):
    """`export --guard` routes the server through `mcplock run NAME`: Gemini CLI starts the guard,
    which verifies the upstream against the lock and serves it; `--no-guard` restores the entry."""
    project = Path.cwd()
    command = [sys.executable, str(FIXTURE), "stdio"]
    r = cli("add", "fx", "--yes", "--", *command)
    assert r.returncode == 0, r.stderr
    Path(".gemini").mkdir()
    Path(".gemini/settings.json").write_text(
        json.dumps({"mcpServers": {"fx": {"command": command[0], "args": command[1:]}}}, indent=2) + "\n"
    )
    assert cli("export").returncode == 0
    plain = Path(".gemini/settings.json").read_bytes()
    assert cli("export", "--guard").returncode == 0
    routed = json.loads(Path(".gemini/settings.json").read_text())["mcpServers"]["fx"]
    assert (routed["command"], routed["args"]) == ("mcplock", ["run", "fx"])
    out = _gemini_list(tmp_path / "ghome", project)
    assert "fx: mcplock run fx" in out and "Connected" in out and "Disconnected" not in out, out
    assert cli("check").returncode == 0
    assert cli("export", "--no-guard").returncode == 0
    assert Path(".gemini/settings.json").read_bytes() == plain
