"""What an organisation's policy forbids in how a server runs (docs/policy.md): `packages.require-pin`,
`packages.allow-registries`, `servers.allow` — each decided by what is pinned
(:func:`mcplock.packages.runs.runs`), never by recognising wrappers: a command that is not
provably a pinned launch or the project's own code is an unpinned launch of an unknown package.

Each rule is checked per part of the policy (each violation names its file). :func:`refused_before_launch`
is the same check for a server about to be added (``add``, ``init``): a launcher run directly is
not yet pinned there, and will be before it starts, so `require-pin` does not hold it back.
"""

from __future__ import annotations

import fnmatch
from typing import TYPE_CHECKING

from mcplock.text.untrusted import shell_word
from mcplock.trust.policy_model import OrgPolicy, Violation, _fold

if TYPE_CHECKING:  # pragma: no cover
    from mcplock.lock.spec import ServerSpec
    from mcplock.packages.runs import Runs


def _runs(spec: ServerSpec) -> Runs:
    from mcplock.packages.runs import runs

    return runs(spec.command, spec.args, spec.package, stdio=spec.stdio)


def identities(spec: ServerSpec, ran: Runs | None = None) -> list[str]:
    """What `servers.allow` patterns are matched against: the package a server runs (``npm:NAME``,
    ``pypi:NAME``, ``oci:IMAGE``: from its pin, its launcher's command line, or what a wrapper
    such as ``env`` or ``sh -c`` runs), ``local`` for a command that provably runs the project's
    own code, ``unknown`` for anything else, the URL of a remote server, and the MCP Registry name
    it was added by when the lock records one and the command is that package's launcher run
    directly (a registry entry never produces a wrapper or a command mcplock cannot read)."""
    ran = ran or _runs(spec)
    out: list[str] = []
    if spec.registry is not None and ran.direct:
        out.append(spec.registry.name)
    if ran.identity is not None:
        out.append(ran.identity)
    if spec.url:
        out.append(spec.url)
    return out


def server_violations(policy: OrgPolicy, name: str, spec: ServerSpec) -> list[Violation]:
    """What each part of the policy forbids in how the server ``name`` runs."""
    ran = _runs(spec)
    return [v for part in policy.parts for v in _violations(part, name, spec, ran, adding=False)]


def refused_before_launch(policy: OrgPolicy, specs: list[ServerSpec]) -> list[Violation]:
    """What the policy forbids in servers about to be added, before anything of them is fetched or
    started: every rule, except that a launcher run directly will be pinned first."""
    out: list[Violation] = []
    for spec in specs:
        ran = _runs(spec)
        out.extend(v for part in policy.parts for v in _violations(part, spec.name, spec, ran, adding=True))
    return out


def _violations(policy: OrgPolicy, name: str, spec: ServerSpec, ran: Runs, *, adding: bool) -> list[Violation]:
    found = (
        _pin_violation(policy, name, ran, adding=adding),
        _registry_violation(policy, name, ran),
        _allow_violation(policy, name, spec, ran),
    )
    return [v for v in found if v is not None]


def _pin_violation(policy: OrgPolicy, name: str, ran: Runs, *, adding: bool) -> Violation | None:
    """``packages.require-pin``: anything that is not a pinned launch or the project's own code."""
    if not policy.require_pin or ran.kind in ("pinned", "local", "remote") or (adding and ran.direct):
        return None
    typed = shell_word(name)
    rule = policy.rule("packages.require-pin")
    if ran.via:  # a wrapper: no pin can be applied, whatever it names
        return Violation(
            "packages.require-pin",
            name,
            f"`{name}` runs a package through `{ran.via}`, which no pin can reach ({ran.reason}), but the "
            f"policy requires one ({rule})",
            f"write the launcher's own command line (`npx …`, `uvx …`; variables go in --env), then "
            f"`mcplock update {typed}`; or `mcplock remove {typed}`",
        )
    if ran.direct:
        return Violation(
            "packages.require-pin",
            name,
            f"`{name}` runs `{ran.launch.launcher if ran.launch else ''}` without a package pin ({ran.reason}), but "
            f"the policy requires one ({rule})",
            f"pin it: `mcplock update {typed}` (an exact version on the command line pins too)",
        )
    return Violation(
        "packages.require-pin",
        name,
        f"`{name}` is not provably a pinned launch ({ran.reason}), but the policy requires one ({rule})",
        f"run the package through its launcher directly (`npx …`, `uvx …`, `docker run …`) and "
        f"`mcplock update {typed}`, or a script of the project with its interpreter (`node server.js`); "
        f"or `mcplock remove {typed}`",
    )


def _registry_violation(policy: OrgPolicy, name: str, ran: Runs) -> Violation | None:
    """``packages.allow-registries``: a package from a registry the policy does not list (an
    unknown registry for a command mcplock cannot read: none is vouched for)."""
    if policy.allow_registries is None or ran.registry is None or ran.registry in policy.allow_registries:
        return None
    return Violation(
        "packages.allow-registries",
        name,
        f"`{name}` runs a package from {ran.registry}, which the policy does not allow "
        f"({policy.rule('packages.allow-registries')}: {', '.join(policy.allow_registries)})",
        f"remove it (`mcplock remove {shell_word(name)}`), or ask the policy's owners",
    )


def _allow_violation(policy: OrgPolicy, name: str, spec: ServerSpec, ran: Runs) -> Violation | None:
    """``servers.allow``: a server none of whose identities the policy's patterns match."""
    if policy.allow_servers is None:
        return None
    ids = identities(spec, ran)
    if any(fnmatch.fnmatchcase(_fold(i), _fold(p)) for i in ids for p in policy.allow_servers):
        return None
    return Violation(
        "servers.allow",
        name,
        f"`{name}` ({', '.join(ids) or 'unknown'}) is not allowed by the policy "
        f"({policy.rule('servers.allow')}: {', '.join(policy.allow_servers)})",
        f"remove it (`mcplock remove {shell_word(name)}`), or ask the policy's owners to allow it",
    )
