"""Issue 42.2 and 47.8: the cloaking probe is right about an honest server, and its identities
are as real as the hosts they name.

The official `@modelcontextprotocol/server-everything` offers its sampling, roots and
elicitation tools only to clients that declare those capabilities: a tool missing exactly where
an identity lacks the capability it needs is the protocol at work, not cloaking (before: six
`critical` findings, exit 1, above a summary that said "0 with drift"). The summary line counts
the cloaking findings. A server that keys on what only a real host sends — the era it opens
with, `clientInfo.title`, a `ping` before it lists again — is still caught.
"""

from __future__ import annotations

import json
import shutil
import sys

import pytest

from conftest import FIXTURES

EVERYTHING = FIXTURES / "reference" / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist"


@pytest.mark.reference
def test_server_everything_is_not_a_cloaker(cli):
    if not EVERYTHING.is_dir():
        pytest.skip("the npm reference servers are not installed: `make setup`")
    node = shutil.which("node")
    assert node is not None
    r = cli("add", "everything", "--yes", "--timeout", "60", "--", node, str(EVERYTHING / "index.js"), "stdio")
    assert r.returncode == 0, r.stdout + r.stderr
    r = cli("diff", "--cloak", "--timeout", "60")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "critical" not in r.stdout
    assert "0 cloaking finding(s)" in r.stdout
    for tool, cap in (
        ("trigger-sampling-request", "sampling"),
        ("get-roots-list", "roots"),
        ("trigger-elicitation-request", "elicitation"),
    ):
        assert f"offered tool {tool} — offered only to clients that declare `{cap}`" in r.stdout
    r = cli("diff", "--cloak", "--format", "json", "--timeout", "60")
    assert r.returncode == 0
    assert json.loads(r.stdout)["summary"]["cloaked"] == 0


def test_identities_go_on_in_their_session_and_the_summary_counts_what_they_saw(cli):
    """A server that changes its answer once a client has sent more than one request (a scanner
    lists once; a host pings and lists again): every identity now does what its host does, so
    each is answered otherwise and named — not only the repeat — and the summary counts them."""
    cloak = FIXTURES / "cloak_fixture.py"
    r = cli("add", "notes", "--yes", "--", sys.executable, str(cloak), "--era", "legacy", "--by", "requests:1")
    assert r.returncode == 0, r.stderr
    r = cli("diff", "--cloak", "--format", "json")
    assert r.returncode == 1
    d = json.loads(r.stdout)
    named = {f["identity"].split(" (")[0] for f in d["servers"][0]["cloaking"]}
    assert {"Claude Code", "Cursor", "Codex", "Gemini CLI", "VS Code", "mcplock, asked again"} <= named
    assert d["summary"]["cloaked"] == len(d["servers"][0]["cloaking"]) > 0
    text = cli("diff", "--cloak")
    assert f"{d['summary']['cloaked']} cloaking finding(s)" in text.stdout
