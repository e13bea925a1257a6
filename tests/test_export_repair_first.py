"""Issue 42.9 (the rest): while the lock fails its hashes, `mcplock export` refuses it, so no
hint may send a person to it first: `check`'s export findings and `--no-export`'s note name the
repair (the committed lock restored from git) before the export; followed as written, they
leave a project whose `check` passes."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from lockdata import make_lock


def _git(*args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True, capture_output=True)


def _before(text: str, first: str, then: str) -> bool:
    return first in text and then in text and text.index(first) < text.index(then)


def test_export_hints_name_the_repair_first_while_the_lock_fails_its_hashes(cli):
    make_lock()
    Path(".mcp.json").write_text(json.dumps({"mcpServers": {"docs": {"command": "python", "args": ["server.py"]}}}))
    assert cli("export", "--host", "claude-code").returncode == 0
    _git("init", "-q")
    _git("add", ".")
    _git("commit", "-qm", "lock and export")
    good = Path("mcp.lock").read_text()
    Path("mcp.lock").write_text(good.replace('description = "Delete a page."', 'description = "Delete a pag."'))
    assert cli("export").returncode == 2  # the export refuses the lock, as every hint must know

    r = cli("disable", "docs/search_docs", "--no-export")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "--no-export" in r.stderr and _before(r.stderr, "git checkout -- mcp.lock", "mcplock export"), r.stderr

    r = cli("check", "--format", "json")
    assert r.returncode == 1, r.stdout + r.stderr
    found = {f["code"]: f for f in json.loads(r.stdout)["findings"]}
    assert "hash-mismatch" in found and "export-drift" in found, found
    hint = found["export-drift"]["hint"]
    assert _before(hint, "git checkout -- mcp.lock", "mcplock export --host claude-code"), hint
    assert not re.match(r"run `mcplock export", hint)

    # followed as written: the lock restored, then the export the hint names
    _git("checkout", "--", "mcp.lock")
    assert cli("export", "--host", "claude-code").returncode == 0
    r = cli("check")
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_sound_lock_keeps_the_plain_export_hint(cli):
    make_lock()
    Path(".mcp.json").write_text(json.dumps({"mcpServers": {"docs": {"command": "python", "args": ["server.py"]}}}))
    assert cli("export", "--host", "claude-code").returncode == 0
    assert cli("disable", "docs/search_docs", "--no-export").returncode == 0
    r = cli("check", "--format", "json")
    hint = next(f["hint"] for f in json.loads(r.stdout)["findings"] if f["code"] == "export-drift")
    assert hint.startswith("run `mcplock export --host claude-code`"), hint
