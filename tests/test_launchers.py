"""What a server's command line runs from a registry (mcplock.packages.launchers): pure parsing."""

from __future__ import annotations

import pytest

from mcplock.packages.command_line import parse
from mcplock.packages.launchers import LOCAL, Launch, NoPin, image_ref, npm_spec, pypi_spec

D = "sha256:" + "ab" * 32


@pytest.mark.parametrize(
    ("command", "args", "want"),
    [
        (
            "npx",
            ["-y", "@modelcontextprotocol/server-memory"],
            Launch("npx", "npm", "@modelcontextprotocol/server-memory"),
        ),
        (
            "npx",
            ["@modelcontextprotocol/server-memory@2025.4.25", "--x", "1"],
            Launch("npx", "npm", "@modelcontextprotocol/server-memory", "2025.4.25", args=("--x", "1")),
        ),
        ("npx", ["--yes", "server-x@^1.2", "-y"], Launch("npx", "npm", "server-x", "^1.2", args=("-y",))),
        ("/usr/local/bin/npx", ["-y", "pkg@latest"], Launch("npx", "npm", "pkg")),
        ("npx.cmd", ["-y", "pkg@next"], Launch("npx", "npm", "pkg", "next")),
        (
            "npx",
            ["-y", "--package", "@scope/pkg@1.0.0", "the-bin", "a"],
            Launch("npx", "npm", "@scope/pkg", "1.0.0", bin="the-bin", args=("a",)),
        ),
        ("npx", ["--package=@scope/pkg", "-y", "the-bin"], Launch("npx", "npm", "@scope/pkg", bin="the-bin")),
        ("npx", ["-p", "pkg@2", "bin"], Launch("npx", "npm", "pkg", "2", bin="bin")),
        ("npx", ["-y", "--", "pkg@1.0.0", "--", "x"], Launch("npx", "npm", "pkg", "1.0.0", args=("--", "x"))),
        ("npx", ["--loglevel", "silent", "pkg"], Launch("npx", "npm", "pkg")),
        (
            "pnpm",
            ["dlx", "@scope/pkg@3.1.0", "stdio"],
            Launch("pnpm dlx", "npm", "@scope/pkg", "3.1.0", args=("stdio",)),
        ),
        ("pnpm", ["--silent", "dlx", "pkg"], Launch("pnpm dlx", "npm", "pkg")),
        ("pnpx", ["pkg@1"], Launch("pnpm dlx", "npm", "pkg", "1")),
        ("uvx", ["mcp-server-time"], Launch("uvx", "pypi", "mcp-server-time", bin="mcp-server-time")),
        (
            "uvx",
            ["mcp-server-time==2026.10.19", "--local-timezone", "UTC"],
            Launch(
                "uvx", "pypi", "mcp-server-time", "2026.10.19", bin="mcp-server-time", args=("--local-timezone", "UTC")
            ),
        ),
        (
            "uvx",
            ["mcp-server-time@2025.7.1"],
            Launch("uvx", "pypi", "mcp-server-time", "2025.7.1", bin="mcp-server-time"),
        ),
        ("uvx", ["mcp-server-time@latest"], Launch("uvx", "pypi", "mcp-server-time", bin="mcp-server-time")),
        (
            "uvx",
            ["--from", "mcp-server-git==2026.10.19", "mcp-server-git", "--repository", "."],
            Launch("uvx", "pypi", "mcp-server-git", "2026.10.19", bin="mcp-server-git", args=("--repository", ".")),
        ),
        (
            "uvx",
            ["--python", "3.12", "--from=pkg[cli]>=1,<2", "tool"],
            Launch("uvx", "pypi", "pkg", ">=1,<2", bin="tool"),
        ),
        ("uvx", ["-q", "--isolated", "pkg"], Launch("uvx", "pypi", "pkg", bin="pkg")),
        ("uv", ["tool", "run", "pkg==1.0"], Launch("uvx", "pypi", "pkg", "1.0", bin="pkg")),
        (
            "pipx",
            ["run", "mcp-server-fetch==2026.10.24"],
            Launch("pipx run", "pypi", "mcp-server-fetch", "2026.10.24", bin="mcp-server-fetch"),
        ),
        (
            "pipx",
            ["run", "--spec", "pkg==2.0", "pkg-cli", "--flag"],
            Launch("pipx run", "pypi", "pkg", "2.0", bin="pkg-cli", args=("--flag",)),
        ),
        ("pipx", ["run", "--python", "python3.12", "--no-cache", "pkg"], Launch("pipx run", "pypi", "pkg", bin="pkg")),
        ("docker", ["run", "-i", "--rm", "mcp/time"], Launch("docker run", "oci", "mcp/time", options=("-i", "--rm"))),
        (
            "docker",
            ["run", "-i", "--rm", "-e", "TOKEN", "ghcr.io/github/github-mcp-server:v0.12.1", "stdio"],
            Launch(
                "docker run",
                "oci",
                "ghcr.io/github/github-mcp-server",
                "v0.12.1",
                args=("stdio",),
                options=("-i", "--rm", "-e", "TOKEN"),
            ),
        ),
        (
            "docker",
            ["run", "-it", "-eA=1", "-v", "/a:/b", "--network=host", "--init", f"mcp/time@{D}"],
            Launch(
                "docker run",
                "oci",
                "mcp/time",
                options=("-it", "-eA=1", "-v", "/a:/b", "--network=host", "--init"),
                digest=D,
            ),
        ),
        (
            "docker",
            ["run", "-ie", "K=V", "localhost:5000/x/y:1.0"],
            Launch("docker run", "oci", "localhost:5000/x/y", "1.0", options=("-ie", "K=V")),
        ),
        (
            "docker",
            ["--context", "remote", "container", "run", "--rm", "img:tag@" + D],
            Launch("docker run", "oci", "img", "tag", options=("--rm",), digest=D),
        ),
    ],
)
def test_launchers(command, args, want):
    assert parse(command, args) == want


