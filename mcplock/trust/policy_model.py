"""What an organisation's policy says (docs/policy.md): the rules of one file, or of several in
force together (the machine's managed file, ``$MCPLOCK_POLICY``, ``--policy``), and how a tool's
name is matched against them. Pure; reading a file is :mod:`mcplock.trust.policy_file`, where the
files come from :mod:`mcplock.trust.org_policy`.

Several files combine by **every rule of each holding** (nothing a later file says loosens an
earlier one): deny lists and require-approval lists unite; every allow list must allow (they
intersect); the strictest `max-accepted-severity` wins; a boolean that requires (`require-pin`,
`signing.require`) holds when any file sets it; the keys that may sign are those every file that
requires signing lists.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcplock.errors import McplockError
from mcplock.model.severity import rank


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
