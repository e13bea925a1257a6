"""An organisation's policy: rules kept once, read by every repository's mcplock (docs/policy.md).

Not :mod:`mcplock.trust.decide`, which is the guard's per-call decision (list / refuse / ask /
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
over ``TOOL`` otherwise; deny and require-approval compare skeletons (:mod:`mcplock.text.skeleton`:
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
from typing import TYPE_CHECKING, Any, TypeAlias

from mcplock.errors import ConfigError, McplockError
from mcplock.lock.model import Lock, ServerEntry
from mcplock.lock.targets import format_target
from mcplock.model.severity import SEVERITIES, rank
from mcplock.text.untrusted import shell_word

if TYPE_CHECKING:  # the launchers are read only where a server's command is judged
    from mcplock.packages.launchers import Launch, NoPin
    from mcplock.packages.wrappers import Wrapped

    Direct: TypeAlias = Launch | NoPin | None  # what a stdio command runs directly (None: no launcher)

ENV = "MCPLOCK_POLICY"
VERSION = 1
_SCHEMA: dict[str, dict[str, type]] = {
    "tools": {"deny": list, "require-approval": list},
    "review": {"max-accepted-severity": str},
    "packages": {"require-pin": bool, "allow-registries": list},
    "servers": {"allow": list},
    "signing": {"require": bool, "keys": list},
    "publishers": {"keys": list},  # read by mcplock.publish.publishers (docs/publishers.md)
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
            return _listed_by_all(requiring)
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
        shown = f" `{pattern}`" if pattern else ""
        return f"{name}{shown} in {self._rule_owner(name, pattern).path}"

    def _rule_owner(self, name: str, pattern: str | None) -> OrgPolicy:
        """The part that holds ``pattern`` for rule ``name`` (or sets the strictest severity limit);
        the policy itself when none does."""
        if pattern is not None:
            field = _PATTERN_FIELDS.get(name)
            return next((p for p in self.parts if field and pattern in getattr(p, field)), self)
        if name == "review.max-accepted-severity":
            return next((p for p in self.parts if p.max_severity == self.strictest_severity), self)
        return self


# a rule of patterns -> the OrgPolicy field that holds them
_PATTERN_FIELDS = {"tools.deny": "deny", "tools.require-approval": "require_approval"}


def _listed_by_all(parts: list[OrgPolicy]) -> tuple[str, ...]:
    """The keys the first part lists that every other part lists too, in the first part's order."""
    first, *rest = parts
    return tuple(k for k in first.keys if all(k in p.keys for p in rest))


def _fold(s: str) -> str:
    """How `servers.allow` compares identities: case folded, nothing else. An allow list must
    not widen to look-alikes (``npm:@modeIcontextprotocol/x`` is another package)."""
    return s.casefold()


def matches(pattern: str, server: str, tool: str) -> bool:
    """``tools.deny``/``require-approval``: the pattern over ``SERVER/TOOL`` (with a ``/``) or
    ``TOOL``, both read as their skeletons (:func:`mcplock.text.skeleton.skeleton`): no look-alike,
    combining mark or invisible character gets a denied name past its pattern."""
    from mcplock.text import skeleton

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
    _check_version(path, data.get("version"))
    _check_shape(path, data)
    tools, review = data.get("tools", {}), data.get("review", {})
    packages, servers = data.get("packages", {}), data.get("servers", {})
    severity = review.get("max-accepted-severity")
    if severity is not None and severity not in SEVERITIES:
        raise _bad(path, f"`review.max-accepted-severity` must be one of {', '.join(SEVERITIES)}, not {severity!r}")
    registries = _registries(path, packages.get("allow-registries"))
    allow = servers.get("allow")
    signing = data.get("signing", {})
    keys = _signing_keys(path, signing)
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


def _check_version(path: str, version: object) -> None:
    if version is None:
        raise _bad(path, "missing `version = 1`")
    if type(version) is not int or version != VERSION:  # `1.0`, `true` and `"1"` are not version 1
        raise _bad(path, f"unsupported `version = {version!r}` (this mcplock reads version {VERSION})")


def _check_shape(path: str, data: dict[str, Any]) -> None:
    """Every table and key known (:data:`_SCHEMA`), each value of its type."""
    for key, value in data.items():
        if key == "version":
            continue
        if key not in _SCHEMA:
            raise _bad(path, f"unknown key `{key}` (known: version, {', '.join(_SCHEMA)})")
        if not isinstance(value, dict):
            raise _bad(path, f"`{key}` must be a table (`[{key}]`)")
        _check_table(path, key, value)