@pytest.mark.parametrize(
    ("command", "args", "reason"),
    [
        ("node", ["./server.js"], "local command"),
        ("python", ["-m", "mcp_server_time"], "local command"),
        ("npm", ["exec", "pkg"], "runs through `npm exec`"),  # a launcher behind npm: unpinned (round 4)
        ("npx", ["-y", "github:owner/repo"], "not an npm registry package"),
        ("npx", ["-y", "./local-dir"], "not an npm registry package"),
        ("npx", ["-y", "https://example.com/x.tgz"], "not an npm registry package"),
        ("npx", ["-y", "owner/repo"], "not an npm registry package"),
        ("npx", ["-c", "echo hi"], "shell command"),
        ("npx", ["--registry", "https://r.example", "pkg"], "another registry"),
        ("npx", ["-p", "a", "-p", "b", "bin"], "several packages"),
        ("npx", ["-y"], "names no package"),
        ("pnpm", ["install"], "local command"),
        ("uvx", ["--with", "extra", "pkg"], "--with"),
        ("uvx", ["--index-url", "https://i.example/simple", "pkg"], "--index-url"),
        ("uvx", ["git+https://github.com/o/r"], "not a PyPI package"),
        ("uvx", [], "names no package"),
        ("uv", ["run", "server.py"], "local command"),
        ("pipx", ["install", "pkg"], "local command"),
        ("pipx", ["run", "--pip-args=--pre", "pkg"], "another index"),
        ("docker", ["ps"], "local command"),
        ("docker", ["run", "--rm", "-i"], "names no image"),
        ("docker", ["run", "Bad_Image"], "not an image reference"),
        ("docker", ["run", "img@sha256:short"], "not an image reference"),
    ],
)
def test_no_pin(command, args, reason):
    got = parse(command, args)
    assert isinstance(got, NoPin)
    assert reason in got.reason


def test_remote_server_has_no_pin():
    assert parse(None, []) == NoPin("no registry pin (remote server)")
    assert parse("node", []) is LOCAL


@pytest.mark.parametrize(
    ("spec", "want"),
    [
        ("@a/b@1.2.3", ("@a/b", "1.2.3")),
        ("b", ("b", None)),
        ("b@latest", ("b", None)),
        ("b@", ("b", None)),
        ("@a/b", ("@a/b", None)),
        ("b@>=1 <2", ("b", ">=1 <2")),
        ("B", None),
        ("b@npm:c@1", None),
        ("@a", None),
    ],
)
def test_npm_spec(spec, want):
    assert npm_spec(spec) == want


@pytest.mark.parametrize(
    ("spec", "want"),
    [
        ("a==1.0", ("a", "1.0")),
        ("a == 1.0", ("a", "1.0")),
        ("a[x,y]==2", ("a", "2")),
        ("a>=1", ("a", ">=1")),
        ("a~=1.4", ("a", "~=1.4")),
        ("a==1.*", ("a", "==1.*")),
        ("a===1.0", ("a", "===1.0")),
        ("a@1.0", ("a", "1.0")),
        ("a", ("a", None)),
        ("./dir", None),
        ("a @ https://x/y.whl", None),
    ],
)
def test_pypi_spec(spec, want):
    assert pypi_spec(spec) == want


@pytest.mark.parametrize(
    ("ref", "want"),
    [
        ("mcp/time", ("mcp/time", None, None)),
        ("mcp/time:1", ("mcp/time", "1", None)),
        ("localhost:5000/a", ("localhost:5000/a", None, None)),
        (f"a:b@{D}", ("a", "b", D)),
        ("A/b", None),
        ("a:", None),
    ],
)
def test_image_ref(ref, want):
    assert image_ref(ref) == want
