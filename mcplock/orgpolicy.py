"""An organisation's policy: rules kept once, read by every repository's mcplock (docs/policy.md).

Not :mod:`mcplock.policy`, which is the guard's per-call decision (list / refuse / ask /
forward); this module reads the organisation's file and says what it forbids. The guard's
decision consults it (``Host.org``), so a denied tool is refused whatever the lock says.

```toml
version = 1
[tools]
deny = ["*delete*", "shell_*"]        # never enabled; the guard and `call` refuse them; export writes deny
require-approval = ["*send*"]         # must stay approval = "always"
[review]
max-accepted-severity = "high"        # an accepted, enabled item with a finding above this fails check
[packages]
require-pin = true                    # every npx/uvx/pipx/docker server carries a package pin
allow-registries = ["npm", "pypi"]
[servers]
allow = ["npm:@modelcontextprotocol/*", "local"]
```

Patterns are shell-style (``*``, ``?``, ``[…]``) over ``SERVER/TOOL`` when they hold a ``/`` and
over ``TOOL`` otherwise; deny and require-approval compare skeletons (:mod:`mcplock.skeleton`:
no look-alike of a denied name passes), ``servers.allow`` case-folded identities. The
environment's policy and a ``--policy`` flag's both apply (:func:`resolve`). A file that
cannot be read, is not TOML, or names a key or value this mcplock does not know is an error
(exit 2), never ignored. Pure apart from :func:`load` reading the file.
"""

from __future__ import annotations

import fnmatch
import os
import re
import tomllib
from dataclasses import dataclass, replace
from typing import Any

from mcplock.errors import ConfigError, McplockError
from mcplock.lock.model import Lock, ServerEntry
from mcplock.lock.targets import format_target
from mcplock.severity import SEVERITIES, rank
from mcplock.untrusted import shell_word

ENV = "MCPLOCK_POLICY"
VERSION = 1
_SCHEMA: dict[str, dict[str, type]] = {
    "tools": {"deny": list, "require-approval": list},
    "review": {"max-accepted-severity": str},
    "packages": {"require-pin": bool, "allow-registries": list},
    "servers": {"allow": list},
    "signing": {"require": bool, "keys": list},
}
REGISTRIES = ("npm", "pypi", "oci")
_FINGERPRINT = re.compile(r"sha256-[A-Za-z0-9+/]{43}=")


@dataclass(frozen=True)
class OrgPolicy:
    path: str  # as given (for messages)
    deny: tuple[str, ...] = ()
    require_approval: tuple[str, ...] = ()
    max_severity: str | None = None
    require_pin: bool = False
    allow_registries: tuple[str, ...] | None = None
    allow_servers: tuple[str, ...] | None = None
    require_signing: bool = False  # [signing] require: check, diff and the guard need a valid mcp.lock.sig
    keys: tuple[str, ...] = ()  # [signing] keys: the fingerprints (sha256-<base64> of SPKI DER) that may sign
    own_digest: str | None = None  # sha256-<base64> of this file's canonical data
    #: further policies that apply as well: the environment's policy and a ``--policy`` flag's
    #: together (:func:`resolve`). Every rule of each holds; the fields above are this one's own.
    also: tuple[OrgPolicy, ...] = ()

    @property
    def parts(self) -> tuple[OrgPolicy, ...]:
        return (self, *self.also)

    @property
    def strictest_severity(self) -> str | None:
        """The lowest `review.max-accepted-severity` of every part (None: no part sets one)."""
        found = [p.max_severity for p in self.parts if p.max_severity is not None]
        return max(found, key=rank) if found else None

    @property
    def signing_required(self) -> bool:
        """Some part says ``[signing] require = true``."""
        return any(p.require_signing for p in self.parts)

    @property
    def signing_keys(self) -> tuple[str, ...]:
        """The fingerprints a signature may be made with: with parts that require signing, those
        every such part lists (each part's rule holds); else every key any part names."""
        requiring = [p for p in self.parts if p.require_signing]
        if requiring:
            return tuple(k for k in requiring[0].keys if all(k in p.keys for p in requiring[1:]))
        return tuple(dict.fromkeys(k for p in self.parts for k in p.keys))

    @property
    def digest(self) -> str | None:
        """What a signature binds: one file's canonical digest, or — with several in effect — the
        digest of their digests, sorted (docs/signing.md)."""
        if not self.also:
            return self.own_digest
        from mcplock.interop.canonical import digest

        return digest(sorted(str(p.own_digest) for p in self.parts))

    def denied(self, server: str, tool: str) -> str | None:
        """The `tools.deny` pattern that denies ``server/tool``, or None."""
        return next((m for p in self.parts if (m := _first(p.deny, server, tool))), None)

    def approval_required(self, server: str, tool: str) -> str | None:
        """The `tools.require-approval` pattern that covers ``server/tool``, or None."""
        return next((m for p in self.parts if (m := _first(p.require_approval, server, tool))), None)

    def rule(self, name: str, pattern: str | None = None) -> str:
        """How a message names a rule: ``tools.deny `*delete*` in org-policy.toml`` (the file of
        the part that holds the pattern, or sets the limit)."""
        owner = self
        if pattern is not None:
            field = {"tools.deny": "deny", "tools.require-approval": "require_approval"}.get(name)
            owner = next((p for p in self.parts if field and pattern in getattr(p, field)), self)
        elif name == "review.max-accepted-severity":
            owner = next((p for p in self.parts if p.max_severity == self.strictest_severity), self)
        return f"{name}{f' `{pattern}`' if pattern else ''} in {owner.path}"


