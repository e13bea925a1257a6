"""npm pins installed into mcplock's cache (:mod:`mcplock.packages.cache`).

``npm install --ignore-scripts`` of the exact version (its dependencies as they were when that
version was published: ``--before``), or ``npm ci --ignore-scripts`` replaying a resolved tree
kept under ``npm-trees/``; npm checks every tarball against the lockfile's integrity, and
mcplock checks the package's own entry against the pin, the whole tree against the pin's
``tree-integrity``, and that no link leads out of the cache.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

from mcplock.packages.cache import (
    _after,
    _mismatch,
    _publish,
    _run,
    _tmp,
    _verified,
    cache_root,
    pin_dir,
    tree_hash,
)
from mcplock.packages.errors import IntegrityError, RegistryError
from mcplock.packages.launchers import Launch
from mcplock.packages.pin import PackagePin
from mcplock.packages.runnable import Env


def install(name: str, pin: PackagePin, launch: Launch, environ: Env) -> tuple[list[str], PackagePin]:
    """The pinned package installed (or found, verified, in the cache): the command that runs
    it, and the pin with the tree it was installed as."""
    d = pin_dir(pin, environ)
    manifest = _verified(d, pin, name, environ)
    if manifest is None:
        manifest = _install_fresh(name, pin, d, environ)
    pkg_dir = d / "node_modules" / pin.name
    script = _bin(pkg_dir, pin, launch)
    return ["node", str(pkg_dir / script)], replace(pin, tree_integrity=manifest["tree-integrity"])


def _install_fresh(name: str, pin: PackagePin, d: Path, environ: Env) -> dict[str, Any]:
    """A cold install into a fresh directory, its tree checked, the tree's package-lock kept
    for the next machine, published to ``d``; its manifest."""
    tmp = _tmp(d)
    (tmp / "package.json").write_text(
        json.dumps({"name": "mcplock-pin", "private": True, "dependencies": {pin.name: pin.version}}, indent=2) + "\n"
    )
    trees = cache_root(environ) / "npm-trees"
    saved = trees / f"{pin.tree_integrity.removeprefix('sha256:')}.json" if pin.tree_integrity else None
    _npm_install(tmp, pin, environ, saved if saved is not None and saved.is_file() else None)
    tree = _checked_tree(tmp, pin, name)
    trees.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(tmp / "package-lock.json", trees / f"{tree.removeprefix('sha256:')}.json")
    manifest: dict[str, Any] = {"pin": pin.stored(), "tree-integrity": tree}
    _publish(tmp, d, manifest, environ)
    return manifest


def _npm_install(tmp: Path, pin: PackagePin, environ: Env, saved: Path | None) -> None:
    """``npm ci`` from the package-lock of the tree the pin names when this machine has it, else
    ``npm install`` as of the release's publication; never a script."""
    from mcplock.packages import indexes, registries

    env = registries.npm_env(environ)
    base = [
        "npm",
        "--ignore-scripts",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        "--registry",
        indexes.npm_registry(environ),
    ]
    if saved is not None:
        shutil.copyfile(saved, tmp / "package-lock.json")
        _run([base[0], "ci", "--prefer-offline", *base[1:]], tmp, env, pin.label)
    else:
        before = registries.npm_published(pin.name, pin.version, environ)
        extra = [f"--before={_after(before)}"] if before else []
        _run([base[0], "install", *base[1:], "--save-exact", *extra], tmp, env, pin.label)


def _checked_tree(tmp: Path, pin: PackagePin, name: str) -> str:
    """The installed tree's integrity, after checking the package's own integrity, that no link
    leaves the cache, and the tree the pin names; a failed check removes the install."""
    packages = json.loads((tmp / "package-lock.json").read_text()).get("packages") or {}
    tree = npm_tree(packages)
    problem = _tree_problem(tmp, pin, name, packages, tree)
    if problem is not None:
        shutil.rmtree(tmp, ignore_errors=True)
        raise problem
    return tree


