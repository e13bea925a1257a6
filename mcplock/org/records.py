"""One server of an inventory: how it is launched (the package and its version, never the rest
of the command line), what was reviewed (surface digests, definition hashes) and the review
state of every item. Plain dicts in the shape docs/organisation.md documents; no I/O but the
lint cache.

Pinning, one word per server:

- ``pinned``: a package pin with its integrity (what runs is checked against it);
- ``unpinned``: a registry launch of an exact version, with nothing checking the bytes;
- ``floating``: a registry launch of whatever the registry serves (no version, a range, a tag),
  a launch behind a wrapper (``sh -c``, ``env`` …), or a command mcplock cannot read (nothing
  shows what it runs);
- ``local``: a command that provably runs the project's own code (:mod:`mcplock.packages.local`:
  nothing to pin); ``remote``: a server reached at a URL.

The words follow the policy's reading of what a server runs (:mod:`mcplock.packages.runs`), so a
fleet's "unpinned" is what ``packages.require-pin`` refuses.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from mcplock.model.severity import rank
from mcplock.org.redact import endpoint

if TYPE_CHECKING:
    from mcplock.lint.cache import LintCache
    from mcplock.lint.finding import LintFinding
    from mcplock.lock.model import Entry, Lock, ServerEntry
    from mcplock.lock.spec import ServerSpec
    from mcplock.packages.pin import PackagePin

Key = tuple[str, str, str]  # (server, kind, key)
PINNING = ("pinned", "unpinned", "floating", "local", "remote")
NEEDS_PIN = ("unpinned", "floating")


def purl(registry: str, name: str, version: str | None, digest: str | None = None) -> str | None:
    """The package URL of a release (npm, PyPI, OCI), or None (an MCPB bundle is a URL, not a package)."""
    from packageurl import PackageURL

    if registry == "npm":
        scope, _, bare = name.rpartition("/")
        return str(PackageURL(type="npm", namespace=scope or None, name=bare, version=version).to_string())
    if registry == "pypi":
        return str(PackageURL(type="pypi", name=re.sub(r"[-_.]+", "-", name).lower(), version=version).to_string())
    if registry == "oci":
        repo = name.split("@", 1)[0]
        qualifiers = {"repository_url": repo, **({"tag": version} if version else {})}
        last = repo.rsplit("/", 1)[-1].lower()
        return str(PackageURL(type="oci", name=last, version=digest, qualifiers=qualifiers).to_string())
    return None


def _package(pin: PackagePin) -> dict[str, Any]:
    integrities = list(pin.integrities())
    digest = integrities[0] if pin.registry == "oci" and len(integrities) == 1 else None
    name = (endpoint(pin.name) or "") if pin.registry == "mcpb" else pin.name  # a bundle's URL: no query
    return {
        "registry": pin.registry,
        "name": name,
        "version": pin.version,
        "integrity": integrities,
        "purl": purl(pin.registry, name, pin.version, digest),
    }


def launch(spec: ServerSpec) -> dict[str, Any]:
    """How a server runs, without its arguments, decided as the policy decides it
    (:func:`mcplock.packages.runs.runs`): ``pinning``, the ``package`` pin (or None), the ``launch``
    its command line asks a registry for when no pin governs it (registry, name, the version as
    written or None), the command's file name (never its directory)."""
    from mcplock.packages.pin import pin_problem
    from mcplock.packages.runs import runs

    out: dict[str, Any] = {"pinning": "remote", "command": None, "package": None, "launch": None}
    what = runs(spec.command, spec.args, spec.package, stdio=spec.stdio)
    if what.kind == "remote":
        return out
    out["command"] = os.path.basename(spec.command or "") or None
    if spec.package is not None:
        out["package"] = _package(spec.package)
    if what.kind == "pinned" and spec.package is not None:
        ok = spec.package.integrities() and spec.package.problem() is None
        out["pinning"] = "pinned" if ok else "unpinned"
        return out
    if what.kind == "local":
        out["pinning"] = "local"
        return out
    got = what.launch  # unpinned: a launcher without a pin that governs it, a wrapper, an unreadable command
    if got is None:
        out["pinning"] = "floating"
        return out
    exact = got.requested is not None and pin_problem(got.registry, got.name, got.requested) is None
    out["pinning"] = "unpinned" if (exact or got.digest) and what.via is None else "floating"
    out["launch"] = {"registry": got.registry, "name": got.name, "requested": got.requested}
    return out


def sound(lock: Lock) -> dict[Key, str]:
    """(server, kind, key) → the hash of each accepted definition that matches its hash (one that
    does not was edited by hand: it is no reviewed surface, and has no accepted finding)."""
    return {
        (s, e.kind, e.key): e.hash
        for s, srv in lock.servers.items()
        for e in srv.entries()
        if e.hash and e.definition is not None and not e.tampered()
    }


def accepted_findings(
    lock: Lock, intact: dict[Key, str], cache: LintCache | None = None
) -> dict[Key, list[LintFinding]]:
    """The lint's findings per item, of the accepted definitions (``intact``: :func:`sound`),
    through the lint ``cache`` (None: the user's, opened and saved here; a fleet opens it once for
    every lock and saves it at the end)."""
    from mcplock.lint.cache import LintCache
    from mcplock.lint.entries import lint_entries

    hashes = {k: h for k, h in intact.items() if lock.servers[k[0]].find(k[1], k[2]).pending is None}  # type: ignore[union-attr]
    own = cache is None
    if own:
        cache = LintCache.open()
    found = lint_entries(lock.servers.values(), cache=cache, hashes=hashes)
    if own and cache is not None:
        cache.save()
    return {k: v for k, v in found.items() if k in hashes}


