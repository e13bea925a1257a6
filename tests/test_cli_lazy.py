"""A run imports only the command module it names (mcplock/cli/app.py, ``COMMANDS``): the table
must say exactly what each module registers, and `--help` must still list every command in order."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from mcplock.cli import app as cli_app

COMMANDS_DIR = Path(cli_app.__file__).parent / "commands"


def test_the_table_names_every_command_module():
    modules = {p.stem for p in COMMANDS_DIR.glob("*.py") if p.stem != "__init__" and "def register(" in p.read_text()}
    assert modules == set(cli_app.COMMANDS)


@pytest.mark.parametrize("module", sorted(cli_app.COMMANDS))
def test_the_table_says_what_each_module_registers(module):
    a = typer.Typer()
    a.callback()(lambda: None)  # a group even for a module of one command
    importlib.import_module(f"mcplock.cli.commands.{module}").register(a)
    assert list(typer.main.get_command(a).commands) == list(cli_app.COMMANDS[module])


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (["list"], "list"),
        (["-q", "--no-color", "show", "x"], "show"),
        (["--lockfile", "list", "diff"], "diff"),  # `list` is --lockfile's value here
        (["--lockfile=a.lock", "update-pr"], "update-pr"),
        (["--help"], None),
        (["--bogus", "list"], None),
        ([], None),
    ],
)
def test_the_command_name_skips_the_global_options(args, name):
    assert cli_app.command_name(args) == name


def _imported_commands(*args: str, cwd: Path) -> list[str]:
    code = (
        "import sys\n"
        "from mcplock.cli.app import run\n"
        f"run({list(args)!r})\n"
        "print('MODULES', sorted(m for m in sys.modules if m.startswith('mcplock.cli.commands.')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=60, env=dict(os.environ)
    ).stdout
    line = next(x for x in out.splitlines() if x.startswith("MODULES "))
    return eval(line[len("MODULES ") :])  # a list literal this test printed


def test_a_command_imports_only_its_own_module(tmp_path):
    assert _imported_commands("list", cwd=tmp_path) == ["mcplock.cli.commands.listing"]
    assert _imported_commands("-q", "verify-lock", cwd=tmp_path) == ["mcplock.cli.commands.interop"]


def test_help_lists_every_command_in_order_after_one_ran_alone(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cli_app.run(["check"])  # registers the check module alone, first
    capsys.readouterr()
    assert cli_app.run(["--help"]) == 0
    out = capsys.readouterr().out
    listed = [line.split()[0] for line in out.split("Commands:")[1].splitlines() if line.startswith("  ")]
    fresh = typer.Typer()
    fresh.callback()(lambda: None)
    for module in cli_app.COMMANDS:  # every module, in the table's order, on a new app
        importlib.import_module(f"mcplock.cli.commands.{module}").register(fresh)
    assert listed == list(typer.main.get_command(fresh).commands)
    assert sorted(listed) == sorted(name for names in cli_app.COMMANDS.values() for name in names)


def test_a_command_that_validates_a_schema_builds_no_iri_grammars(tmp_path):
    """jsonschema imports rfc3987-syntax when it is installed (the test extra's CycloneDX validation
    installs it, as Jupyter does) and builds ~40 grammars at import: mcplock checks no string format,
    so the console script never loads it (~1.3 s of CPU per command that reads a schema)."""
    import importlib.util

    from conftest import MCPLOCK

    assert importlib.util.find_spec("rfc3987_syntax") is not None  # installed here: else this proves nothing
    (tmp_path / "doc.json").write_text("{}")
    r = subprocess.run(
        [MCPLOCK, "verify-lock", "doc.json", "--no-lock"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPROFILEIMPORTTIME": "1"},
    )
    assert r.returncode == 1, r.stdout + r.stderr  # the schema was read: `{}` lacks what it requires
    imported = {line.rsplit("|", 1)[-1].strip() for line in r.stderr.splitlines() if line.startswith("import time:")}
    assert "jsonschema" in imported
    grammars = sorted(m for m in imported if m.split(".")[0] == "lark" or m.startswith("rfc3987_syntax."))
    assert grammars == []
