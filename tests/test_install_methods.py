"""A PyPI pin works from every ordinary install of mcplock: a plain venv with the interpreter's
own pip (Python 3.11 ships pip 23), ``uv tool install`` (no pip at all), and pipx.

mcplock is built once as a wheel; its dependencies come from a wheelhouse kept in
``.pytest_cache`` (made once per set of declared dependencies), so each install is local and
fast. Each installed mcplock then pins a release of the local index (fixtures/pypi_index.py)
with a cold cache of its own: the tree is resolved and installed, and the server probed.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from pypi_index import DEMO, DEP_1_0, PypiIndex

pytestmark = [pytest.mark.network, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parent.parent


def _run(argv: list, env: dict, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, env=env, timeout=timeout)


def _ok(r: subprocess.CompletedProcess[str]) -> str:
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


@pytest.fixture(scope="module")
def wheels(tmp_path_factory) -> list[Path]:
    """[mcplock's wheel directory, the wheelhouse of its dependencies (and pip, for pipx)]."""
    pyproject = (ROOT / "pyproject.toml").read_bytes()
    deps = tomllib.loads(pyproject.decode())["project"]["dependencies"]
    key = hashlib.sha256("\n".join(sorted(deps)).encode()).hexdigest()[:16]
    house = ROOT / ".pytest_cache" / "wheelhouse" / key
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    if not (house / ".complete").exists():
        house.mkdir(parents=True, exist_ok=True)
        _ok(
            _run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "download",
                    "--quiet",
                    "--only-binary",
                    ":all:",
                    "-d",
                    house,
                    *deps,
                    "pip",
                ],
                env,
            )
        )
        (house / ".complete").write_text("")
    import uv

    own = tmp_path_factory.mktemp("mcplock-wheel")
    _ok(
        _run(
            [uv.find_uv_bin(), "build", "--quiet", "--wheel", "--out-dir", own, ROOT],
            {**env, "UV_CACHE_DIR": str(house.parent / "uv-cache")},
        )
    )
    return [own, house]


@pytest.fixture
def index():
    with PypiIndex() as ix:
        ix.publish(*DEP_1_0, uploaded="2025-01-10T08:00:00.000000Z")
        ix.publish(*DEMO, uploaded="2025-02-01T12:00:00.000000Z")
        yield ix


def _local(wheels: list[Path]) -> dict[str, str]:
    """pip (the venv's, pipx's) installs only from the local wheels (and runs no rustup proxy,
    which would write ~/.rustup: pip asks `rustc --version` for its User-Agent)."""
    path = os.pathsep.join(
        p for p in os.environ["PATH"].split(os.pathsep) if not os.path.exists(os.path.join(p, "rustup"))
    )
    return {
        **os.environ,
        "PATH": path,
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": " ".join(str(w) for w in wheels),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }


def _pins_a_pypi_server(mcplock: Path, index: PypiIndex, tmp_path: Path) -> None:
    env = {**os.environ, "MCPLOCK_PYPI_URL": index.url, "MCPLOCK_CACHE_DIR": str(tmp_path / "cache")}
    r = subprocess.run(
        [str(mcplock), "add", "demo", "--yes", "--", "uvx", "pin-demo==1.0"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "pip" not in r.stderr
    pin = tomllib.loads(Path("mcp.lock").read_text())["server"]["demo"]["package"]
    assert pin["registry"] == "pypi" and pin["version"] == "1.0" and pin["tree-integrity"].startswith("sha256:")
    assert list((tmp_path / "cache").glob("**/pypi/*/venv/lib/python*/site-packages/pin_dep-1.0.dist-info"))
    # and it runs from there: a cold cache of a teammate resolves the same tree
    r = subprocess.run(
        [str(mcplock), "diff"],
        capture_output=True,
        text=True,
        timeout=600,
        env={**env, "MCPLOCK_CACHE_DIR": str(tmp_path / "teammate")},
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_plain_venv_with_the_interpreters_own_pip(wheels, index, tmp_path):
    venv = tmp_path / "venv"
    _ok(_run([sys.executable, "-m", "venv", venv], _local(wheels)))  # pip as ensurepip bundles it (23 on 3.11)
    assert _ok(_run([venv / "bin" / "python", "-m", "pip", "--version"], _local(wheels))).startswith("pip ")
    _ok(_run([venv / "bin" / "python", "-m", "pip", "install", "--quiet", "mcplock-cli"], _local(wheels)))
    _pins_a_pypi_server(venv / "bin" / "mcplock", index, tmp_path)


def test_uv_tool_install_which_has_no_pip(wheels, index, tmp_path):
    import uv

    env = {
        **os.environ,
        "UV_TOOL_DIR": str(tmp_path / "tools"),
        "UV_TOOL_BIN_DIR": str(tmp_path / "bin"),
        "UV_CACHE_DIR": str(tmp_path / "uv-cache"),
        "UV_PYTHON_DOWNLOADS": "never",
    }
    _ok(
        _run(
            [
                uv.find_uv_bin(),
                "tool",
                "install",
                "--quiet",
                "--python",
                sys.executable,
                "--no-index",
                *(f"--find-links={w}" for w in wheels),
                "mcplock-cli",
            ],
            env,
        )
    )
    python = next((tmp_path / "tools").glob("mcplock*/bin/python"))
    assert _run([python, "-m", "pip", "--version"], env).returncode != 0  # no pip in a uv tool's venv
    _pins_a_pypi_server(tmp_path / "bin" / "mcplock", index, tmp_path)


def test_pipx(wheels, index, tmp_path):
    pipx = shutil.which("pipx", path=str(Path(sys.executable).parent))
    assert pipx is not None, "pipx is a test dependency (pyproject's test extra)"
    env = {
        **_local(wheels),
        "PIPX_HOME": str(tmp_path / "pipx"),
        "PIPX_BIN_DIR": str(tmp_path / "bin"),
        "PIPX_MAN_DIR": str(tmp_path / "man"),
        "PIPX_DEFAULT_PYTHON": sys.executable,
    }
    _ok(_run([pipx, "install", "--quiet", next(wheels[0].glob("*.whl"))], env))
    _pins_a_pypi_server(tmp_path / "bin" / "mcplock", index, tmp_path)
