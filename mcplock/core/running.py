"""The one locked server that ``mcplock run`` (the guard) and ``mcplock call`` / ``connect``
reach, made ready in one call (docs/architecture.md, "Data flow"): its part of the lock read
and its hashes verified, the probe options, its launch spec with the host configs' secrets,
the trust gate, the verified pinned artefact. What comes back is all the guard needs to start
the server; nothing has run yet."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcplock.lock.model import Lock, ServerEntry
    from mcplock.lock.spec import ServerSpec
    from mcplock.probe import ProbeOptions
    from mcplock.trust.org_policy import OrgPolicy


@dataclass(frozen=True)
class Serving:
    server: ServerEntry  # the lock entry, verified
    spec: ServerSpec  # how to reach it: launched (cwd resolved, secrets in), trusted, the pinned artefact
    opts: ProbeOptions
    org: OrgPolicy | None  # the organisation's policy, if any


def locked_server(lock: Lock, name: str, path: str) -> ServerEntry:
    """The server ``name`` of ``lock``, its stored hashes verified (a hand edit fails closed)."""
    from mcplock.core.check import integrity
    from mcplock.errors import LockfileError
    from mcplock.lock.model import Lock
    from mcplock.text.untrusted import shell_word

    srv = lock.servers.get(name)
    if srv is None:
        from mcplock.lock.targets import unknown_server

        raise unknown_server(lock, name, path, f"add it with `mcplock add {shell_word(name)} …`, or see `mcplock list`")
    bad = [f for f in integrity(Lock({name: srv})) if f.server == name]
    if bad:
        raise LockfileError("; ".join(f.message for f in bad), path=path, hint=bad[0].hint, code="hash-mismatch")
    return srv


def serving(
    lockfile: str,
    name: str,
    *,
    timeout: float = 30.0,
    client_name: str | None = None,
    client_version: str | None = None,
    verbose: bool = False,
    environ: Mapping[str, str] | None = None,
    policy: str | None = None,
    login: Callable[[str], None] | None = None,
) -> Serving:
    """The locked server ``name`` ready to start, or the error that stops it first: a broken
    policy file, no such server, a hash mismatch, an untrusted launch (``mcplock trust NAME``:
    whoever runs this cannot be asked, so the refusal stands), a pin that does not verify.
    ``login``: an OAuth login may happen inside a request (``mcplock call``; it shows the URL)."""
    from mcplock.core import trust
    from mcplock.core.probing import probe_options
    from mcplock.core.specs import lock_dir, locked_specs
    from mcplock.lock.one import load_one
    from mcplock.packages import prepare
    from mcplock.trust import org_policy

    org = org_policy.resolve(policy, environ)  # a broken policy: an error before the server starts (docs/policy.md)
    if org is not None and org.signing_required:  # [signing] require: no server starts on an unsigned lock
        from mcplock.trust.signing import enforce

        enforce(org, lockfile)
    lock = load_one(lockfile, name, trust.machine_secret(environ), environ)  # its part: a big lock is not read whole
    srv = locked_server(lock, name, lockfile)
    opts = probe_options(
        lockfile=lockfile,
        timeout=timeout,
        client_name=client_name,
        client_version=client_version,
        verbose=verbose,
        environ=environ,
    )
    if login is not None:
        from mcplock.auth import login_http_client

        opts = replace(opts, http_client=login_http_client(login))
    spec = locked_specs([srv], lock_dir(lockfile), use_stored_client=not client_name)[0]
    # a lock entry this machine has not trusted in this project is refused, naming `mcplock trust NAME`
    # (in CI the lock is the reviewed one)
    trust.gate(
        [spec],
        lock_dir(lockfile),
        how=trust.trust_command(lockfile),
        reviewed={trust.launch_hash(spec)},
        environ=environ,
    )
    spec = prepare(spec, opts.environ)  # the verified pinned artefact (docs/pins.md), or refused before it starts
    return Serving(srv, spec, opts, org)