def _tree_problem(tmp: Path, pin: PackagePin, name: str, packages: dict[str, Any], tree: str) -> Exception | None:
    """What is wrong with an install, in the order checked: the package's integrity, a link out
    of the cache, the tree's integrity; None for nothing."""
    top = packages.get(f"node_modules/{pin.name}") or {}
    if top.get("integrity") not in pin.integrities():
        return _mismatch(
            f"server `{name}`: npm package {pin.label}", str(pin.integrity), str(top.get("integrity")), name
        )
    outside = escaping_link(tmp)
    if outside is not None:
        return IntegrityError(
            f"server `{name}`: installing {pin.label} linked `{outside}` to files outside mcplock's cache, "
            "which no hash covers; nothing was started",
            hint="a `file:` or linked dependency cannot be pinned: report it to the package's maintainers",
        )
    if pin.tree_integrity is not None and tree != pin.tree_integrity:
        return _mismatch(f"server `{name}`: the dependency tree of {pin.label}", pin.tree_integrity, tree, name)
    return None


def _bin(pkg_dir: Path, pin: PackagePin, launch: Launch) -> str:
    """The package's executable as npx picks it: the one named, the only one, or the one named
    after the package."""
    meta = json.loads((pkg_dir / "package.json").read_text())
    bins = meta.get("bin")
    if isinstance(bins, str):
        return bins
    if not isinstance(bins, dict) or not bins:
        raise RegistryError(
            "no-bin",
            f"npm package {pin.label} has no executable to run",
            hint="check the package name in the server's command",
        )
    chosen = _pick_bin(bins, launch.bin, pin.name.rsplit("/", 1)[-1])
    if chosen is None:
        raise RegistryError(
            "no-bin",
            f"npm package {pin.label} has several executables ({', '.join(sorted(bins))})",
            hint="name one: `npx -y --package PKG BIN`",
        )
    return chosen


def _pick_bin(bins: dict[str, Any], named: str | None, short: str) -> str | None:
    """Among several executables, the one npx runs: the one named, else the one named after the
    package, else the only one when none is named; None when that leaves a choice."""
    for key in (named, short):
        if key and key in bins:
            return str(bins[key])
    if len(bins) == 1 and named is None:
        return str(next(iter(bins.values())))
    return None


def npm_tree(packages: dict[str, Any]) -> str:
    """The ``tree-integrity`` of an installed ``package-lock.json``'s ``packages``: each entry's
    version and integrity; an entry without an integrity (a git dependency, a ``file:`` or
    linked one, a tarball URL) by what npm resolved it to instead (``resolved``: the git commit,
    the path) and whether it is a link, so a git dependency's new commit is a new tree."""
    out: dict[str, Any] = {}
    for k, v in packages.items():
        if k and isinstance(v, dict):
            out[k] = _tree_entry(v)
    return tree_hash(out)


def _tree_entry(v: dict[str, Any]) -> list[Any]:
    """What the tree hash holds of one installed package: its version and integrity, and for
    one without an integrity what npm resolved it to and whether it is a link."""
    entry = [v.get("version"), v.get("integrity")]
    if v.get("integrity") is None:
        entry += [v.get("resolved"), bool(v.get("link"))]
    return entry


def escaping_link(root: Path) -> str | None:
    """The first symlink under ``root`` whose target is outside it (a ``file:`` dependency linked
    in from elsewhere: its files would run unhashed), relative to ``root``; None: none."""
    top = os.path.realpath(root)
    for dirpath, dirnames, filenames in os.walk(root):
        for f in [*dirnames, *filenames]:
            p = os.path.join(dirpath, f)
            if _links_out(p, top):
                return os.path.relpath(p, root)
    return None


def _links_out(p: str, top: str) -> bool:
    """Whether ``p`` is a symlink whose target is outside the directory ``top``."""
    return os.path.islink(p) and os.path.commonpath([top, os.path.realpath(p)]) != top
