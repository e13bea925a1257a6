"""Probing servers for a workflow: the one place ProbeOptions is built, probing with the
OAuth follow-up, and reading the lock while its servers are probed.

The probe package (and with it the MCP SDK and HTTP clients) is imported inside these
functions, never at start-up.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from mcplock.core import oauth
from mcplock.core.specs import client_identity, lock_dir, locked_specs
from mcplock.errors import HashError, UsageError
from mcplock.lock.model import Lock, ServerEntry
from mcplock.lock.spec import ServerSpec
from mcplock.model.snapshot import Snapshot

if TYPE_CHECKING:
    from mcplock.errors import ProbeError
    from mcplock.probe import ProbeOptions

OnEvent = Callable[[str, str], None]  # (server name, "start" | "done" | "failed")
Results = dict[str, Any]  # server name -> Snapshot | ProbeError


def result_of(results: Results, name: str) -> Any:
    """The Snapshot of server ``name``, or the ProbeError that stopped it."""
    from mcplock.errors import ProbeError

    r = results.get(name)
    return ProbeError("internal", "no result") if r is None else r


def unpinnable(err: HashError) -> ProbeError:
    """A server whose answer holds a value with no canonical form fails alone, like an
    unreachable one: its error names the item (the other servers are still compared/written)."""
    from mcplock.errors import ProbeError

    return ProbeError("unpinnable", err.message, hint=err.hint)


def probe_options(
    *,
    lockfile: str,
    timeout: float = 30.0,
    client_name: str | None = None,
    client_version: str | None = None,
    verbose: bool = False,
    environ: Mapping[str, str] | None = None,
    client_capabilities: tuple[str, ...] | None = None,
) -> ProbeOptions:
    """The ProbeOptions of a run (the only place they are built).

    ``${MCPLOCK_PROJECT_DIR}`` is the lock's directory unless the environment sets it.
    """
    from mcplock.auth import http_client
    from mcplock.probe import ProbeOptions

    _check_timeout(timeout)
    client_identity(client_name, client_version)  # --client-version alone is a usage error
    env = dict(os.environ if environ is None else environ)
    env.setdefault("MCPLOCK_PROJECT_DIR", lock_dir(lockfile))
    # the HTTP client is injected: OAuth where the token store holds a login, plain otherwise
    kw: dict[str, Any] = {"timeout": timeout, "environ": env, "verbose": verbose, "http_client": http_client}
    if client_name:
        kw["client_name"] = client_name
    if client_version:
        kw["client_version"] = client_version
    if client_capabilities is not None:
        kw["client_capabilities"] = client_capabilities
    return ProbeOptions(**kw)


def _check_timeout(timeout: float) -> None:
    """``--timeout``: a positive, finite number of seconds."""
    if not math.isfinite(timeout) or timeout <= 0:
        raise UsageError(
            f"--timeout must be a positive, finite number of seconds, not {timeout:g}",
            hint="e.g. --timeout 60 for a server that is slow to start",
        )


def probe(
    specs: list[ServerSpec],
    opts: ProbeOptions,
    *,
    lockfile: str,
    login: bool = False,
    on_event: OnEvent | None = None,
    say: Callable[[str], None] | None = None,
    prepared: Mapping[str, ServerSpec] | None = None,
) -> Results:
    """Probe ``specs`` concurrently; servers that ask for an OAuth login get one where
    allowed (``login``, or a terminal) and are probed again. ``say`` shows the user the
    authorization URL of such a login (without it, no login starts: the error says how).
    ``prepared``: the launch of a pinned spec whose artefact the caller has just installed and
    verified (``add``: :func:`mcplock.packages.pin_and_prepare`), not verified again."""
    from mcplock.probe import probe_many
    from mcplock.trust.org_policy import managed_gate

    managed_gate(opts.environ)  # a broken managed policy: nothing is fetched or started (docs/policy.md)
    specs, failed = prepare_packages(specs, opts.environ, prepared)
    results = probe_many(specs, opts, on_event=on_event) if specs else {}
    _note_pins(specs, results)
    results.update(failed)
    return oauth.after_probe(
        specs,
        results,
        lambda again: probe_many(again, opts, on_event=on_event),
        lockfile=lockfile,
        login=say is not None and oauth.login_allowed(login, opts.environ),
        say=say or (lambda _: None),
        environ=opts.environ,
    )


def _note_pins(specs: list[ServerSpec], results: Results) -> None:
    """Each snapshot of a pinned server carries the pin that ran, its tree-integrity filled by a
    first install."""
    for sp in specs:
        r = results.get(sp.name)
        if sp.package is not None and isinstance(r, Snapshot):
            r.package = sp.package


def prepare_packages(
    specs: list[ServerSpec], environ: Mapping[str, str] | None = None, prepared: Mapping[str, ServerSpec] | None = None
) -> tuple[list[ServerSpec], Results]:
    """Every pinned spec rewritten to launch its verified artefact, before any server starts.

    A pin the artefact does not match is an :class:`~mcplock.packages.errors.IntegrityError`
    that stops the whole run (exit 2, nothing started); a cold cache that cannot be filled
    fails that server only, like a probe that could not connect (exit 3)."""
    if not any(sp.package is not None for sp in specs):
        return specs, {}
    from mcplock.trust.org_policy import managed_gate

    managed_gate(environ)  # nothing is installed under a managed policy that cannot be read
    from mcplock.errors import ProbeError
    from mcplock.packages.errors import RegistryError

    ready: list[ServerSpec] = []
    failed: Results = {}
    for sp in specs:
        try:
            ready.append(_prepared(sp, environ, prepared))
        except RegistryError as e:
            failed[sp.name] = ProbeError(e.code, e.message, hint=e.hint)
    return ready, failed


def _prepared(
    sp: ServerSpec, environ: Mapping[str, str] | None, prepared: Mapping[str, ServerSpec] | None
) -> ServerSpec:
    """One spec's launch: the one the caller verified a moment ago (it pinned it), else its
    artefact's, installed and verified now."""
    from mcplock.packages import prepare

    if prepared is not None and sp.name in prepared:
        return prepared[sp.name]
    return prepare(sp, environ)


def load_and_probe(
    lockfile: str,
    names: list[str],
    opts: ProbeOptions,
    *,
    use_stored_client: bool = True,
    login: bool = False,
    on_event: OnEvent | None = None,
    say: Callable[[str], None] | None = None,
    before_probe: Callable[[list[ServerSpec]], None] | None = None,
    check_trust: bool = True,
) -> tuple[Lock, list[ServerEntry], Results]:
    """Read the lock, verify it, and probe its servers (those named, or all).

    The whole lock is read and every stored hash verified before anything starts
    (:func:`mcplock.core.check.verified`): a lock that is unreadable, conflicted or edited by
    hand is an error at once, and never the baseline of a comparison that would say "ok". Nothing
    runs that this machine has not trusted in this project (``check_trust``; in CI the lock is the
    reviewed artefact): :class:`~mcplock.errors.UntrustedError` otherwise.
    """
    from mcplock.core.check import verified
    from mcplock.lock.read import load
    from mcplock.lock.targets import select

    base = lock_dir(lockfile)
    lock = verified(load(lockfile), lockfile)
    selected = select(lock, names)
    specs = locked_specs(selected, base, use_stored_client=use_stored_client)
    if check_trust:
        from mcplock.core import trust

        trust.gate(specs, base, how=trust.trust_command(lockfile), reviewed={trust.launch_hash(s) for s in specs})
    if before_probe is not None:
        before_probe(specs)
    return lock, selected, probe(specs, opts, lockfile=lockfile, login=login, on_event=on_event, say=say)
