"""uv as mcplock runs it: its binary (mcplock's own ``uv`` dependency, else one on PATH), an
environment that reads nothing of the user's uv or pip settings, the index mcplock names, and
``uv pip compile`` of one requirement into hash-pinned lines (:func:`compile_reqs`), which also
picks the release a PEP 440 specifier means (:func:`pick_version`). Below both the resolver
(:mod:`mcplock.packages.registries`) and the installer (:mod:`mcplock.packages.pypi`)."""

from __future__ import annotations

import os
import re
import shutil
import sys

from mcplock.model.paths import Env
from mcplock.packages.errors import RegistryError

# uv settings about the connection, not about where packages come from: kept (a company proxy's
# CA through the system store, slow networks)
_KEPT = ("UV_NATIVE_TLS", "UV_HTTP_TIMEOUT", "UV_REQUEST_TIMEOUT", "UV_HTTP_RETRIES")


def uv_bin() -> str:
    """The uv binary: mcplock's own (the ``uv`` dependency), else one on PATH."""
    try:
        import uv

        found = uv.find_uv_bin()
        if found and os.path.exists(found):
            return str(found)
    except (ImportError, FileNotFoundError):
        pass
    on_path = shutil.which("uv")
    if on_path is None:
        from mcplock.errors import UsageError

        # this machine's set-up, not an unreachable registry: exit 2 (a CI job may let exit 3 pass)
        raise UsageError(
            "uv is needed to install PyPI packages, and it is not installed with mcplock here",
            hint=f"reinstall mcplock with its dependencies: `{sys.executable} -m pip install .` in its "
            "clone (README, Install)",
            code="installer-missing",
        )
    return on_path


def uv_env(environ: Env = None) -> dict[str, str]:
    """uv's environment: its cache inside mcplock's, nothing from the user's uv or pip settings
    (an index, find-links, constraints) but how to connect (``UV_NATIVE_TLS``, timeouts), no
    Python downloads, no progress bars."""
    from mcplock.packages.cache import cache_root

    base = os.environ if environ is None else environ
    env = {k: v for k, v in base.items() if not k.startswith(("UV_", "PIP_")) or k in _KEPT}
    # copies, never hard links into uv's cache: a file edited in an installed entry would edit the
    # cache too, and a repair would install the edited file again (and verify it as installed)
    env.update(
        {
            "UV_CACHE_DIR": str(cache_root(environ) / "uv-cache"),
            "UV_NO_PROGRESS": "1",
            "UV_PYTHON_DOWNLOADS": "never",
            "UV_LINK_MODE": "copy",
            "NO_COLOR": "1",
        }
    )
    return env


def index_args(environ: Env = None) -> list[str]:
    from mcplock.packages.indexes import pypi_url

    return ["--no-config", "--index-url", pypi_url(environ) + "/simple", "--index-strategy", "first-index"]


def compile_reqs(requirement: str, environ: Env, *, cutoff: str | None, no_deps: bool = False, what: str) -> str:
    """``uv pip compile`` of one requirement for the Python mcplock runs on: hash-pinned lines."""
    from mcplock.packages.cache import _run

    argv = [
        uv_bin(),
        "pip",
        "compile",
        "-",
        "--quiet",
        "--generate-hashes",
        "--only-binary",
        ":all:",
        "--no-header",
        "--no-annotate",
        "--python",
        sys.executable,
        *index_args(environ),
    ]
    if cutoff:
        argv.append(f"--exclude-newer={cutoff}")
    if no_deps:
        argv.append("--no-deps")
    return _run(argv, None, uv_env(environ), what, stdin=requirement + "\n")


def parse_compiled(text: str) -> dict[str, tuple[str, list[str]]]:
    """normalised name -> (version, sha256 hex digests) from ``uv pip compile`` output."""
    out: dict[str, tuple[str, list[str]]] = {}
    current: str | None = None
    for raw in text.replace("\\\n", " ").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", line)
        if m:
            current = norm(m.group(1))
            out[current] = (m.group(2).split(";")[0], [])
        if current is not None:
            out[current][1].extend(re.findall(r"--hash=sha256:([0-9a-f]{64})", line))
    return out


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pick_version(name: str, spec: str, environ: Env) -> str:
    """The highest release of ``name`` matching a PEP 440 specifier, as uv resolves it."""
    try:
        got = parse_compiled(compile_reqs(f"{name}{spec}", environ, cutoff=None, no_deps=True, what=f"{name}{spec}"))
    except RegistryError as e:
        if e.kind != "install":
            raise
        got = {}
    if norm(name) not in got:
        raise RegistryError(
            "unknown-version",
            f"no release of PyPI package {name} matches {spec}",
            hint="fix the version in the server's command",
        )
    return got[norm(name)][0]
