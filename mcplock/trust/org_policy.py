"""An organisation's policy: rules kept once, read by every repository's mcplock (docs/policy.md).

Not :mod:`mcplock.trust.decide`, which is the guard's per-call decision (list / refuse / ask /
forward); this package part reads the organisation's files and says what they forbid. The guard's
decision consults it (``Host.org``), so a denied tool is refused whatever the lock says.

```toml
version = 1
[tools]
deny = ["*delete*", "shell_*"]        # never enabled; the guard and `call` refuse them; export writes deny
require-approval = ["*send*"]         # must stay approval = "always"
[review]
max-accepted-severity = "high"        # an accepted, enabled item with a finding above this fails check
[packages]
require-pin = true                    # every server is a pinned launch or the project's own code
allow-registries = ["npm", "pypi"]
[servers]
allow = ["npm:@modelcontextprotocol/*", "local"]
```

Where the files come from (:func:`resolve`): the machine's **managed** file, always in force when
it exists (Linux ``/etc/mcplock/policy.toml``, macOS ``/Library/Application Support/mcplock/
policy.toml``, Windows ``%ProgramData%\\mcplock\\policy.toml``: where device management puts it),
then ``$MCPLOCK_POLICY``, then ``--policy``. Each adds rules; none loosens another
(:mod:`mcplock.trust.policy_model` says how they combine). A managed file that exists and cannot be
read or parsed refuses every command that reads a policy, probes or launches (:func:`managed_gate`),
with the reason, until it can be read.

The parts: :mod:`~mcplock.trust.policy_model` (what the rules say), :mod:`~mcplock.trust.policy_file`
(reading one file), :mod:`~mcplock.trust.policy_items` (what they forbid in a reviewed item),
:mod:`~mcplock.trust.policy_servers` (in how a server runs).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from mcplock.errors import ConfigError
from mcplock.lock.model import Lock
from mcplock.lock.spec import ServerSpec
from mcplock.trust.policy_file import ENV, REGISTRIES, VERSION, load, loads
from mcplock.trust.policy_items import forbids_accept, item_violations
from mcplock.trust.policy_model import Forbidden, OrgPolicy, Violation, matches
from mcplock.trust.policy_servers import identities, refused_before_launch, server_violations

__all__ = [
    "ENV",
    "MANAGED_ENV",
    "REGISTRIES",
    "VERSION",
    "Forbidden",
    "OrgPolicy",
    "Violation",
    "forbids_accept",
    "identities",
    "item_violations",
    "load",
    "loads",
    "managed_gate",
    "managed_paths",
    "matches",
    "refuse_adding",
    "refused_before_launch",
    "resolve",
    "server_violations",
    "violations",
]

#: FOR TESTS ONLY: one more managed policy file, in force beside the machine's own (docs/policy.md).
#: It can only add a file: the machine's managed file stays in force whatever it says.
MANAGED_ENV = "MCPLOCK_MANAGED_POLICY_PATH"


def system_managed_path(platform: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """Where device management puts the organisation's policy on this kind of machine."""
    plat = platform or sys.platform
    if plat == "darwin":
        return "/Library/Application Support/mcplock/policy.toml"
    if plat.startswith("win"):
        env = os.environ if environ is None else environ
        return os.path.join(env.get("ProgramData") or r"C:\ProgramData", "mcplock", "policy.toml")
    return "/etc/mcplock/policy.toml"


def managed_paths(environ: Mapping[str, str] | None = None) -> list[str]:
    """The managed files in force: the machine's, and the test-only variable's when set."""
    env = os.environ if environ is None else environ
    paths = [system_managed_path(environ=env)]
    extra = env.get(MANAGED_ENV)
    if extra and extra not in paths:
        paths.append(extra)
    return paths


def _load_managed(path: str) -> OrgPolicy | None:
    """The managed file at ``path``; None when there is none; an error that refuses everything when
    it exists and cannot be read, is not a regular file, or does not parse."""
    try:
        os.lstat(path)  # a link to nothing is a managed file that cannot be read, not an absent one
    except FileNotFoundError:
        return None
    except OSError as e:
        raise _managed_error(path, f"cannot be read: {e.strerror or e}") from None
    try:
        return load(path)
    except ConfigError as e:
        raise _managed_error(path, e.message.removeprefix(f"policy {path}: ")) from None


def _managed_error(path: str, why: str) -> ConfigError:
    return ConfigError(
        f"the organisation's managed policy {path} {why if why.startswith('cannot') else 'is broken: ' + why}; "
        "mcplock refuses to probe or launch any server until it can be read",
        code="managed-policy",
        hint='ask whoever manages this machine to fix the file (docs/policy.md, "The managed policy"); '
        "nothing was started",
    )


def managed_gate(environ: Mapping[str, str] | None = None) -> None:
    """Raise when a managed policy exists and cannot be read: called before any probe or launch."""
    for path in managed_paths(environ):
        _load_managed(path)


def resolve(option: str | None, environ: Any = None) -> OrgPolicy | None:
    """The policy of this run: the managed files, ``$MCPLOCK_POLICY`` and ``--policy FILE``
    together, or none. Each adds rules and never replaces another: a repository controls the flag
    (the args in its ``.mcp.json``, its pre-commit hook), the person the environment, the
    organisation the managed file."""
    env = os.environ if environ is None else environ
    loaded = [p for p in (_load_managed(m) for m in managed_paths(env)) if p is not None]
    seen = [p.path for p in loaded]  # a managed file named again is read once
    for path in _policy_files(env.get(ENV), option):
        if any(_same_file(path, s) for s in seen):
            continue
        seen.append(path)
        loaded.append(load(path))
    if not loaded:
        return None
    first, *rest = loaded
    return replace(first, also=tuple(rest)) if rest else first


def _policy_files(from_env: str | None, option: str | None) -> list[str]:
    """The files in effect: the environment's, then the flag's (an empty value names none)."""
    return [p for p in (from_env, option) if p]


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return a == b


def refuse_adding(specs: list[ServerSpec], environ: Mapping[str, str] | None = None) -> OrgPolicy | None:
    """``add``/``init``: the policy in force (managed files and ``$MCPLOCK_POLICY``), checked
    against how the new servers run before anything of them is fetched, installed or started;
    :class:`Forbidden` (exit 1) naming each violation. Returns the policy, for the accept."""
    org = resolve(None, environ)
    if org is None:
        return None
    found = refused_before_launch(org, specs)
    if found:
        from mcplock.text.untrusted import sanitize

        lines = "; ".join(sanitize(v.message, 400) for v in found)
        raise Forbidden(
            f"the organisation's policy forbids {'this server' if len(specs) == 1 else 'what is added'}: "
            f"{lines}. Nothing was downloaded or started",
            hint=sanitize(found[0].hint, 300),
        )
    return org


def violations(
    policy: OrgPolicy,
    lock: Lock,
    findings: dict[tuple[str, str, str], list[Any]] | None = None,
) -> list[Violation]:
    """Everything the policy forbids in ``lock``. ``findings``: lint findings per (server, kind,
    key) of the accepted definitions (needed for `review.max-accepted-severity`)."""
    out: list[Violation] = []
    for sname in sorted(lock.servers):
        srv = lock.servers[sname]
        out.extend(server_violations(policy, sname, srv.spec))
        for e in srv.entries():
            if e.pending is not None and e.definition is None:
                continue  # never accepted: nothing enabled yet (`accept` asks the policy)
            found = (findings or {}).get((sname, e.kind, e.key)) if e.pending is None else None
            out.extend(item_violations(policy, sname, e, found))
    return out
