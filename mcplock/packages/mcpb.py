"""MCPB bundles (``.mcpb``: a zip with ``manifest.json``), pinned by the sha256 the MCP Registry
entry publishes (``fileSha256``), run from mcplock's cache.

In the lock such a server's command is ``mcpb URL [ARGS]``: a name for "the bundle at URL", which
only its pin can run. On launch the bundle is downloaded once, checked against the pinned
sha256 (a mismatch is refused, nothing started), unpacked (no path may leave the directory,
no links) and verified like every cache entry; the server then runs as the manifest's
``server.mcp_config`` says, ``${__dirname}`` being the unpacked bundle and ``${user_config.KEY}``
a ``${KEY}`` template the user sets in the environment.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import shutil
import stat
import zipfile
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from mcplock.packages.errors import IntegrityError, RegistryError
from mcplock.packages.pin import PackagePin
from mcplock.packages.runnable import Env, S

if TYPE_CHECKING:
    from mcplock.packages.launchers import Launch

MAX_BYTES = 256 * 1024 * 1024
_USER = re.compile(r"\$\{user_config\.([A-Za-z0-9_.-]+)\}")


def _download(url: str) -> bytes:
    from mcplock.packages import fetch

    status, body = fetch.get(url, f"the MCPB bundle {url}", limit=MAX_BYTES, timeout=120)
    if status != 200:
        raise RegistryError(
            "registry-unreachable",
            f"downloading the MCPB bundle {url} answered HTTP {status}",
            hint="check the URL and the network, then run again",
        )
    return body


def _unpack(data: bytes, into: Path, what: str) -> None:
    try:
        z = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise RegistryError("install", f"{what} is not a zip archive") from None
    with z:
        for info in z.infolist():
            if _leaves_bundle(info):
                raise IntegrityError(
                    f"{what} holds `{info.filename[:200]}`, a path that leaves the bundle or a "
                    "link; nothing was started"
                )
        z.extractall(into)


def _leaves_bundle(info: zipfile.ZipInfo) -> bool:
    """Whether a zip member would land outside the bundle (an absolute path, ``..``, a
    backslash) or is a link."""
    name = info.filename
    return (
        name.startswith("/")
        or ".." in PurePosixPath(name).parts
        or "\\" in name
        or stat.S_ISLNK(info.external_attr >> 16)
    )


def manifest_of(bundle: Path, what: str) -> dict[str, Any]:
    try:
        doc = json.loads((bundle / "manifest.json").read_text())
        cfg = doc["server"]["mcp_config"]
        if not isinstance(cfg.get("command"), str) or not all(isinstance(a, str) for a in cfg.get("args") or []):
            raise TypeError
        manifest: dict[str, Any] = doc  # its `server.mcp_config` checked above
        return manifest
    except (OSError, ValueError, KeyError, TypeError):
        raise RegistryError(
            "install",
            f"{what} has no usable manifest.json (server.mcp_config: command, args)",
            hint="ask the bundle's publisher to fix it",
        ) from None


def _value(text: str, bundle: Path) -> str:
    """A manifest value: ``${__dirname}`` the bundle, ``${user_config.KEY}`` a ``${KEY}`` template."""
    text = text.replace("${__dirname}", str(bundle))
    return _USER.sub(lambda m: "${" + re.sub(r"[^A-Za-z0-9_]", "_", m.group(1)).upper() + "}", text)


def _install(d: Path, pin: PackagePin, name: str, what: str, environ: Env) -> None:
    """Download the bundle, check its hash against the pin, unpack it and check its manifest,
    then publish it as the pin's directory ``d``."""
    from mcplock.packages.cache import _mismatch, _publish, _tmp

    data = _download(pin.name)
    got = "sha256:" + hashlib.sha256(data).hexdigest()
    if got not in pin.integrities():
        raise _mismatch(f"server `{name}`: MCPB bundle {pin.name}", str(pin.integrity), got, name)
    tmp = _tmp(d)
    try:
        _unpack(data, tmp / "bundle", what)
        manifest_of(tmp / "bundle", what)
    except (RegistryError, IntegrityError):
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _publish(tmp, d, {"pin": pin.stored(), "tree-integrity": got}, environ)


def prepare(spec: S, pin: PackagePin, launch: Launch, environ: Env = None) -> S:
    """``spec`` rewritten to run the verified bundle its pin names."""
    from mcplock.packages.cache import _verified, pin_dir

    d = pin_dir(pin, environ)
    what = f"the MCPB bundle of server `{spec.name}`"
    if _verified(d, pin, spec.name, environ) is None:
        _install(d, pin, spec.name, what, environ)
    bundle = d / "bundle"
    cfg = manifest_of(bundle, what)["server"]["mcp_config"]
    env = {k: _value(str(v), bundle) for k, v in (cfg.get("env") or {}).items() if isinstance(k, str)}
    return replace(
        spec,
        command=_value(cfg["command"], bundle),
        args=(*(_value(a, bundle) for a in cfg.get("args") or []), *launch.args),
        env={**env, **spec.env},
    )
