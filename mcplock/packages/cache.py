"""Launch exactly the pinned artefact: mcplock's own content-addressed cache (the spec that runs it:
:mod:`mcplock.packages.pinned`).

Each pin gets one directory, keyed by a hash of (registry, name, version, integrity), holding
the installed tree and a manifest (``.mcplock.json``) with the tree's ``tree-integrity`` and a
sha256 over every installed file. A launch on a warm cache re-hashes the files and compares:
nothing is fetched, and a file changed in the cache is refused. A cold cache installs, one
module per registry, each writing a temporary directory this module verifies and publishes:

- npm (:mod:`mcplock.packages.npm`): ``npm install --ignore-scripts`` of the exact version as
  of its publication, or ``npm ci`` replaying a resolved tree kept under ``npm-trees/``;
- PyPI (:mod:`mcplock.packages.pypi`): the tree resolved once with uv into hash-pinned
  requirements kept under ``pypi-trees/``, installed with ``uv pip install --require-hashes``;
- MCPB (:mod:`mcplock.packages.mcpb`): the bundle checked against its sha256 and unpacked;
- OCI: no cache, the image is run by digest (``IMAGE@sha256:…``); docker verifies the content.

The cache is ``packages`` in mcplock's cache directory (``$MCPLOCK_CACHE_DIR/packages``, else
``~/.cache/mcplock/packages`` on Linux: :mod:`mcplock.model.paths`).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from mcplock.model import paths
from mcplock.packages.errors import IntegrityError, RegistryError
from mcplock.packages.pin import PackagePin
from mcplock.packages.runnable import Env
from mcplock.text.untrusted import shell_word

MANIFEST = ".mcplock.json"
INSTALL_TIMEOUT = 600


def cache_root(environ: Env = None) -> Path:
    root = paths.cache_dir("packages", environ=environ)
    assert root is not None  # no switch: the package cache cannot be turned off
    return root


def pin_dir(pin: PackagePin, environ: Env = None) -> Path:
    key = hashlib.sha256("\0".join((pin.registry, pin.name, pin.version, *pin.integrities())).encode()).hexdigest()
    return cache_root(environ) / pin.registry / key[:40]


def _sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


# A file a server writes next to its code (server-memory's memory.json) is data; a new file
# that could be loaded as code, or change how modules resolve, is not.
_CODE = (".js", ".cjs", ".mjs", ".node", ".py", ".pth", ".so", ".dylib", ".pyd", ".wasm")


def file_hashes(root: Path) -> dict[str, str]:
    """relative path -> sha256 of every file under ``root`` (a symlink: of its target path),
    skipping ``__pycache__`` (Python rewrites it at run time) and the manifest."""
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        rel = os.path.relpath(dirpath, root)
        for f in filenames:
            if f == MANIFEST and rel == ".":
                continue
            out[os.path.normpath(os.path.join(rel, f))] = _file_digest(os.path.join(dirpath, f))
    return out


def _file_digest(p: str) -> str:
    """The sha256 of a file's bytes; of a symlink, of the path it points to (not followed)."""
    if os.path.islink(p):
        return hashlib.sha256(b"link:" + os.readlink(p).encode()).hexdigest()
    with open(p, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def content_hash(files: dict[str, str]) -> str:
    return _sha(json.dumps(files, sort_keys=True, separators=(",", ":")).encode())


def _changed(d: Path, manifest: dict[str, Any]) -> str | None:
    """The first installed file that changed or went missing, or a new file that could run as
    code; None when the entry is as installed."""
    pinned: dict[str, str] = manifest.get("files") or {}
    now = file_hashes(d)
    for path, digest in pinned.items():
        if now.get(path) != digest:
            return path
    for path in now.keys() - pinned.keys():
        if _may_run(path):
            return path
    return None


def _may_run(path: str) -> bool:
    """Whether a file new in an entry could be loaded as code, or change how modules resolve."""
    return path.endswith(_CODE) or os.path.basename(path) == "package.json"


def data_files(d: Path, manifest: dict[str, Any]) -> list[str]:
    """The files a server wrote into its own cache entry since the install (server-memory keeps
    ``memory.jsonl`` next to its code, as it would under npx): neither installed nor code."""
    pinned: dict[str, str] = manifest.get("files") or {}
    return sorted(
        p
        for p in file_hashes(d).keys() - pinned.keys()
        if not p.endswith(_CODE) and os.path.basename(p) != "package.json"
    )


TAMPERED = ".tampered-"  # an entry moved aside to be repaired (+ a UTC time): its data is carried over


def _carry_data(d: Path) -> None:
    """After a fresh install of ``d``: the data files of the entry last moved aside
    (``D.tampered-TIME``) are copied in (data, never code: what :func:`data_files` lists)."""
    aside = sorted(d.parent.glob(d.name + TAMPERED + "*"))
    if not aside:
        return
    old = aside[-1]
    try:
        manifest = json.loads((old / MANIFEST).read_text())
    except (OSError, ValueError):
        return
    for rel in data_files(old, manifest):
        dest = d / rel
        if not dest.exists() and not (old / rel).is_symlink():
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(old / rel, dest)


def _mismatch(what: str, pinned: str, got: str, name: str) -> IntegrityError:
    return IntegrityError(
        f"{what}: the lock pins {pinned}, found {got}; nothing was started",
        hint=f"if the new artefact is expected, run `mcplock update {shell_word(name)}` and review the change; "
        "otherwise treat it as a compromised release or cache",
    )


def _signature(d: Path, manifest: dict[str, Any], environ: Env) -> tuple[bytes, bytes] | None:
    """(this machine's key, the manifest's signed bytes); None without a key."""
    from mcplock.model.machine_key import machine_secret

    secret = machine_secret(environ)
    if secret is None:
        return None
    body = json.dumps({k: v for k, v in manifest.items() if k != "mac"}, sort_keys=True, separators=(",", ":"))
    return secret, f"mcplock package cache\0{d.name}\0".encode() + body.encode()


def _verified(d: Path, pin: PackagePin, name: str, environ: Env = None) -> dict[str, Any] | None:
    """The manifest of a complete cache entry, checked against the files and the pin; None: cold.

    The manifest is signed with this machine's key (mcplock/model/machine_key.py), like the lock
    entries the guard remembers: files edited together with their manifest (a cache restored
    from elsewhere, another user's write) carry no valid signature, and such an entry is set
    aside and installed afresh, verified against the pin."""
    try:
        manifest = json.loads((d / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    if not _signed(d, manifest, environ):
        _discard_unsigned(d, pin, name)
        return None
    _check_entry(d, manifest, pin, name)
    checked: dict[str, Any] = manifest  # the entry's own manifest, its signature verified
    return checked


def _signed(d: Path, manifest: Any, environ: Env) -> bool:
    """Whether an entry's manifest carries this machine's signature (none without a key)."""
    from mcplock.model.machine_key import signed_by

    signing = _signature(d, manifest, environ) if isinstance(manifest, dict) else None
    return signing is not None and signed_by(signing[0], signing[1], b"", manifest.get("mac"))


def _check_entry(d: Path, manifest: dict[str, Any], pin: PackagePin, name: str) -> None:
    """A signed entry's files checked against its manifest, its tree against the pin."""
    changed = _changed(d, manifest)
    if changed is not None or content_hash(manifest.get("files") or {}) != manifest.get("content"):
        raise _tampered(d, manifest, pin, name, changed or "the manifest")
    if pin.tree_integrity is not None and manifest.get("tree-integrity") != pin.tree_integrity:
        raise _mismatch(
            f"server `{name}`: the dependency tree of {pin.label}",
            pin.tree_integrity,
            str(manifest.get("tree-integrity")),
            name,
        )


def _discard_unsigned(d: Path, pin: PackagePin, name: str) -> None:
    """An entry this machine did not sign, set aside and removed (it is installed afresh)."""
    aside = d.with_name(f"{d.name}.unsigned-{os.getpid()}")
    try:
        os.rename(d, aside)
    except OSError:
        raise IntegrityError(
            f"server `{name}`: the cache entry of {pin.label} is not signed by this machine's mcplock "
            f"(edited, or written elsewhere) and cannot be set aside; nothing was started",
            hint=f"delete {d} and run the command again (mcplock installs and verifies it afresh)",
        ) from None
    shutil.rmtree(aside, ignore_errors=True)


def _tampered(d: Path, manifest: dict[str, Any], pin: PackagePin, name: str, changed: str) -> IntegrityError:
    """A signed entry whose files changed: the error says how to move it aside (nothing is
    deleted) and which data files the server wrote there the repair keeps."""
    import shlex
    import time

    data = data_files(d, manifest)
    kept = (
        (
            f"; it also holds {len(data)} data file(s) the server wrote there ({', '.join(data[:3])}"
            f"{' …' if len(data) > 3 else ''}), which the repair keeps"
        )
        if data
        else ""
    )
    q = shlex.quote(str(d))
    moved = shlex.quote(str(d) + TAMPERED + time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()))
    return IntegrityError(
        f"server `{name}`: the cached files of {pin.label} changed since they were installed and verified "
        f"({changed}); nothing was started{kept}",
        hint=f"move the entry aside (`mv {q} {moved}`), nothing deleted, and run the command again: mcplock "
        "installs and verifies it afresh and copies the data files over (never code); look at the "
        "moved copy, then delete it yourself",
    )


def _publish(tmp: Path, d: Path, manifest: dict[str, Any], environ: Env = None) -> None:
    from mcplock.model.machine_key import sign

    manifest["files"] = file_hashes(tmp)
    manifest["content"] = content_hash(manifest["files"])
    signing = _signature(d, manifest, environ)
    if signing is not None:
        manifest["mac"] = sign(signing[0], signing[1], b"")
    (tmp / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    try:
        os.rename(tmp, d)
    except OSError:  # another process published it first: theirs is verified on use
        shutil.rmtree(tmp, ignore_errors=True)
        return
    _carry_data(d)  # after the manifest: the data stays data the server may change


def _tmp(d: Path) -> Path:
    tmp = d.with_name(f"{d.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    return tmp


def _run(argv: list[str], cwd: Path | None, env: dict[str, str], what: str, *, stdin: str | None = None) -> str:
    """Run an installer; its stdout. A failure is a RegistryError with the tail of what it said."""
    try:
        out = subprocess.run(
            argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=INSTALL_TIMEOUT, input=stdin
        )
    except FileNotFoundError:
        raise RegistryError(
            "installer-missing",
            f"{argv[0]} is needed to install {what}",
            hint="install it (Node.js for npm packages), then run the command again",
        ) from None
    except subprocess.TimeoutExpired:
        raise RegistryError("registry-unreachable", f"installing {what} timed out") from None
    if out.returncode != 0:
        tail = "\n".join((out.stderr or out.stdout).strip().splitlines()[-6:])
        kind = (
            "registry-unreachable"
            if any(
                s in tail
                for s in ("ENOTFOUND", "ECONNREFUSED", "ETIMEDOUT", "NewConnectionError", "connect", "Failed to fetch")
            )
            else "install"
        )
        raise RegistryError(
            kind,
            f"installing {what} failed:\n{tail}",
            hint="check the network and the registry, then run again; the lock is unchanged",
        )
    return out.stdout


def tree_hash(entries: dict[str, Any]) -> str:
    return _sha(json.dumps(entries, sort_keys=True, separators=(",", ":")).encode())


def _after(published: str) -> str:
    """A moment just after ``published``: ``npm install --before`` takes versions up to it, ``uv
    --exclude-newer`` files uploaded before it."""
    from datetime import datetime, timedelta

    t = datetime.fromisoformat(published.replace("Z", "+00:00")) + timedelta(minutes=1)
    return t.strftime("%Y-%m-%dT%H:%M:%S.000Z")
