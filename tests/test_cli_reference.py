"""docs/cli.md is generated from the CLI itself (scripts/cli_reference.py): it fails here when the
committed file differs from what the commands say, so the reference cannot drift (issue 42.13)."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

from conftest import MCPLOCK

ROOT = Path(__file__).resolve().parent.parent


def _script():
    spec = importlib.util.spec_from_file_location("cli_reference", ROOT / "scripts" / "cli_reference.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_committed_reference_is_what_the_app_generates():
    generated = _script().generate()
    committed = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert committed == generated, "docs/cli.md is out of date: run `.venv/bin/python scripts/cli_reference.py`"


def test_every_command_the_console_script_lists_has_a_section():
    listed = subprocess.run([MCPLOCK, "--help"], capture_output=True, text=True, env={"COLUMNS": "200", "PATH": ""})
    assert listed.returncode == 0
    commands = []
    in_commands = False
    for line in listed.stdout.splitlines():
        if line.startswith("Commands:"):
            in_commands = True
        elif in_commands and line.startswith("  ") and line.strip():
            commands.append(line.split()[0])
    assert len(commands) > 20, listed.stdout
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for name in commands:
        assert f"\n## mcplock {name}\n" in text, name
    # the exit codes the README sends readers to
    assert "Exit codes: 0 clean" in text
    # every option's value is named by what it is, never by its Python type (issue 42.12)
    for typed in ("<str>", "<float>", "<int>"):
        assert typed not in text
    for c in commands:
        shown = subprocess.run(
            [MCPLOCK, c, "--help"], capture_output=True, text=True, env={"COLUMNS": "200", "PATH": ""}
        )
        assert "<str>" not in shown.stdout and "<float>" not in shown.stdout, c