def _check_table(path: str, key: str, value: dict[str, Any]) -> None:
    """One table's keys known (:data:`_SCHEMA`), each value of its type."""
    for sub, v in value.items():
        want = _SCHEMA[key].get(sub)
        if want is None:
            raise _bad(path, f"unknown key `{key}.{sub}` (known: {', '.join(_SCHEMA[key])})")
        if not isinstance(v, want):
            raise _bad(path, f"`{key}.{sub}` must be a {'list' if want is list else want.__name__}")


def _registries(path: str, value: list[Any] | None) -> tuple[str, ...] | None:
    """``packages.allow-registries``: known registries only (None: the key is absent)."""
    if value is None:
        return None
    registries = _strings(path, "packages.allow-registries", value)
    unknown = [r for r in registries if r not in REGISTRIES]
    if unknown:
        raise _bad(path, f"`packages.allow-registries` names {', '.join(unknown)} (known: {', '.join(REGISTRIES)})")
    return registries


def _signing_keys(path: str, signing: dict[str, Any]) -> tuple[str, ...]:
    """``signing.keys``: key fingerprints, at least one when ``signing.require`` is true."""
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
    return keys


def load(path: str) -> OrgPolicy:
    from mcplock.model.files import SMALL_MAX, read_bounded

    try:
        raw = read_bounded(path, SMALL_MAX)
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
    loaded = [load(p) for p in _policy_files(env.get(ENV), option)]
    if not loaded:
        return None
    first, *rest = loaded
    return replace(first, also=tuple(rest)) if rest else first


def _policy_files(from_env: str | None, option: str | None) -> list[str]:
    """The files in effect: the environment's, then the flag's (once when both name the same file;
    an empty value names none)."""
    paths = [p for p in (from_env, option) if p]
    if len(paths) == 2 and _same_file(paths[0], paths[1]):
        return paths[:1]
    return paths


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


def _runs(srv: ServerEntry) -> tuple[Direct, Wrapped | None]:
    """(the launch a stdio server's command runs directly — a Launch, a NoPin, or None for no
    launcher —, the launch behind a wrapper — :class:`mcplock.packages.wrappers.Wrapped` or None)."""
    from mcplock.packages.command_line import parse
    from mcplock.packages.launchers import LAUNCHERS, launcher_name
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
    out: list[str] = []
    direct, wrapped = _runs(srv)
    registry = srv.spec.registry
    if registry is not None and wrapped is None:
        out.append(registry.name)
    runs = _runs_identity(srv, direct, wrapped)
    if runs is not None:
        out.append(runs)
    if srv.spec.url:
        out.append(srv.spec.url)
    return out


def _runs_identity(srv: ServerEntry, direct: Direct, wrapped: Wrapped | None) -> str | None:
    """What a server runs, as `servers.allow` names it: the wrapper's reading, the pinned package,
    the launcher's package or ``local``; None for a remote server."""
    from mcplock.packages.launchers import Launch

    if wrapped is not None:
        return wrapped.identity
    if srv.spec.package is not None:
        return f"{srv.spec.package.registry}:{srv.spec.package.name}"
    if srv.spec.stdio:
        return f"{direct.registry}:{direct.name}" if isinstance(direct, Launch) else "local"
    return None


def item_violations(policy: OrgPolicy, server: str, e: Any, findings: list[Any] | None = None) -> list[Violation]:
    """What the policy forbids in one item as it stands (enabled, approval, its findings)."""
    target = format_target(server, e.kind, e.key)
    out = _tool_violations(policy, server, e, target) if e.kind == "tool" else []
    above = _severity_violation(policy, server, e, target, findings)
    return out + ([above] if above is not None else [])


def _tool_violations(policy: OrgPolicy, server: str, e: Any, target: str) -> list[Violation]:
    """``tools.deny`` of an enabled tool, ``tools.require-approval`` of one that runs unasked."""
    out: list[Violation] = []
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
    return out


def _severity_violation(
    policy: OrgPolicy, server: str, e: Any, target: str, findings: list[Any] | None
) -> Violation | None:
    """``review.max-accepted-severity``: an accepted, enabled item with findings above the limit."""
    limit = policy.strictest_severity
    if limit is None or not findings or not _in_use(e):
        return None
    above = sorted({f.rule for f in findings if rank(f.severity) < rank(limit)})
    if not above:
        return None
    return Violation(
        "review.max-accepted-severity",
        server,
        f"{e.kind} `{target}` is accepted with findings above {limit} "
        f"({', '.join(above)}; {policy.rule('review.max-accepted-severity')})",
        _severity_hint(e, server, target),
        e.kind,
        e.key,
    )


