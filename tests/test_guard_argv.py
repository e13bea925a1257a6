"""mcplock/model/guard_argv.py: the guard's command line read without the CLI stack (the fast start
of `mcplock run`, and `check`/`export` recognising a host entry that runs the guard)."""

from __future__ import annotations

from mcplock.model.guard_argv import GuardArgs, guard_target, parse


def test_a_plain_run_reads_into_typed_options_with_the_clis_defaults(monkeypatch):
    monkeypatch.delenv("MCPLOCK_LOCKFILE", raising=False)
    assert parse(["run", "docs"]) == GuardArgs(name="docs", lockfile="mcp.lock", timeout=30.0, request_timeout=120.0)
    got = parse(
        [
            "--lockfile",
            "x.lock",
            "-q",
            "run",
            "docs",
            "--timeout=5",
            "--request-timeout",
            "7",
            "--strict",
            "--client-name",
            "cursor",
            "--client-version",
            "1.2",
            "--policy",
            "p.toml",
            "-v",
            "--no-color",
        ]
    )
    assert got == GuardArgs(
        name="docs",
        lockfile="x.lock",
        timeout=5.0,
        request_timeout=7.0,
        client_name="cursor",
        client_version="1.2",
        policy="p.toml",
        strict=True,
        verbose=True,
        quiet=True,
        no_color=True,
    )
    monkeypatch.setenv("MCPLOCK_LOCKFILE", "env.lock")
    assert parse(["run", "docs"]) == GuardArgs(name="docs", lockfile="env.lock")


def test_anything_else_goes_to_the_full_cli():
    for argv in (
        ["run"],
        ["run", "a", "b"],
        ["list"],
        ["run", "docs", "--timeout"],
        ["run", "docs", "--timeout", "0"],
        ["run", "docs", "--request-timeout", "-1"],
        ["run", "docs", "--timeout", "soon"],
        ["run", "docs", "--help"],
    ):
        assert parse(argv) is None, argv
    assert guard_target("/usr/local/bin/mcplock", ["run", "docs", "--lockfile", "a/mcp.lock"]) == "docs"
    assert guard_target("npx", ["run", "docs"]) is None and guard_target("mcplock", "run docs") is None


def test_a_valued_option_takes_the_next_word_whatever_it_is(monkeypatch):
    monkeypatch.delenv("MCPLOCK_LOCKFILE", raising=False)
    assert parse(["run", "docs", "--client-name", ""]) == GuardArgs(name="docs", client_name="")
    assert parse(["--lockfile=", "x.lock", "run", "docs"]) == GuardArgs(name="docs", lockfile="x.lock")
    assert parse(["run", "docs", "--policy", "-q"]) == GuardArgs(name="docs", policy="-q")
    assert parse(["run", "docs", "--lockfile="]) is None  # nothing left to take
    assert parse(["run", "docs", "--unknown"]) is None and parse(["-x", "run", "docs"]) is None
