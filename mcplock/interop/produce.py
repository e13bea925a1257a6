"""``mcplock export --format mcp-lock-v1``: a conforming ``mcp-lock/1`` document from ``mcp.lock``.

One entry per locked server; the mapping and each choice the specification leaves are in
docs/interop.md and docs/decisions.md. In short:

- ``name``: the lock's server name (unique in the lock, so entry identities never collide);
  ``source``: the MCP Registry the server was added from (``id``: its registry name), else
  ``{"registry": "manual"}``; ``client``: ``generic`` (the lock is every host's); ``scope``:
  ``project``.
- ``target``: a package pin is a ``package`` target (``artifact`` only for a sha256 content
  digest the launch enforces: OCI, MCPB, a one-file PyPI release; npm's sha512 is recorded as
  evidence and in the extension); a remote is ``remote`` (https only); any other local command
  is a ``package`` target of ``registryType`` ``dev.mcplock.local``.
- ``surface``: every tool with an accepted definition (enabled or not: the surface is what the
  server presents; a host's flags are in the extension), coverage name, description, inputSchema.
- ``configDigest``: the digest of the host-config fragment (``${VAR}`` templates, never values)
  that launches the server, kept under ``extensions["dev.mcplock"].config`` to be recomputed.
- ``resolvedAt``/``lockedAt``: ``mcp.lock`` keeps no times, so these are the epoch (fixed: the
  digests of an unchanged lock never change); ``generatedAt``/``updatedAt`` (outside every digest)
  are the time of the export, or ``SOURCE_DATE_EPOCH``.
- ``extensions["dev.mcplock"]``: every pinned item of every kind (its hash, flags, review state,
  lint findings), the package pin in full, the registry entry, the approval policy.
"""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

from mcplock.interop.canonical import digest, sri_from_hex
from mcplock.interop.digests import COVERAGE, entry_integrity, surface_hash
from mcplock.lock.model import Entry, Lock, ServerEntry

if TYPE_CHECKING:
    from mcplock.lock.spec import ServerSpec
    from mcplock.packages.pin import PackagePin

EPOCH = "1970-01-01T00:00:00Z"
NAMESPACE = "dev.mcplock"
LOCAL = "dev.mcplock.local"
CLIENT = "generic"
_TEMPLATE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}")
_SECRET_NAME = re.compile(r"[A-Z][A-Z0-9_]*")
_TRANSPORTS = {"http": "streamable-http", "sse": "sse", "stdio": "stdio"}
_METHODS = {"oci": "oci-manifest-digest", "mcpb": "mcpb-sha256", "pypi": "dev.mcplock.pypi-sha256"}
_ANCHORS = {"npm": "registry.npmjs.org", "pypi": "pypi.org"}


def timestamp(environ: Any = None) -> str:
    env = os.environ if environ is None else environ
    epoch = env.get("SOURCE_DATE_EPOCH")
    when = datetime.fromtimestamp(int(epoch), UTC) if epoch and epoch.isdigit() else datetime.now(UTC)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def config_fragment(srv: ServerEntry) -> dict[str, Any]:
    """The host-config entry that launches ``srv`` (the ``mcpServers`` shape most hosts read),
    with ``${VAR}`` templates as the lock stores them."""
    return _stdio_fragment(srv.spec) if srv.spec.stdio else _remote_fragment(srv.spec)


def _stdio_fragment(spec: ServerSpec) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "stdio", "command": spec.command or ""}
    if spec.args:
        out["args"] = list(spec.args)
    if spec.env:
        out["env"] = dict(sorted(spec.env.items()))
    if spec.cwd:
        out["cwd"] = spec.cwd
    return out


def _remote_fragment(spec: ServerSpec) -> dict[str, Any]:
    out: dict[str, Any] = {"type": spec.transport, "url": spec.url or ""}
    if spec.headers:
        out["headers"] = dict(sorted(spec.headers.items()))
    return out


def _secret_names(srv: ServerEntry) -> list[str]:
    names = {m.group(1) for v in srv.spec.headers.values() for m in _TEMPLATE.finditer(v)}
    return sorted(n for n in names if _SECRET_NAME.fullmatch(n))


_UNAVAILABLE = {"code": "artifact-integrity", "status": "unavailable"}


def _target(srv: ServerEntry) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The entry's target and the evidence about its artefact."""
    spec = srv.spec
    if spec.package is not None:
        return _package_target(spec.package)
    if spec.stdio:
        local = {"type": "package", "registryType": LOCAL, "identifier": spec.command or "", "transport": "stdio"}
        return local, [dict(_UNAVAILABLE)]
    t: dict[str, Any] = {"type": "remote", "transport": _TRANSPORTS[spec.transport], "url": spec.url or ""}
    names = _secret_names(srv)
    if names:
        t["headerSecretNames"] = names
    return t, [dict(_UNAVAILABLE)]


