"""Offline commands start without the heavy imports (MCP SDK, HTTP clients, deepdiff,
jsonschema): proven in a fresh interpreter for each command."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lockdata import make_lock

HEAVY = ("mcp", "httpx", "httpx2", "httpx_sse", "deepdiff", "jsonschema", "anyio")

PROBE = """
import sys, json
from mcplock.__main__ import main
try:
    main(sys.argv[1:])
except SystemExit as e:
    code = e.code
sys.stdout.flush()
heavy = sorted({m.split('.')[0] for m in sys.modules} & set(%r))
sys.stderr.write('\\nHEAVY=' + json.dumps(heavy) + ' CODE=' + str(code) + '\\n')
""" % (HEAVY,)


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["list"], ["check"], ["show", "docs"], ["disable", "docs/search_docs"]])
def test_offline_commands_do_not_import_heavy_modules(args):
    make_lock()
    r = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=60)
    tail = r.stderr.rsplit("HEAVY=", 1)[1]
    heavy = json.loads(tail.split(" CODE=")[0])
    assert heavy == [], f"{args} imported {heavy}"
    assert tail.strip().endswith("CODE=0"), r.stderr


def test_version_imports_nothing_of_the_cli():
    r = subprocess.run([sys.executable, "-c", "import sys\nfrom mcplock.__main__ import main\ntry: main(['--version'])\nexcept SystemExit: pass\n"
                        "print(sorted(m for m in ('typer','click','rich','tomlkit') if m in sys.modules))"],
                       capture_output=True, text=True, timeout=60)
    assert r.stdout.strip().splitlines()[-1] == "[]"


def test_import_mcplock_is_light():
    r = subprocess.run([sys.executable, "-c", "import sys, mcplock; l = mcplock.load; print(sorted(m for m in %r if m in sys.modules))" % (HEAVY,)],
                       capture_output=True, text=True, timeout=60)
    assert r.stdout.strip() == "[]", r.stderr