def _in_use(e: Any) -> bool:
    """An accepted item that is enabled."""
    return e.definition is not None and bool(e.enabled)


def _severity_hint(e: Any, server: str, target: str) -> str:
    """Review the item; then keep a tool from hosts, or drop the server of another kind of item."""
    keep_out = (
        f"`mcplock disable {shell_word(target)}` keeps it from hosts"
        if e.kind == "tool"
        else f"`mcplock remove {shell_word(server)}` drops the server"
    )
    return f"review it with `mcplock show {shell_word(target)}`; {keep_out}"


def server_violations(policy: OrgPolicy, srv: ServerEntry) -> list[Violation]:
    """What each part of the policy forbids in how ``srv`` runs (each violation names its file)."""
    return [v for part in policy.parts for v in _server_violations(part, srv)]


def _server_violations(policy: OrgPolicy, srv: ServerEntry) -> list[Violation]:
    direct, wrapped = _runs(srv)
    found = (
        _pin_violation(policy, srv, direct, wrapped),
        _registry_violation(policy, srv, direct, wrapped),
        _allow_violation(policy, srv),
    )
    return [v for v in found if v is not None]


def _pin_violation(policy: OrgPolicy, srv: ServerEntry, direct: Direct, wrapped: Wrapped | None) -> Violation | None:
    """``packages.require-pin``: a package behind a wrapper (no pin can reach it), or a launcher
    run without a pin."""
    if not policy.require_pin:
        return None
    from mcplock.packages.launchers import Launch, launcher_name

    name, typed = srv.name, shell_word(srv.name)
    if wrapped is not None:  # a wrapper: no pin can be applied, whatever it names
        return Violation(
            "packages.require-pin",
            name,
            f"`{name}` runs a package through `{wrapped.via}`, which no pin can reach "
            f"({wrapped.reason}), but the policy requires one ({policy.rule('packages.require-pin')})",
            f"write the launcher's own command line (`npx …`, `uvx …`; variables go in --env), "
            f"then `mcplock update {typed}`; or `mcplock remove {typed}`",
        )
    if direct is not None and srv.spec.package is None:
        why = "" if isinstance(direct, Launch) else f" ({direct.reason})"
        return Violation(
            "packages.require-pin",
            name,
            f"`{name}` runs `{launcher_name(srv.spec.command or '')}` without a package pin{why}, but "
            f"the policy requires one ({policy.rule('packages.require-pin')})",
            f"pin it: `mcplock update {typed}` (an exact version on the command line pins too)",
        )
    return None


def _registry_violation(
    policy: OrgPolicy, srv: ServerEntry, direct: Direct, wrapped: Wrapped | None
) -> Violation | None:
    """``packages.allow-registries``: a package from a registry the policy does not list."""
    if policy.allow_registries is None:
        return None
    registry = _registry_of(srv, direct, wrapped)
    if registry is None or registry in policy.allow_registries:
        return None
    return Violation(
        "packages.allow-registries",
        srv.name,
        f"`{srv.name}` runs a package from {registry}, which the policy does not allow "
        f"({policy.rule('packages.allow-registries')}: {', '.join(policy.allow_registries)})",
        f"remove it (`mcplock remove {shell_word(srv.name)}`), or ask the policy's owners",
    )


def _registry_of(srv: ServerEntry, direct: Direct, wrapped: Wrapped | None) -> str | None:
    """The registry the server's package comes from: its pin's, its launcher's (inside a wrapper
    too); ``an unknown registry`` for a shell command mcplock cannot read (no registry is vouched
    for); None for a local command."""
    from mcplock.packages.launchers import Launch

    pin = srv.spec.package
    if pin is not None and wrapped is None:
        return pin.registry
    inner = wrapped.launch if wrapped is not None else direct
    if isinstance(inner, Launch):
        return inner.registry
    if wrapped is not None and wrapped.opaque:
        return "an unknown registry"
    return None


def _allow_violation(policy: OrgPolicy, srv: ServerEntry) -> Violation | None:
    """``servers.allow``: a server none of whose identities the policy's patterns match."""
    if policy.allow_servers is None:
        return None
    ids = identities(srv)
    if any(fnmatch.fnmatchcase(_fold(i), _fold(p)) for i in ids for p in policy.allow_servers):
        return None
    return Violation(
        "servers.allow",
        srv.name,
        f"`{srv.name}` ({', '.join(ids) or 'unknown'}) is not allowed by the policy "
        f"({policy.rule('servers.allow')}: {', '.join(policy.allow_servers)})",
        f"remove it (`mcplock remove {shell_word(srv.name)}`), or ask the policy's owners to allow it",
    )


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