def _package_target(pin: PackagePin) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A pinned package's target — an OCI image by its digest, the artefact's sha256 when the pin
    holds exactly one — and the evidence of how mcplock checks its bytes."""
    integrities = pin.integrities()
    t: dict[str, Any] = {
        "type": "package",
        "registryType": pin.registry,
        "identifier": pin.name,
        "version": pin.version,
        "transport": "stdio",
    }
    one = integrities[0] if len(integrities) == 1 else None
    sha = sri_from_hex(one) if one else None
    if pin.registry == "oci" and sha is not None:
        t["identifier"] = f"{pin.name.split('@', 1)[0]}@{one}"
    method = _METHODS.get(pin.registry) if sha is not None else None
    if method is not None:
        t["artifact"] = {"digest": sha, "method": method}
    return t, [_package_evidence(pin, integrities, method)]


def _package_evidence(pin: PackagePin, integrities: tuple[str, ...], method: str | None) -> dict[str, Any]:
    """How mcplock checks the package's bytes: against the artefact's sha256 (``method``), against
    the registry's integrity, or not at all."""
    checked = {"code": "artifact-integrity", "status": "passed", "verifier": "mcplock"}
    if method is not None:
        return {**checked, "method": method}
    if integrities:
        # npm's sha512 SRI (or a PyPI release of several files): not a §8.1 sha256 digest; the
        # bytes are checked against it at every install (docs/pins.md), the value is in the extension
        method = "npm-sri" if pin.registry == "npm" else "dev.mcplock.pypi-sha256"
        return {**checked, "method": method, "anchor": _ANCHORS.get(pin.registry, pin.registry)}
    return dict(_UNAVAILABLE)


def accepted_tools(srv: ServerEntry) -> list[dict[str, Any]]:
    """The tools the surface covers: every one with an accepted definition that matches its hash."""
    return [e.definition for _, e in sorted(srv.tools.items()) if isinstance(e.definition, dict) and not e.tampered()]


def _items(srv: ServerEntry, findings: dict[tuple[str, str, str], list[Any]]) -> dict[str, Any]:
    """Every item of the server by kind and key; a pending item without its findings (they are
    of the definition waiting for review, not of the one pinned)."""
    out: dict[str, Any] = {}
    for e in srv.entries():
        found = findings.get((srv.name, e.kind, e.key)) if e.pending is None else None
        out.setdefault(e.kind, {})[e.key] = _item(e, found)
    return out


def _item(e: Entry, found: list[Any] | None) -> dict[str, Any]:
    """One item's record: its state and hashes, a tool's flags, its findings (once each, sorted)."""
    rec: dict[str, Any] = _with_values({"state": e.state, "hash": e.hash})
    if e.kind == "tool":
        rec["enabled"] = e.enabled
        rec["approval"] = e.approval
    pending_hash = e.pending.hash if e.pending is not None else None
    rec.update(_with_values({"pending-hash": pending_hash, "rejected-hash": e.rejected_hash}))
    if found:
        rec["findings"] = [{"rule": r, "severity": s} for r, s in sorted({(f.rule, f.severity) for f in found})]
    return rec


def _with_values(fields: dict[str, Any]) -> dict[str, Any]:
    """The fields that have a value (None: the record leaves the key out)."""
    return {k: v for k, v in fields.items() if v is not None}


def _findings(lock: Lock) -> dict[tuple[str, str, str], list[Any]]:
    from mcplock.lint.cache import LintCache
    from mcplock.lint.entries import lint_entries

    hashes = {
        (s, e.kind, e.key): e.hash
        for s, srv in lock.servers.items()
        for e in srv.entries()
        if e.hash and e.pending is None and not e.tampered()
    }
    cache = LintCache.open()
    found = lint_entries(lock.servers.values(), cache=cache, hashes=hashes)
    if cache is not None:
        cache.save()
    return found


def entry(srv: ServerEntry, findings: dict[tuple[str, str, str], list[Any]] | None = None) -> dict[str, Any]:
    """The server's ``mcp-lock/1`` entry, its integrity computed."""
    target, evidence = _target(srv)
    reg = srv.spec.registry
    tools = accepted_tools(srv)
    fragment = config_fragment(srv)
    out: dict[str, Any] = {
        "name": srv.name,
        "version": _version(srv),
        "client": CLIENT,
        "scope": "project",
        "source": {"registry": reg.url, "id": reg.name} if reg is not None else {"registry": "manual"},
        "target": target,
        "surface": {"hash": surface_hash(tools, COVERAGE), "coverage": list(COVERAGE), "toolCount": len(tools)},
        "configDigest": digest(fragment),
        "verification": [
            *evidence,
            {"code": "surface-review", "status": "passed", "verifier": "mcplock", "method": "tools-list"},
        ],
        "resolvedAt": EPOCH,
        "lockedAt": EPOCH,
        "extensions": {NAMESPACE: _extension(srv, fragment, findings or {})},
    }
    out["integrity"] = entry_integrity(out)
    return out


