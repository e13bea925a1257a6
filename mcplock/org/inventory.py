"""``mcplock inventory``: what one project (its ``mcp.lock`` and host configs) or one machine (the
user-level configs of the hosts mcplock knows) runs, as mcplock's own JSON (``mcplock-inventory``
version 1, docs/organisation.md).

Launches nothing and connects nowhere: the lock and the configs are read, nothing else. Carries
no secret: no env or header value, no argument beyond a package and its version, a URL without
its user info, query or fragment, the home directory written ``~``.
"""

from __future__ import annotations

import os
import platform
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from mcplock.org import records
from mcplock.org.redact import home_path

if TYPE_CHECKING:
    from mcplock.lint.cache import LintCache
    from mcplock.lock.model import Lock
    from mcplock.trust.org_policy import OrgPolicy

FORMAT = "mcplock-inventory"
VERSION = 1


def timestamp(environ: Any = None) -> str:
    """Now (or ``SOURCE_DATE_EPOCH``), as an RFC 3339 UTC time."""
    env = os.environ if environ is None else environ
    epoch = env.get("SOURCE_DATE_EPOCH")
    when = datetime.fromtimestamp(int(epoch), UTC) if epoch and epoch.isdigit() else datetime.now(UTC)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _envelope(scope: str, project: str, generated_at: str | None) -> dict[str, Any]:
    from mcplock._version import __version__

    return {
        "format": FORMAT,
        "version": VERSION,
        "generated_at": generated_at or timestamp(),
        "generator": {"name": "mcplock", "version": __version__},
        "scope": scope,
        "project": project,
        "lock": None,
        "policy": None,
        "servers": [],
        "violations": [],
        "notes": [],
    }


def project(
    lockfile: str,
    *,
    name: str | None = None,
    policy: OrgPolicy | None = None,
    generated_at: str | None = None,
    cache: LintCache | None = None,
) -> dict[str, Any]:
    """The inventory of the project whose lock is ``lockfile`` (which may not exist: then the host
    configs alone, every server unreviewed). A lock that cannot be read raises its error.
    ``cache``: the lint cache to use (None: the user's, opened and saved here)."""
    from mcplock.lock.read import load

    base = os.path.dirname(os.path.abspath(lockfile))
    label = name or os.environ.get("GITHUB_REPOSITORY") or os.path.basename(base) or "project"
    inv = _envelope("project", label, generated_at)
    lock = load(lockfile) if os.path.exists(lockfile) else None
    locked: dict[str, dict[str, Any]] = {}
    if lock is not None:
        intact = records.sound(lock)
        findings = records.accepted_findings(lock, intact, cache)
        for sname in sorted(lock.servers):
            srv = lock.servers[sname]
            rec = records.locked_server(srv, findings, intact)
            if srv.spec.source:
                rec["config"] = {"host": None, "file": srv.spec.source}
            locked[sname] = rec
        inv["lock"] = {"file": os.path.basename(lockfile), **lock_state(lockfile)}
        if policy is not None:
            inv["violations"] = _violations(policy, lock, findings)
    if policy is not None:
        inv["policy"] = {
            "digest": policy.digest,
            "signing_required": policy.signing_required,
            "signing_keys": list(policy.signing_keys),
        }
    inv["servers"] = list(locked.values()) + _project_configs(base, locked, inv["notes"])
    return inv


def lock_state(lockfile: str) -> dict[str, Any]:
    """The lock file's ``sha256`` (of its bytes: which state of the lock this is) and its signature
    (``mcp.lock.sig``): ``missing``; ``stale`` (made for another state of the lock); ``invalid``
    (it does not verify under the key it names); ``valid`` — by the key whose fingerprint it gives,
    which a policy may or may not list."""
    import base64
    import hashlib

    from mcplock.errors import McplockError
    from mcplock.model.files import DOCUMENT_MAX, read_bounded
    from mcplock.trust import signing

    data = read_bounded(lockfile, DOCUMENT_MAX)
    sha = "sha256-" + base64.b64encode(hashlib.sha256(data).digest()).decode("ascii")
    out: dict[str, Any] = {"sha256": sha, "signature": "missing", "signing_key": None, "signed_at": None}
    where = signing.signature_path(lockfile)
    try:
        env = signing.read_envelope(where)
        if env is None:
            return out
        out.update(signing_key=env.get("publicKeyFingerprint"), signed_at=env.get("signedAt"))
        signing.verify_envelope(env, signing.envelope_key(env, where), where)
        current = signing.toml_digest(data, lockfile)
    except McplockError:
        out["signature"] = "invalid"
        return out
    out["signature"] = "valid" if env["lockfileDigest"] == current else "stale"
    return out


def _violations(policy: OrgPolicy, lock: Lock, findings: dict[records.Key, list[Any]]) -> list[dict[str, Any]]:
    from mcplock.lock.model import item_label
    from mcplock.trust.org_policy import violations

    return [
        {
            "rule": v.rule,
            "server": v.server,
            "item": item_label(v.kind, v.key) if v.kind and v.key is not None else None,
            "message": v.message,
        }
        for v in violations(policy, lock, findings)
    ]


def _project_configs(base: str, locked: dict[str, dict[str, Any]], notes: list[str]) -> list[dict[str, Any]]:
    """The servers of the project's host configs that the lock does not hold; each locked server
    a config names gets that config's host."""
    from mcplock.errors import McplockError
    from mcplock.hosts import discover, load_host_config

    out: list[dict[str, Any]] = []
    for path in discover(base):
        rel = os.path.relpath(path, base)
        try:
            cfg = load_host_config(path, source=rel, project_dir=base)
        except McplockError as e:
            notes.append(f"{rel}: not read ({home_path(e.message)})")
            continue
        for sname, imported in cfg.servers.items():
            if sname in locked:
                if (locked[sname]["config"] or {}).get("file") == rel:
                    locked[sname]["config"] = {"host": cfg.host, "file": rel}
                continue
            out.append(records.config_server(sname, imported.spec, cfg.host, rel))
    return out


def user(home: str | None = None, *, name: str | None = None, generated_at: str | None = None) -> dict[str, Any]:
    """The inventory of this machine's user-level host configs (under ``home``, default ``~``)."""
    from mcplock.errors import McplockError
    from mcplock.hosts import load_host_config
    from mcplock.hosts.user import user_configs

    root = home if home is not None else os.path.expanduser("~")
    inv = _envelope("user", name or platform.node() or "machine", generated_at)
    for path, host in user_configs(root):
        shown = home_path(path, root)
        try:
            cfg = load_host_config(path, host=host, source=shown, project_dir=root)
        except McplockError as e:
            inv["notes"].append(f"{shown}: not read ({home_path(e.message, root)})")
            continue
        inv["servers"].extend(
            records.config_server(sname, imported.spec, cfg.host, shown) for sname, imported in cfg.servers.items()
        )
    return inv
