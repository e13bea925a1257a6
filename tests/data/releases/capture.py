"""Capture what PUBLISHED releases of the reference MCP servers expose, for tests/test_releases.py.

Run once by hand (needs the npm registry and PyPI; tests never touch the network):

    .venv/bin/python tests/data/releases/capture.py            # every release below
    .venv/bin/python tests/data/releases/capture.py time git   # just some servers
    .venv/bin/python tests/data/releases/capture.py time@2025.9.25   # just one release

For each (server, version) it installs that exact release into a throw-away directory
(`npm install --prefix` for npm packages, a fresh venv + `pip install` for PyPI packages),
runs it over stdio with `mcplock inspect --format json -- <cmd>`, and writes the JSON to
`tests/data/releases/<server>-<version>.json` with a `source` key saying where it came from.
Settings that would leak into definitions (local time zone, a temp directory, a memory file
path) are pinned to fixed values so the capture is reproducible.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
MCPLOCK = str(Path(sys.executable).parent / "mcplock")
FS_ROOT = "/tmp/mcplock-releases-root"  # fixed: the filesystem server may echo its allowed directory
# An old PyPI release declares `mcp>=1.0` but breaks on the SDK's 2.x API: install it with the
# 1.x SDK it was written for (what a user installing it back then got).
OLD_SDK = "mcp<2"
PYPI_PINS = {
    ("mcp-server-time", "0.6.2"): [OLD_SDK],
    ("mcp-server-time", "2025.7.1"): [OLD_SDK],
    ("mcp-server-time", "2025.9.25"): [OLD_SDK],
    ("mcp-server-time", "2026.1.26"): [OLD_SDK],
    ("mcp-server-git", "0.6.2"): [OLD_SDK],
    ("mcp-server-git", "2025.7.1"): [OLD_SDK],
    ("mcp-server-git", "2025.12.18"): [OLD_SDK],
    ("mcp-server-fetch", "0.6.2"): [OLD_SDK],
    ("mcp-server-fetch", "2025.4.7"): [OLD_SDK],
    ("mcp-server-sqlite", "0.6.2"): [OLD_SDK],
    ("mcp-server-sqlite", "2025.4.25"): [OLD_SDK],
}

# server -> (registry, package, [versions, oldest first], argv after the executable, env)
RELEASES: dict[str, tuple[str, str, list[str], list[str], dict[str, str]]] = {
    "everything": (
        "npm",
        "@modelcontextprotocol/server-everything",
        ["2025.1.14", "2025.7.1", "2025.9.25", "2025.12.18", "2026.8.31"],
        ["stdio"],
        {},
    ),
    "filesystem": (
        "npm",
        "@modelcontextprotocol/server-filesystem",
        ["2025.1.14", "2025.7.1", "2025.11.25", "2026.8.31"],
        [FS_ROOT],
        {},
    ),
    "memory": (
        "npm",
        "@modelcontextprotocol/server-memory",
        ["2025.4.25", "2025.8.4", "2025.11.25", "2026.8.31"],
        [],
        {"MEMORY_FILE_PATH": "/tmp/mcplock-releases-memory.json"},
    ),
    "sequential-thinking": (
        "npm",
        "@modelcontextprotocol/server-sequential-thinking",
        ["0.6.2", "2025.7.1", "2025.12.18", "2026.8.31"],
        [],
        {},
    ),
    "time": (
        "pypi",
        "mcp-server-time",
        ["0.6.2", "2025.7.1", "2025.9.25", "2026.1.26", "2026.10.19"],
        ["--local-timezone", "UTC"],
        {},
    ),
    "git": ("pypi", "mcp-server-git", ["0.6.2", "2025.7.1", "2025.12.18", "2026.10.19"], [], {}),
    "fetch": ("pypi", "mcp-server-fetch", ["0.6.2", "2025.4.7", "2026.10.24"], [], {}),
    "sqlite": ("pypi", "mcp-server-sqlite", ["0.6.2", "2025.4.25"], ["--db-path", "/tmp/mcplock-releases.db"], {}),
}


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess[str]:
    print("+", " ".join(cmd), file=sys.stderr, flush=True)
    return subprocess.run(cmd, check=True, text=True, **kw)


def install(registry: str, package: str, version: str, where: Path) -> list[str]:
    """Install one release under ``where``; return the command that starts it."""
    if registry == "npm":
        run(
            [
                "npm",
                "install",
                "--prefix",
                str(where),
                "--no-audit",
                "--no-fund",
                "--loglevel",
                "error",
                f"{package}@{version}",
            ],
            stdout=subprocess.DEVNULL,
        )
        pkg_dir = where / "node_modules" / package
        meta = json.loads((pkg_dir / "package.json").read_text())
        bin_field = meta.get("bin")
        rel = bin_field if isinstance(bin_field, str) else next(iter(bin_field.values()))
        return ["node", str(pkg_dir / rel)]
    venv = where / "venv"
    run([sys.executable, "-m", "venv", str(venv)])
    run(
        [
            str(venv / "bin" / "pip"),
            "install",
            "--quiet",
            "--disable-pip-version-check",
            f"{package}=={version}",
            *PYPI_PINS.get((package, version), []),
        ]
    )
    return [str(venv / "bin" / package)]


def capture(server: str) -> None:
    """Capture every release of ``server``, or one with ``server@version``."""
    server, _, only = server.partition("@")
    registry, package, versions, argv, env = RELEASES[server]
    os.makedirs(FS_ROOT, exist_ok=True)
    for version in [only] if only else versions:
        with tempfile.TemporaryDirectory(prefix=f"mcplock-{server}-{version}-") as tmp:
            cmd = install(registry, package, version, Path(tmp))
            env_args = [a for k, v in env.items() for a in ("--env", f"{k}={v}")]
            proc = run(
                [MCPLOCK, "inspect", "--format", "json", "--timeout", "120", *env_args, "--", *cmd, *argv],
                capture_output=True,
                cwd=tmp,
            )
            doc = json.loads(proc.stdout)
            doc["source"] = {"registry": registry, "package": package, "version": version, "args": argv, "env": env}
            out = HERE / f"{server}-{version}.json"
            out.write_text(json.dumps(doc, indent=2, ensure_ascii=False, sort_keys=True) + "\n")
            print(
                f"wrote {out.relative_to(HERE.parent.parent.parent)}: {len(doc['tools'])} tools, "
                f"{len(doc['prompts'])} prompts",
                file=sys.stderr,
            )


def main(argv: list[str]) -> int:
    for server in argv or list(RELEASES):
        capture(server)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