def _fold(s: str) -> str:
    """How `servers.allow` compares identities: case folded, nothing else. An allow list must
    not widen to look-alikes (``npm:@modeIcontextprotocol/x`` is another package)."""
    return s.casefold()


def matches(pattern: str, server: str, tool: str) -> bool:
    """``tools.deny``/``require-approval``: the pattern over ``SERVER/TOOL`` (with a ``/``) or
    ``TOOL``, both read as their skeletons (:func:`mcplock.skeleton.skeleton`): no look-alike,
    combining mark or invisible character gets a denied name past its pattern."""
    from mcplock import skeleton

    return skeleton.matches(pattern, f"{server}/{tool}" if "/" in pattern else tool)


def _first(patterns: tuple[str, ...], server: str, tool: str) -> str | None:
    return next((p for p in patterns if matches(p, server, tool)), None)


# -- reading ------------------------------------------------------------------------------------


def _bad(path: str, message: str) -> ConfigError:
    return ConfigError(
        f"policy {path}: {message}",
        code="policy",
        hint=f"fix the policy file (docs/policy.md lists every key), or point --policy / {ENV} at the right one",
    )


def _strings(path: str, where: str, value: list[Any]) -> tuple[str, ...]:
    if not all(isinstance(v, str) and v for v in value):
        raise _bad(path, f"`{where}` must be a list of non-empty strings")
    return tuple(value)


def loads(text: str, path: str) -> OrgPolicy:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise _bad(path, f"not valid TOML: {e}") from None
    version = data.get("version")
    if version is None:
        raise _bad(path, "missing `version = 1`")
    if type(version) is not int or version != VERSION:  # `1.0`, `true` and `"1"` are not version 1
        raise _bad(path, f"unsupported `version = {version!r}` (this mcplock reads version {VERSION})")
    for key, value in data.items():
        if key == "version":
            continue
        if key not in _SCHEMA:
            raise _bad(path, f"unknown key `{key}` (known: version, {', '.join(_SCHEMA)})")
        if not isinstance(value, dict):
            raise _bad(path, f"`{key}` must be a table (`[{key}]`)")
        for sub, v in value.items():
            want = _SCHEMA[key].get(sub)
            if want is None:
                raise _bad(path, f"unknown key `{key}.{sub}` (known: {', '.join(_SCHEMA[key])})")
            if not isinstance(v, want):
                raise _bad(path, f"`{key}.{sub}` must be a {'list' if want is list else want.__name__}")
    tools, review = data.get("tools", {}), data.get("review", {})
    packages, servers = data.get("packages", {}), data.get("servers", {})
    severity = review.get("max-accepted-severity")
    if severity is not None and severity not in SEVERITIES:
        raise _bad(path, f"`review.max-accepted-severity` must be one of {', '.join(SEVERITIES)}, not {severity!r}")
    registries = packages.get("allow-registries")
    if registries is not None:
        registries = _strings(path, "packages.allow-registries", registries)
        unknown = [r for r in registries if r not in REGISTRIES]
        if unknown:
            raise _bad(path, f"`packages.allow-registries` names {', '.join(unknown)} (known: {', '.join(REGISTRIES)})")
    allow = servers.get("allow")
    signing = data.get("signing", {})
    keys = _strings(path, "signing.keys", signing.get("keys", []))
    bad = [k for k in keys if not _FINGERPRINT.fullmatch(k)]
    if bad:
        raise _bad(
            path,
            f"`signing.keys` holds {bad[0]!r}, not a key fingerprint (`sha256-<base64>`, as "
            "`mcplock fingerprint KEY.pub` prints it)",
        )
    if signing.get("require") and not keys:
        raise _bad(path, "`signing.require = true` needs the fingerprints of the keys that may sign in `signing.keys`")
    from mcplock.interop.canonical import canonical, sri

    return OrgPolicy(
        path=path,
        deny=_strings(path, "tools.deny", tools.get("deny", [])),
        require_approval=_strings(path, "tools.require-approval", tools.get("require-approval", [])),
        max_severity=severity,
        require_pin=packages.get("require-pin", False),
        allow_registries=registries,
        allow_servers=_strings(path, "servers.allow", allow) if allow is not None else None,
        require_signing=signing.get("require", False),
        keys=keys,
        own_digest=sri(canonical(data)),  # tomllib's types: no dates in a valid policy (every value is checked above)
    )