def _version(srv: ServerEntry) -> str:
    """The package's pinned version, else the registry entry's, else what the server said it is."""
    if srv.spec.package is not None:
        return srv.spec.package.version
    if srv.spec.registry is not None:
        return srv.spec.registry.version
    return str((srv.server_info or {}).get("version") or "") or "unversioned"


def _extension(
    srv: ServerEntry, fragment: dict[str, Any], findings: dict[tuple[str, str, str], list[Any]]
) -> dict[str, Any]:
    """mcplock's own extension of the entry: the launch, the policy, every item, and what the
    lock records beside them (each key only when the lock has it)."""
    spec = srv.spec
    ext: dict[str, Any] = {
        "server": srv.name,
        "transport": spec.transport,
        "config": fragment,
        "policy": srv.policy,
        "items": _items(srv, findings),
    }
    optional = {
        "package": _stored(spec.package),
        "registry": _stored(spec.registry),
        "pass-env": sorted(set(spec.pass_env)) if spec.pass_env else None,
        "auth": _stored(spec.auth),
        "client": _stored(srv.client),
        "client-capabilities": list(srv.client_capabilities) if srv.client_capabilities is not None else None,
        "pending": srv.pending_count() or None,
    }
    ext.update(_with_values(optional))
    return ext


class _Stored(Protocol):
    def stored(self) -> Any: ...


def _stored(part: _Stored | None) -> Any:
    """A part of the spec as the lock stores it (None: the lock has none)."""
    return part.stored() if part is not None else None


def omitted(srv: ServerEntry) -> str | None:
    """Why ``srv`` has no conforming entry, or None: a remote that is not https; a value with no
    canonical form (an integer beyond a double, docs/interop.md); two member names equal after
    Unicode NFC normalization (two tools ``café`` and ``cafe\u0301``: §8.2 forbids the pair in
    one object, so mcplock's own reader would refuse the document)."""
    return _entry_or_why(srv, {})[1]


def _entry_or_why(
    srv: ServerEntry, findings: dict[tuple[str, str, str], list[Any]]
) -> tuple[dict[str, Any] | None, str | None]:
    """(the server's entry, None), or (None, why it has none: :func:`omitted`)."""
    if srv.spec.remote and not (srv.spec.url or "").startswith("https://"):
        return None, "its URL is not https (the format's remote targets are https only)"
    try:
        e = entry(srv, findings)
    except ValueError as err:
        return None, str(err)
    twins = _nfc_twins(e)
    if twins is not None:
        return None, f"two names are equal after Unicode NFC normalization ({twins}), which §8.2 forbids in one object"
    return e, None


def _nfc_twins(v: Any) -> str | None:
    """The first two member names of one object in ``v`` that are equal after NFC (escaped), else None."""
    import unicodedata

    if isinstance(v, list):
        return next((t for x in v if (t := _nfc_twins(x)) is not None), None)
    if not isinstance(v, dict):
        return None
    seen: dict[str, str] = {}
    for k in v:
        nfc = unicodedata.normalize("NFC", k)
        if nfc in seen:
            return f"{seen[nfc]!a} and {k!a}"
        seen[nfc] = k
    return next((t for x in v.values() if (t := _nfc_twins(x)) is not None), None)


def document(lock: Lock, *, generated_at: str | None = None, lint: bool = True) -> tuple[dict[str, Any], list[str]]:
    """The document for ``lock`` and the sentences naming each server left out (and why)."""
    findings = _findings(lock) if lint else {}
    import unicodedata

    entries, notes, left = [], [], []
    names: dict[str, str] = {}
    for name in sorted(lock.servers, key=lambda n: n.encode("utf-16-be")):
        srv = lock.servers[name]
        nfc = unicodedata.normalize("NFC", name)
        e, why = _entry_or_why(srv, findings)
        if nfc in names:
            why = f"its name is equal after Unicode NFC normalization to {names[nfc]!a}'s, which the export holds"
        names.setdefault(nfc, name)
        if why:
            notes.append(f"{name} is not in the export: {why}")
            left.append({"server": name, "reason": why})
            continue
        assert e is not None
        entries.append(e)
    when = generated_at or timestamp()
    doc: dict[str, Any] = {"specVersion": 1, "generatedAt": when, "updatedAt": when, "entries": entries}
    if left:
        doc["extensions"] = {NAMESPACE: {"omitted": left}}
    return doc, notes


def dumps(doc: dict[str, Any]) -> bytes:
    import json

    return (json.dumps(doc, indent=2, ensure_ascii=True) + "\n").encode("ascii")  # hidden characters as \\u escapes
