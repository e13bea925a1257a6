"""The core workflows without the CLI: targets, entry <-> spec, the acceptance rule."""

from __future__ import annotations

import os

import pytest

from mcplock.core import add as core_add
from mcplock.core import specs
from mcplock.errors import UsageError
from mcplock.lint import LintFinding
from mcplock.lock import review, targets
from mcplock.lock.model import Entry, Lock, ServerEntry
from mcplock.lock.spec import ServerSpec

from lockdata import TOOLS, snapshot


@pytest.mark.parametrize(
    "text, kind, key",
    [
        ("docs", None, None),
        ("docs/search", "tool", "search"),
        ("docs/prompt:intro", "prompt", "intro"),
        ("docs/resource-template:file:///{p}", "resource-template", "file:///{p}"),
        ("docs/resource:file:///a", "resource", "file:///a"),
        ("docs/instructions", "instructions", "instructions"),
    ],
)
def test_targets_parse_and_format_are_inverse(text, kind, key):
    t = targets.parse(text)
    assert (t.server, t.kind, t.key) == ("docs", kind, key)
    assert str(t) == text
    if kind is not None:
        assert targets.label("docs", Entry(kind=kind, key=key)) == text


@pytest.mark.parametrize("name", ["instructions", "prompt:x", "tool:x", "resource:file:///a"])
def test_a_tool_named_like_another_target_is_formatted_with_tool_prefix(name):
    text = targets.label("docs", Entry(kind="tool", key=name))
    assert text == f"docs/tool:{name}"
    t = targets.parse(text)
    assert (t.kind, t.key) == ("tool", name)


def test_targets_refuse_what_is_not_a_target():
    with pytest.raises(UsageError, match="is not a target"):
        targets.parse("docs/")
    # whether `docs/prompt:x` is a tool depends on the lock: a tool may carry that name
    lock = Lock(servers={"docs": ServerEntry(name="docs", spec=ServerSpec("docs", transport="stdio", command="x"))})
    lock.servers["docs"].items["prompt"]["x"] = Entry(kind="prompt", key="x")
    with pytest.raises(UsageError, match="is not a tool"):
        targets.resolve(lock, targets.parse("docs/prompt:x"), tool_only=True)
    lock.servers["docs"].tools["prompt:x"] = Entry(kind="tool", key="prompt:x")
    with pytest.raises(UsageError, match="docs/tool:prompt:x"):  # both exist: ambiguous, both spellings named
        targets.resolve(lock, targets.parse("docs/prompt:x"))
    del lock.servers["docs"].items["prompt"]["x"]
    _, [e] = targets.resolve(lock, targets.parse("docs/prompt:x"), tool_only=True)  # only the tool: unambiguous
    assert e.kind == "tool"


def test_entry_and_spec_round_trip(tmp_path):
    spec = ServerSpec(
        name="docs",
        transport="stdio",
        command="python",
        args=("server.py",),
        env={"A": "${A}"},
        cwd="sub",
        source=".mcp.json",
    )
    entry = specs.entry_from_spec(spec, "all", "sha256:x", auth=None)
    back = entry.as_launched(str(tmp_path))
    assert back.command == "python" and back.args == ("server.py",) and back.env == {"A": "${A}"}
    assert back.cwd == os.path.join(str(tmp_path), "sub") == specs.probe_spec(spec, str(tmp_path)).cwd
    assert entry.config_hash == "sha256:x" and entry.as_locked().source == ".mcp.json"


def test_client_identity_needs_a_name_for_a_version():
    with pytest.raises(UsageError):
        specs.client_identity(None, "1.0")


def test_critical_findings_are_never_accepted_wholesale():
    entry = ServerEntry(name="docs", spec=ServerSpec("docs", transport="stdio", command="python"))
    review.stage(entry, snapshot(TOOLS))
    findings = {
        ("docs", "tool", "delete_page"): [LintFinding("hidden-instructions", "critical", "poison", "description")]
    }
    assert core_add.has_critical(entry, findings)
    held = core_add.accept_all_but_critical(entry, findings)
    assert held == ["docs/delete_page"]
    assert entry.tools["search_docs"].definition is not None and entry.tools["search_docs"].pending is None
    assert entry.tools["delete_page"].definition is None and entry.tools["delete_page"].pending is not None


# --- add: the token store read once, the package tree verified once -------------------------


def test_add_reads_what_the_lock_records_of_each_servers_auth_in_one_pass(monkeypatch):
    """core/oauth.read_lock_auths: one token store for every probed server (it was opened once in
    entry_from_spec and again for the discovered issuers, per server)."""
    from mcplock.auth import store
    from mcplock.core.oauth import read_lock_auths
    from mcplock.lock.auth_spec import AuthSpec

    opened, asked = [], []

    class Store:
        def __init__(self, environ=None, root=None):
            opened.append(self)

        def exists(self, url):
            asked.append(url)
            return url.endswith("/a")

        def load(self, url):
            asked.append(url)
            return {"auth_server_url": "https://as.example.com"}

    monkeypatch.setattr(store, "TokenStore", Store)
    specs = [
        ServerSpec("a", transport="http", url="https://x.example.com/a"),
        ServerSpec("b", transport="http", url="https://x.example.com/b"),
        ServerSpec(
            "c", transport="http", url="https://x.example.com/c", auth=AuthSpec("identity-assertion", client_id="app")
        ),
        ServerSpec("d", transport="stdio", command="node"),
    ]
    auths = read_lock_auths(specs)
    assert len(opened) == 1 and len(asked) == 3  # a, b and c's issuer; never the stdio one
    assert auths["a"] == AuthSpec("oauth") and auths["b"] is None and auths["d"] is None
    assert auths["c"] is not None and auths["c"].issuer == "https://as.example.com"


def test_the_probe_launches_what_pinning_verified_without_verifying_it_again(monkeypatch):
    """core/probing.prepare_packages(prepared=…): add's pinned launch is not prepared (its tree
    verified) a second time; any other pinned spec still is."""
    from mcplock import packages
    from mcplock.core.probing import prepare_packages
    from mcplock.packages.pin import PackagePin

    prepared = []
    monkeypatch.setattr(packages, "prepare", lambda spec, environ=None: prepared.append(spec.name) or spec)
    pin = PackagePin("npm", "docs-server", "1.0.0", "sha512-x")
    a = ServerSpec("a", transport="stdio", command="npx", args=("docs-server@1.0.0",), package=pin)
    b = ServerSpec("b", transport="stdio", command="npx", args=("docs-server@1.0.0",), package=pin)
    ready_a = ServerSpec("a", transport="stdio", command="/cache/node", args=("main.js",), package=pin)
    out, failed = prepare_packages([a, b], None, {"a": ready_a})
    assert out == [ready_a, b] and not failed
    assert prepared == ["b"]
