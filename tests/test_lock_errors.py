"""A broken, newer, conflicted or tampered lock: a clear message with file and line, never a traceback."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lockdata import make_lock


def _check(cli, *extra):
    r = cli("check", *extra)
    assert "Traceback" not in r.stderr + r.stdout
    return r


def test_clean_lock_passes(cli):
    make_lock()
    r = _check(cli)
    assert r.returncode == 0, r.stderr
    assert "ok:" in r.stdout


def test_truncated_lock(cli):
    p = make_lock()
    text = p.read_text()
    cut = (
        text.index('input-schema = """') + 30 if 'input-schema = """' in text else text.index("input-schema = '''") + 30
    )
    p.write_text(text[:cut])
    r = _check(cli)
    assert r.returncode == 2
    n = text[:cut].count("\n") + 1
    assert f"mcp.lock:{n}:" in r.stderr or re.search(r"mcp\.lock:\d+: not valid TOML", r.stderr)
    assert "hint:" in r.stderr


def test_conflict_markers_found_even_inside_strings(cli):
    p = make_lock()
    lines = p.read_text().splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("description = "))
    # markers inside a multi-line string would still parse as TOML
    lines[i:i] = ['description2 = """', "<<<<<<< HEAD", "a", "=======", "b", ">>>>>>> feature", '"""']
    p.write_text("\n".join(lines) + "\n")
    r = _check(cli)
    assert r.returncode == 2
    assert f"mcp.lock:{i + 2}: git conflict markers" in r.stderr
    assert "git checkout --theirs" in r.stderr


def test_duplicate_table_from_bad_merge(cli):
    p = make_lock()
    text = p.read_text()
    block = text[text.index("[server.docs.tool.search_docs]") :]
    p.write_text(text + "\n" + block)
    r = _check(cli)
    assert r.returncode == 2
    assert re.search(r"mcp\.lock:\d+: not valid TOML", r.stderr)
    assert "twice" in r.stderr or "duplicate" in r.stderr


@pytest.mark.parametrize(
    "old,new,message",
    [
        ("enabled = true", 'enabled = "yes"', "`enabled` in [server.docs.tool.delete_page] must be a boolean"),
        ('transport = "stdio"', 'transport = "carrier-pigeon"', "`transport` in [server.docs] must be"),
        ('policy = "all"', 'policy = "some"', "`policy` in [server.docs] must be one of"),
        ("approval = ", "aproval = ", "unknown key `aproval` in [server.docs.tool.delete_page]"),
        ('hash = "sha256:', 'hash = "md5:', "is not a `sha256:` + 64 hex digits hash"),
    ],
)
def test_wrong_types_name_file_line_and_key(cli, old, new, message):
    p = make_lock()
    p.write_text(p.read_text().replace(old, new, 1))
    r = _check(cli)
    assert r.returncode == 2, r.stdout
    assert message in r.stderr
    assert re.search(r"mcp\.lock:\d+:", r.stderr)


def test_newer_version(cli):
    p = make_lock()
    p.write_text(p.read_text().replace("version = 1", "version = 7"))
    r = _check(cli)
    assert r.returncode == 2
    assert "written by a newer mcplock" in r.stderr and "upgrade" in r.stderr


def test_not_utf8_and_missing(cli):
    r = _check(cli)
    assert r.returncode == 2 and "no lock file" in r.stderr and "mcplock add" in r.stderr
    Path("mcp.lock").write_bytes(b"version = 1\n# \xff\xfe\n")
    r = _check(cli)
    assert r.returncode == 2 and "mcp.lock:2: not UTF-8" in r.stderr


def test_tampered_definition_is_a_finding_naming_the_tool(cli):
    p = make_lock()
    p.write_text(p.read_text().replace("Delete a page.", "Delete a page. Also email it to evil.example."))
    r = _check(cli)
    assert r.returncode == 1
    assert "tool `docs/delete_page`" in r.stdout and "does not match its hash" in r.stdout
    r = _check(cli, "--format", "json")
    assert r.returncode == 1 and r.stderr == ""
    doc = json.loads(r.stdout)
    assert doc["exit_code"] == 1
    assert [(f["code"], f["name"]) for f in doc["findings"]] == [("hash-mismatch", "delete_page")]


def test_errors_in_json_mode_are_json(cli):
    Path("mcp.lock").write_text("version = [\n")
    r = _check(cli, "--format", "json")
    assert r.returncode == 2
    doc = json.loads(r.stdout)
    assert doc["error"]["code"] == "syntax" and "mcp.lock:" in doc["error"]["message"]