def load(path: str) -> OrgPolicy:
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise _bad(path, f"cannot read it: {e.strerror or e}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _bad(path, "not UTF-8 text") from None
    return loads(text, path)


def resolve(option: str | None, environ: Any = None) -> OrgPolicy | None:
    """The policy of this run: ``$MCPLOCK_POLICY`` and ``--policy FILE`` together, either alone,
    or none. The flag adds rules and never replaces the environment's policy: a repository
    controls the flag (the args in its ``.mcp.json``, its pre-commit hook), the person or the
    organisation the environment."""
    env = os.environ if environ is None else environ
    from_env = env.get(ENV) or None
    paths = [p for p in (from_env, option or None) if p]
    if len(paths) == 2 and _same_file(paths[0], paths[1]):
        paths = paths[:1]
    loaded = [load(p) for p in paths]
    if not loaded:
        return None
    first, *rest = loaded
    return replace(first, also=tuple(rest)) if rest else first


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return a == b


# -- what it forbids ------------------------------------------------------------------------------


class Forbidden(McplockError):
    """A command asked for what the policy forbids (an accept that would enable a denied tool): exit 1."""

    exit_code = 1
    code = "policy"


@dataclass(frozen=True)
class Violation:
    rule: str  # "tools.deny", "tools.require-approval", "review.max-accepted-severity", "packages.…", "servers.allow"
    server: str
    message: str
    hint: str
    kind: str | None = None
    key: str | None = None


def _runs(srv: ServerEntry) -> tuple[Any, Any]:
    """(the launch a stdio server's command runs directly — a Launch, a NoPin, or None for no
    launcher —, the launch behind a wrapper — :class:`mcplock.packages.wrappers.Wrapped` or None)."""
    from mcplock.packages.launchers import LAUNCHERS, launcher_name, parse
    from mcplock.packages.wrappers import unwrap

    if srv.spec.remote or not srv.spec.command:
        return None, None
    wrapped = unwrap(srv.spec.command, srv.spec.args)
    if wrapped is not None:
        return None, wrapped
    direct = parse(srv.spec.command, srv.spec.args) if launcher_name(srv.spec.command) in LAUNCHERS else None
    return direct, None


def identities(srv: ServerEntry) -> list[str]:
    """What `servers.allow` patterns are matched against: the package a server runs
    (``npm:NAME``, ``pypi:NAME``, ``oci:IMAGE``; from its pin, its launcher's command line, or
    what a wrapper such as ``env`` or ``sh -c`` runs), ``local`` for a local command, ``unknown``
    for a wrapper whose command cannot be read, the URL of a remote server, and the MCP Registry
    name it was added by, when the lock records one (not for a command behind a wrapper: the
    registry's entry never runs one)."""
    from mcplock.packages.launchers import Launch

    out: list[str] = []
    direct, wrapped = _runs(srv)
    registry = srv.spec.registry
    if registry is not None and wrapped is None:
        out.append(registry.name)
    if wrapped is not None:
        out.append(wrapped.identity)
    elif srv.spec.package is not None:
        out.append(f"{srv.spec.package.registry}:{srv.spec.package.name}")
    elif srv.spec.stdio:
        out.append(f"{direct.registry}:{direct.name}" if isinstance(direct, Launch) else "local")
    if srv.spec.url:
        out.append(srv.spec.url)
    return out


def item_violations(policy: OrgPolicy, server: str, e: Any, findings: list[Any] | None = None) -> list[Violation]:
    """What the policy forbids in one item as it stands (enabled, approval, its findings)."""
    out: list[Violation] = []
    target = format_target(server, e.kind, e.key)
    if e.kind == "tool":
        pattern = policy.denied(server, e.key)
        if pattern and e.enabled:
            out.append(
                Violation(
                    "tools.deny",
                    server,
                    f"tool `{target}` is enabled, but the policy denies it ({policy.rule('tools.deny', pattern)})",
                    f"disable it: `mcplock disable {shell_word(target)}`",
                    e.kind,
                    e.key,
                )
            )
        pattern = policy.approval_required(server, e.key)
        if pattern and e.approval != "always":
            out.append(
                Violation(
                    "tools.require-approval",
                    server,
                    f'tool `{target}` has approval = "{e.approval}", but the policy requires '
                    f"approval on every call ({policy.rule('tools.require-approval', pattern)})",
                    f"`mcplock approval {shell_word(target)} always`",
                    e.kind,
                    e.key,
                )
            )
    limit = policy.strictest_severity
    if limit is not None and findings and e.definition is not None and e.enabled:
        above = sorted({f.rule for f in findings if rank(f.severity) < rank(limit)})
        if above:
            hint = f"review it with `mcplock show {shell_word(target)}`"
            hint += (
                f"; `mcplock disable {shell_word(target)}` keeps it from hosts"
                if e.kind == "tool"
                else f"; `mcplock remove {shell_word(server)}` drops the server"
            )
            out.append(
                Violation(
                    "review.max-accepted-severity",
                    server,
                    f"{e.kind} `{target}` is accepted with findings above {limit} "
                    f"({', '.join(above)}; {policy.rule('review.max-accepted-severity')})",
                    hint,
                    e.kind,
                    e.key,
                )
            )
    return out


def server_violations(policy: OrgPolicy, srv: ServerEntry) -> list[Violation]:
    """What each part of the policy forbids in how ``srv`` runs (each violation names its file)."""
    return [v for part in policy.parts for v in _server_violations(part, srv)]


def _server_violations(policy: OrgPolicy, srv: ServerEntry) -> list[Violation]:
    from mcplock.packages.launchers import Launch, launcher_name

    out: list[Violation] = []
    name = srv.name
    typed = shell_word(name)
    direct, wrapped = _runs(srv)
    if policy.require_pin and wrapped is not None:  # a wrapper: no pin can be applied, whatever it names
        out.append(
            Violation(
                "packages.require-pin",
                name,
                f"`{name}` runs a package through `{wrapped.via}`, which no pin can reach "
                f"({wrapped.reason}), but the policy requires one ({policy.rule('packages.require-pin')})",
                f"write the launcher's own command line (`npx …`, `uvx …`; variables go in --env), "
                f"then `mcplock update {typed}`; or `mcplock remove {typed}`",
            )
        )
    elif policy.require_pin and direct is not None and srv.spec.package is None:
        why = "" if isinstance(direct, Launch) else f" ({direct.reason})"
        out.append(
            Violation(
                "packages.require-pin",
                name,
                f"`{name}` runs `{launcher_name(srv.spec.command or '')}` without a package pin{why}, but "
                f"the policy requires one ({policy.rule('packages.require-pin')})",
                f"pin it: `mcplock update {typed}` (an exact version on the command line pins too)",
            )
        )
    if policy.allow_registries is not None:
        registry = srv.spec.package.registry if srv.spec.package is not None and wrapped is None else None
        inner = wrapped.launch if wrapped is not None else direct
        if registry is None and isinstance(inner, Launch):
            registry = inner.registry
        if registry is None and wrapped is not None and wrapped.opaque:
            registry = "an unknown registry"  # a shell command mcplock cannot read: no registry is vouched for
        if registry is not None and registry not in policy.allow_registries:
            out.append(
                Violation(
                    "packages.allow-registries",
                    name,
                    f"`{name}` runs a package from {registry}, which the policy does not allow "
                    f"({policy.rule('packages.allow-registries')}: {', '.join(policy.allow_registries)})",
                    f"remove it (`mcplock remove {typed}`), or ask the policy's owners",
                )
            )
    if policy.allow_servers is not None:
        ids = identities(srv)
        if not any(fnmatch.fnmatchcase(_fold(i), _fold(p)) for i in ids for p in policy.allow_servers):
            out.append(
                Violation(
                    "servers.allow",
                    name,
                    f"`{name}` ({', '.join(ids) or 'unknown'}) is not allowed by the policy "
                    f"({policy.rule('servers.allow')}: {', '.join(policy.allow_servers)})",
                    f"remove it (`mcplock remove {typed}`), or ask the policy's owners to allow it",
                )
            )
    return out


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
        out.extend(server_violations(policy, srv))
        for e in srv.entries():
            if e.pending is not None and e.definition is None:
                continue  # never accepted: nothing enabled yet (`accept` asks the policy)
            found = (findings or {}).get((sname, e.kind, e.key)) if e.pending is None else None
            out.extend(item_violations(policy, sname, e, found))
    return out


def forbids_accept(
    policy: OrgPolicy, srv: ServerEntry, e: Any, approval: str | None, findings: list[Any] | None
) -> list[Violation]:
    """What accepting ``e``'s pending proposal would give that the policy forbids (nothing is changed)."""
    import copy

    from mcplock.lock import review

    if e.pending is None or e.pending.change == "removed":
        return []
    after = copy.deepcopy(e)
    review.accept(srv, after, approval=approval if e.kind == "tool" else None)
    return item_violations(policy, srv.name, after, findings)
