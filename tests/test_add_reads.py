"""What one `mcplock add` reads, traced in-process through the whole command (the CLI, the
workflow, the probe of a real fixture server): a pinned package's tree verified once (pinning
verifies it and the probe launches that, docs/pins.md) and the token store read once per
moment that needs it, by functions named for it (issue 36: it was read twice inside functions
named as if pure, and the tree verified twice)."""

from __future__ import annotations

import sys
from dataclasses import replace

import pytest

from mcplock.auth import store
from mcplock.cli.app import run
from mcplock.packages import pinned, registries
from mcplock.packages.pin import PackagePin

from runner import SURFACES, http_fixture, stdio_command

PIN = PackagePin("npm", "docs-server", "1.0.0", "sha512-" + "A" * 86 + "==")


@pytest.fixture
def reads(monkeypatch):
    """Every token-store read (``exists``, ``load``: "token store exists by F", F the function
    that read it) and every tree verification (:func:`mcplock.packages.pinned.prepare`) during
    the test, in order."""
    seen: list[str] = []
    for name in ("exists", "load"):
        orig = getattr(store.TokenStore, name)

        def spy(self, url, _orig=orig, _name=name):
            seen.append(f"token store {_name} by {sys._getframe(1).f_code.co_name}")
            return _orig(self, url)

        monkeypatch.setattr(store.TokenStore, name, spy)
    return seen


def test_a_pinned_stdio_add_verifies_the_package_tree_once_and_reads_no_token(monkeypatch, reads):
    """npm stand-ins: the registry resolves to PIN, ``packages.pinned.prepare`` (install + verify the
    tree) launches the fixture server; everything else is the real `add`."""
    cmd = stdio_command(mode="benign", surface=str(SURFACES / "demo.json"))
    monkeypatch.setattr(registries, "resolve", lambda launch, environ=None, requested=None: PIN)

    def prepare(spec, environ=None):
        reads.append(f"tree verified: {spec.name}")
        return replace(
            spec, command=cmd[0], args=tuple(cmd[1:]), package=replace(PIN, tree_integrity="sha256:" + "c" * 64)
        )

    monkeypatch.setattr(pinned, "prepare", prepare)
    code = run(["add", "docs", "--yes", "--timeout", "20", "--", "npx", "-y", "docs-server@1.0.0"])
    assert code == 0
    assert reads == ["tree verified: docs"]
    from mcplock.lock.read import load

    assert load("mcp.lock").servers["docs"].spec.package == replace(PIN, tree_integrity="sha256:" + "c" * 64)


def test_a_remote_add_reads_the_token_store_once_at_the_connection_and_once_after_the_probe(reads):
    """At the connection: whether it carries a stored login (``auth.read_uses_oauth``); after
    the probe: what the lock records (``core.oauth.read_lock_auths``, in one pass). The second
    read is not the first one again: the probe may log in and store a token in between
    (``core/oauth.after_probe``; tests/test_auth.py: ``add --login`` locks ``auth = "oauth"``),
    and an identity assertion stores the issuer it discovered. Nothing else opens the store, and
    each reader's name says that it reads (issue 36: ``wants_oauth`` and ``_logged_in`` did not)."""
    with http_fixture(surface=SURFACES / "demo.json") as base:
        code = run(["add", "remote", base + "/mcp", "--yes", "--timeout", "20"])
    assert code == 0
    assert reads == ["token store exists by read_uses_oauth", "token store exists by _read_logged_in"]
