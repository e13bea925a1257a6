"""`mcplock outdated`'s output in-process (the registries stood in for by the rows the core
returns; tests/test_registry.py and tests/test_pins.py ask real ones): the table, the failures
after it, the hint, the JSON report and the exit codes."""

from __future__ import annotations

import json

import pytest

from mcplock.cli.app import run
from mcplock.core import update
from mcplock.core.update import Row
from mcplock.errors import ProbeError

ROWS = [
    Row("docs", "npm", "@acme/docs", "1.0.0", "1.2.0", "behind"),
    Row("time", "pypi", "mcp-server-time", "2026.10.19", "2026.10.19", "up-to-date"),
    Row("local", status="local"),
    Row("gone", "npm", "@acme/gone", "2.0.0", None, "error", error=ProbeError("registry", "npm did not answer")),
]


@pytest.fixture
def rows(monkeypatch):
    """The lock is not read; ``outdated`` returns what the test sets."""
    given: list[Row] = []
    monkeypatch.setattr("mcplock.lock.read.load", lambda path: None)
    monkeypatch.setattr("mcplock.lock.targets.select", lambda lock, names: [])
    monkeypatch.setattr(update, "outdated", lambda selected: given)
    return given


def test_the_table_then_each_failure_then_what_to_run(rows, capsys):
    rows.extend(ROWS)
    assert run(["outdated"]) == 1  # one behind
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        "server  package               current     latest      status",
        "docs    npm @acme/docs        1.0.0       1.2.0       behind",
        "time    pypi mcp-server-time  2026.10.19  2026.10.19  up-to-date",
        "gone    npm @acme/gone        2.0.0       -           error",
    ]
    assert "gone: npm did not answer" in err and "move them with `mcplock update [NAME…]`" in err


def test_exit_3_when_only_a_registry_failed_and_0_when_nothing_is_pinned(rows, capsys):
    rows.extend(r for r in ROWS if r.status in ("up-to-date", "error"))
    assert run(["outdated"]) == 3
    assert "move them with" not in capsys.readouterr().err
    rows[:] = [Row("local", status="local")]
    assert run(["outdated"]) == 0
    assert capsys.readouterr().out == "no server runs a registry package (nothing to pin)\n"


def test_json_has_every_row_and_the_summary(rows, capsys):
    rows.extend(ROWS)
    assert run(["outdated", "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert [s["server"] for s in doc["servers"]] == ["docs", "time", "local", "gone"]
    assert doc["summary"] == {"servers": 4, "behind": 1, "errors": 1} and doc["exit_code"] == 1
