"""Fail-safe, round 3 (docs/failing-safe.md, "Round 3"): hostile lock edits and inputs that
broke a promise. The guard's part (item 1) is tests/test_guard_wellformed.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_pins_offline import NPM_INTEGRITY, PYPI, write_lock

from mcplock.packages import prepare
from mcplock.packages.errors import IntegrityError
from mcplock.packages.pin import PackagePin
from mcplock.spec import ServerSpec

# --- 2. a pin's version is one exact release ----------------------------------------------------

NOT_EXACT = [
    ("npm", "npm:evil@1.0.0"), ("npm", "^1.0.0"), ("npm", "latest"), ("npm", "1.x"), ("npm", "1.0"),
    ("npm", "https://evil.example/x.tgz"), ("npm", "file:../x"), ("npm", "github:evil/x"), ("npm", "1.0.0 || 2"),
    ("pypi", ">=1.0"), ("pypi", "1.0,>=0"), ("pypi", "1.*"), ("pypi", "1.0 @ https://evil.example/x.whl"),
    ("pypi", "1.0; python_version>'0'"), ("pypi", ""),
]


def _pin(registry: str, version: str) -> PackagePin:
    return PackagePin(registry, "x", version, NPM_INTEGRITY if registry == "npm" else PYPI)


@pytest.mark.parametrize(("registry", "version"), NOT_EXACT)
def test_a_pin_that_is_no_exact_version_is_never_launched(registry, version):
    command = "npx" if registry == "npm" else "uvx"
    spec = ServerSpec(name="s", transport="stdio", command=command, args=("x",), package=_pin(registry, version))
    with pytest.raises(IntegrityError, match="names no one exact release") as e:
        prepare(spec)
    assert "nothing was started" in e.value.message and "mcplock update s" in (e.value.hint or "")


@pytest.mark.parametrize(("registry", "version"), [("npm", "1.2.3"), ("npm", "1.0.0-rc.1"), ("npm", "2026.8.31"),
                                                   ("pypi", "2026.10.19"), ("pypi", "1.0rc1"), ("pypi", "1!2.0.post1")])
def test_exact_versions_are_exact(registry, version):
    assert _pin(registry, version).problem() is None


def test_check_flags_an_aliased_pin_and_trust_shows_the_pin(cli):
    write_lock(s=("npx", ["-y", "x"], PackagePin("npm", "x", "1.0.0", NPM_INTEGRITY)))
    assert cli("check").returncode == 0
    write_lock(s=("npx", ["-y", "x"], PackagePin("npm", "x", "npm:evil@1.0.0", NPM_INTEGRITY)))
    r = cli("check")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "names no one exact release: `version` `npm:evil@1.0.0` is not an exact semver version" in r.stdout
    assert "check/pin-not-exact" in cli("check", "--format", "sarif").stdout
    # the guard refuses before anything runs, and the trust question shows what would run
    r = cli("run", "s")
    assert r.returncode == 2, r.stderr
    assert "— runs the pinned npm package x@npm:evil@1.0.0 (REFUSED: `version`" in r.stderr


def test_the_trust_question_shows_a_sound_pin_too(cli):
    write_lock(s=("npx", ["-y", "x@latest"], PackagePin("npm", "x", "1.0.0", NPM_INTEGRITY)))
    r = cli("run", "s")
    assert r.returncode == 2
    assert "npx -y x@latest" in r.stderr and "— runs the pinned npm package x@1.0.0\n" in r.stderr
    assert Path("mcp.lock").exists()