def highest(findings: list[LintFinding] | None) -> str | None:
    """The highest severity of ``findings`` (None: none)."""
    if not findings:
        return None
    return min((f.severity for f in findings), key=rank)


def item(e: Entry, worst: str | None) -> dict[str, Any]:
    """One item's review record: its state, hashes, a tool's flags, its highest accepted finding."""
    state = "pending" if e.pending is not None else "rejected" if e.definition is None else "accepted"
    rec: dict[str, Any] = {"kind": e.kind, "name": e.key, "state": state, "hash": e.hash}
    if e.kind == "tool":
        rec["enabled"] = e.enabled
        rec["approval"] = e.approval
    if e.pending is not None:
        rec["change"] = e.pending.change
        rec["pending_hash"] = e.pending.hash
    if e.rejected_hash is not None:
        rec["rejected_hash"] = e.rejected_hash
    rec["highest_finding"] = worst
    return rec


def disabled(rec: dict[str, Any]) -> bool:
    """A tool a person turned off: accepted, not enabled, nothing pending on it."""
    return rec["kind"] == "tool" and rec["state"] == "accepted" and rec.get("enabled") is False


def review(items: list[dict[str, Any]]) -> dict[str, Any]:
    """A server's review state from its items' records."""
    pending = sum(1 for r in items if r["state"] == "pending")
    worst = [r["highest_finding"] for r in items if r["state"] == "accepted" and r["highest_finding"]]
    return {
        "state": "pending" if pending else "accepted",
        "accepted": sum(1 for r in items if r["state"] == "accepted"),
        "pending": pending,
        "disabled": sum(1 for r in items if disabled(r)),
        "rejected": sum(1 for r in items if r["state"] == "rejected"),
        "highest_accepted_finding": min(worst, key=rank) if worst else None,
    }


# surface digests by the definition hashes of the tools they cover: the same release locked in many
# projects has the same tools, and its digest (RFC 8785 over every tool) is computed once
_SURFACES: dict[tuple[tuple[str, str], ...], str] = {}


def surface(srv: ServerEntry, intact: dict[Key, str]) -> tuple[str, int]:
    """(the ``mcp-lock/1`` surface digest of the server's accepted tools, how many tools it covers):
    every tool whose accepted definition matches its hash, as ``export --format mcp-lock-v1`` does."""
    from mcplock.interop.digests import surface_hash

    names = sorted(
        k for k, e in srv.tools.items() if isinstance(e.definition, dict) and (srv.name, "tool", k) in intact
    )
    key = tuple((k, intact[(srv.name, "tool", k)]) for k in names)
    if key not in _SURFACES:
        if len(_SURFACES) > 50_000:
            _SURFACES.clear()
        _SURFACES[key] = surface_hash([srv.tools[k].definition for k in names])
    return _SURFACES[key], len(names)


def locked_server(srv: ServerEntry, findings: dict[Key, list[LintFinding]], intact: dict[Key, str]) -> dict[str, Any]:
    """The record of a server of the lock (``intact``: :func:`sound`)."""
    items = [item(e, highest(findings.get((srv.name, e.kind, e.key)))) for e in srv.entries()]
    digest, n_tools = surface(srv, intact)
    counts = {k: sum(1 for r in items if r["kind"] == k and r["state"] == "accepted") for k in ("prompt", "resource")}
    rec = _common(srv.name, srv.spec, "lock")
    info = srv.server_info or {}
    rec.update(
        server_info={"name": str(info.get("name", "")), "version": str(info.get("version", ""))} if info else None,
        registry_entry={"name": srv.spec.registry.name, "version": srv.spec.registry.version}
        if srv.spec.registry is not None
        else None,
        surface={
            "mcp-lock-v1": digest,
            "tools": n_tools,
            "prompts": counts["prompt"],
            "resources": counts["resource"],
        },
        instructions_hash=srv.instructions.hash if srv.instructions is not None else None,
        config_hash=srv.config_hash,
        review=review(items),
        items=items,
    )
    return rec


def config_server(name: str, spec: ServerSpec, host: str, file: str) -> dict[str, Any]:
    """The record of a server a host config runs that the lock does not hold: nothing reviewed."""
    rec = _common(name, spec, "config")
    rec.update(
        config={"host": host, "file": file},
        server_info=None,
        registry_entry=None,
        surface=None,
        instructions_hash=None,
        config_hash=None,
        review={
            "state": "unreviewed",
            "accepted": 0,
            "pending": 0,
            "disabled": 0,
            "rejected": 0,
            "highest_accepted_finding": None,
        },
        items=[],
    )
    return rec


def _common(name: str, spec: ServerSpec, origin: str) -> dict[str, Any]:
    return {
        "name": name,
        "origin": origin,
        "config": None,
        "transport": str(spec.transport),
        "endpoint": endpoint(spec.url) if spec.remote else None,
        **launch(spec),
    }
