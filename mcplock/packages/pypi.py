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

import shutil
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from mcplock.model.paths import Env
from mcplock.packages.errors import RegistryError
from mcplock.packages.launchers import Launch
from mcplock.packages.pin import PackagePin
from mcplock.packages.uv_tool import compile_reqs, index_args, norm, parse_compiled, uv_bin, uv_env


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
