"""PyPI pins resolved and installed with uv: the same on every install of mcplock.

pip cannot be relied on: ``uv tool install`` gives mcplock no pip at all, and a plain venv on
Python 3.11 ships pip 23, which cannot resolve a tree as of a date. uv is a declared dependency
of mcplock (the ``uv`` package on PyPI: its binary is :func:`uv.find_uv_bin`), so every install
method has it; a ``uv`` on PATH is the fallback when a packager left the dependency out.

- the tree: ``uv pip compile --generate-hashes`` of ``NAME==VERSION``, wheels only, as of the
  pinned files' upload (``--exclude-newer``), for the Python mcplock runs on; the canonical
  text is one sorted line per package, ``name==version --hash=sha256:…`` (every file of that
  release the index had then), the pinned package's own line carrying exactly the pin's hashes;
- the install: ``uv pip install --require-hashes --no-deps`` of those lines into a venv of its
  own (``uv venv`` of that Python, no pip in it).

uv reads nothing from the user's configuration (``--no-config``, no ``UV_*``/``PIP_*``
variables): the tree comes from the index mcplock names only.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from mcplock.model.paths import Env
from mcplock.packages.errors import RegistryError
from mcplock.packages.launchers import Launch
from mcplock.packages.pin import PackagePin

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
    from mcplock.packages.registries import pypi_url

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


def tree(pin: PackagePin, environ: Env, name: str) -> str:
    """The whole tree as of the pinned release's upload, as canonical hash-pinned lines; the
    package itself with every sha256 of the pin, after checking the index still offers one."""
    from mcplock.packages import registries
    from mcplock.packages.cache import _after

    uploaded = registries.pypi_uploaded(pin.name, pin.version, pin.integrities(), environ)
    text = _compiled_as_of(f"{pin.name}=={pin.version}", environ, _after(uploaded) if uploaded else None, pin.label)
    lines = _hash_pinned_lines(text, pin, name)
    own = norm(pin.name)
    if not any(line.startswith(f"{own}==") for line in lines):
        raise RegistryError(
            "install",
            f"uv resolved no {pin.label} (no wheel for this Python?)",
            hint="check that the release has a wheel for this Python and platform",
        )
    return "\n".join(lines) + "\n"


def _compiled_as_of(req: str, environ: Env, cutoff: str | None, what: str) -> str:
    """``req`` compiled with no file newer than ``cutoff``; an index without upload times (an
    older mirror) offers no file before any cutoff: then today's tree (one that drifted from the
    pin is refused by the caller)."""
    try:
        return compile_reqs(req, environ, cutoff=cutoff, what=what)
    except RegistryError as e:
        if cutoff is None or e.kind != "install":
            raise
        return compile_reqs(req, environ, cutoff=None, what=what)


def _hash_pinned_lines(text: str, pin: PackagePin, name: str) -> list[str]:
    """The compiled tree as ``pkg==version --hash=…`` lines, sorted; the pinned package with the
    pin's hashes, refused when the index offers none of them."""
    lines = []
    own = norm(pin.name)
    pinned = [h.removeprefix("sha256:") for h in pin.integrities()]
    for pkg, (version, hashes) in sorted(parse_compiled(text).items()):
        if pkg == own:
            hashes = _own_hashes(hashes, pinned, pin, name)
        lines.append(f"{pkg}=={version} " + " ".join(f"--hash=sha256:{h}" for h in sorted(set(hashes))))
    return lines


def _own_hashes(hashes: list[str], pinned: list[str], pin: PackagePin, name: str) -> list[str]:
    """The pinned package's hashes: the pin's; refused when the index offers the package with
    hashes and none of them is the pin's."""
    if hashes and not set(hashes) & set(pinned):
        from mcplock.packages.cache import _mismatch

        raise _mismatch(
            f"server `{name}`: PyPI package {pin.label}",
            ", ".join(pin.integrities()),
            ", ".join(f"sha256:{h}" for h in sorted(hashes)),
            name,
        )
    return pinned


def install(reqs: Path, venv: Path, environ: Env, what: str) -> None:
    """A venv of its own (no pip) with exactly the hash-pinned requirements in ``reqs``."""
    from mcplock.packages.cache import _run

    env = uv_env(environ)
    _run([uv_bin(), "venv", "--quiet", "--no-config", "--python", sys.executable, str(venv)], venv.parent, env, what)
    _run(
        [
            uv_bin(),
            "pip",
            "install",
            "--quiet",
            "--require-hashes",
            "--no-deps",
            "--only-binary",
            ":all:",
            "--python",
            str(venv / "bin" / "python"),
            *index_args(environ),
            "-r",
            str(reqs),
        ],
        venv.parent,
        env,
        what,
    )


def install_pin(name: str, pin: PackagePin, launch: Launch, environ: Env) -> tuple[list[str], PackagePin]:
    """The command line that runs ``pin`` from its verified cache entry (installed there first
    on a cold cache: the tree as pinned, or resolved once and kept under ``pypi-trees/``), and
    the pin with the ``tree-integrity`` it found."""
    from mcplock.packages.cache import _verified, pin_dir

    d = pin_dir(pin, environ)
    manifest = _verified(d, pin, name, environ)
    if manifest is None:
        manifest = _install_fresh(name, pin, d, environ)
    exe = d / "venv" / "bin" / (launch.bin or pin.name)
    if not exe.exists():
        raise RegistryError(
            "no-bin",
            f"PyPI package {pin.label} installs no command `{launch.bin or pin.name}`",
            hint="name the command: `uvx --from PKG==V COMMAND`",
        )
    # the venv's own python runs the script: the cache entry was installed under another
    # name and renamed, so the scripts' #! lines point nowhere
    return [str(d / "venv" / "bin" / "python"), str(exe)], replace(pin, tree_integrity=manifest["tree-integrity"])


def _install_fresh(name: str, pin: PackagePin, d: Path, environ: Env) -> dict[str, Any]:
    """A cold install: the tree as pinned (kept under ``pypi-trees/`` by an earlier install) or
    resolved once, checked against the pin's tree-integrity, installed into a venv of its own
    and published to ``d``; its manifest."""
    from mcplock.packages.cache import _mismatch, _publish, _sha, _tmp, cache_root

    tmp = _tmp(d)
    trees = cache_root(environ) / "pypi-trees"
    saved = trees / f"{pin.tree_integrity.removeprefix('sha256:')}.txt" if pin.tree_integrity else None
    reqs = saved.read_text() if saved is not None and saved.is_file() else tree(pin, environ, name)
    got = _sha(reqs.encode())
    if pin.tree_integrity is not None and got != pin.tree_integrity:
        shutil.rmtree(tmp, ignore_errors=True)
        raise _mismatch(f"server `{name}`: the dependency tree of {pin.label}", pin.tree_integrity, got, name)
    (tmp / "requirements.txt").write_text(reqs)
    try:
        install(tmp / "requirements.txt", tmp / "venv", environ, pin.label)
    except RegistryError:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    trees.mkdir(parents=True, exist_ok=True)
    (trees / f"{got.removeprefix('sha256:')}.txt").write_text(reqs)
    manifest: dict[str, Any] = {"pin": pin.stored(), "tree-integrity": got}
    _publish(tmp, d, manifest, environ)
    return manifest
