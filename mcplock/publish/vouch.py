"""``add`` and ``refresh`` against a publisher's statement (docs/publishers.md): when the pinned
package ships ``mcp-surface.json``, the live probe is compared with it item by item.

- an item the server answers otherwise than the statement says (changed, added, or missing) is
  ``critical``, named: someone between the author and you — or a cloaking server — shows what the
  author did not state. ``add`` never accepts such an item wholesale (it stays pending);
- a statement whose signature does not verify over it is ``critical`` too (a release edited
  without the author's key);
- a valid signature by a key the policy's ``[publishers]`` lists for the package, over a
  statement the server matches, vouches for the server: the lock records the key
  (``publisher`` in ``[server.NAME]``); a key the policy does not list is reported, never trusted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcplock.lint.finding import LintFinding
from mcplock.lock.model import Publisher
from mcplock.model.severity import CRITICAL
from mcplock.model.snapshot import Snapshot

RULE = "publisher-statement"


@dataclass
class Verdict:
    server: str
    package: str  # the pin's label (npm kitchen-sink@1.0.0)
    statement_digest: str | None = None
    key: str | None = None  # the fingerprint of a signature that verified
    signed_at: str | None = None
    listed: bool = False  # the policy lists ``key`` for this package
    differences: list[tuple[str, str, str]] = field(default_factory=list)  # (kind, key, how)
    problem: str | None = None  # an unreadable statement, a signature that does not verify
    signed: bool = False  # the package ships a signature
    live: list[tuple[str, str]] = field(default_factory=list)  # (kind, key) of every item the server offers

    @property
    def critical(self) -> bool:
        """Items answered otherwise than stated, or a shipped signature that does not vouch for it."""
        return bool(self.differences) or (self.problem is not None and self.signed)

    @property
    def record(self) -> Publisher | None:
        """What the lock records: only a listed key over a statement the server matched."""
        if self.key is None or not self.listed or self.differences or self.problem or self.statement_digest is None:
            return None
        return Publisher(self.key, self.statement_digest, self.signed_at or "")

    def messages(self) -> list[str]:
        out = [f"`{self.server}`: {self.package} ships mcp-surface.json"]
        if self.problem:
            out.append(f"  {'critical: ' if self.critical else ''}{self.problem}")
        for kind, key, how in self.differences:
            out.append(f"  critical: {kind} `{key}` {how}")
        if self.key is not None:
            trust = (
                "listed in the policy's [publishers]: recorded in the lock"
                if self.record
                else (
                    "listed in the policy's [publishers]"
                    if self.listed
                    else "NOT listed in the policy's [publishers]: reported, not trusted"
                )
            )
            out.append(f"  signed by the key {self.key} ({trust})")
        elif not self.signed:
            out.append("  not signed: nobody vouches for it")
        if not self.differences and not self.problem:
            out.append("  the live server matches it")
        return out


def _hashes(snap: Snapshot, name: str) -> dict[str, dict[str, str]]:
    from mcplock.publish.statement import _item_hashes

    return _item_hashes(snap, name)


def differences(
    stated: dict[str, dict[str, str]], live: dict[str, dict[str, str]], *, resources: bool
) -> list[tuple[str, str, str]]:
    """Each item the live answer has otherwise than the statement. Resources and their documents
    only when the live probe listed resources (``resources``)."""
    out: list[tuple[str, str, str]] = []
    for kind in sorted(set(stated) | set(live)):
        if kind in ("resource", "content") and not resources:
            continue
        a, b = stated.get(kind, {}), live.get(kind, {})
        for key in sorted(set(a) | set(b)):
            if a.get(key) == b.get(key):
                continue
            how = (
                "is offered, and the statement does not list it"
                if key not in a
                else "is in the statement, and the server does not offer it"
                if key not in b
                else "is answered otherwise than the statement says"
            )
            out.append((kind, key, how))
    return out


def check(server: str, snap: Snapshot, pin: Any, environ: Any, org: Any) -> Verdict | None:
    """The verdict on one probed server whose pinned package ships a statement (None: it ships none)."""
    from mcplock.errors import McplockError
    from mcplock.publish import publishers, shipped
    from mcplock.publish.signature import verify
    from mcplock.publish.statement import read

    found = shipped.find(pin, environ)
    if found is None:
        return None
    v = Verdict(server, pin.label, signed=found.signature is not None)
    try:
        st = read(str(found.path))
    except McplockError as e:
        v.problem = f"the statement cannot be read: {e.message}"
        return v
    v.statement_digest = st.digest()
    live = _hashes(snap, server)
    v.live = [(kind, key) for kind, keys in sorted(live.items()) for key in sorted(keys)]
    v.differences = differences(st.hashes(), live, resources=snap.resources is not None)
    if found.signature is not None:
        from mcplock.model.files import SMALL_MAX, read_bounded

        try:
            vouched = verify(st, read_bounded(found.signature, SMALL_MAX), f"{pin.label}: mcp-surface.json.sig")
        except OSError as e:
            v.problem = f"its signature cannot be read: {e.strerror or e}"
            return v
        except McplockError as e:
            v.problem = f"its signature does not vouch for it: {e.message}"
            return v
        v.key, v.signed_at = vouched.fingerprint, vouched.signed_at
        v.listed = vouched.fingerprint in publishers.keys_for(publishers.listed(org), pin.registry, pin.name)
    return v


def findings(v: Verdict) -> dict[tuple[str, str, str], list[LintFinding]]:
    """Each differing item as a critical lint finding on it (``add`` holds it back); a statement
    with a signature that does not verify puts one on every item of the server."""
    out: dict[tuple[str, str, str], list[LintFinding]] = {}
    for kind, key, how in v.differences:
        msg = (
            f"{v.package}'s signed mcp-surface.json: this {kind} {how}"
            if v.key
            else (f"{v.package}'s mcp-surface.json: this {kind} {how}")
        )
        out.setdefault((v.server, kind, key), []).append(LintFinding(RULE, CRITICAL, msg, ""))
    if v.critical and not v.differences:
        msg = f"{v.package} ships a signature that does not vouch for its mcp-surface.json: {v.problem}"
        for kind, key in v.live:
            out.setdefault((v.server, kind, key), []).append(LintFinding(RULE, CRITICAL, msg, ""))
    return out


def check_servers(
    probed: list[tuple[Any, Any]], environ: Any, say: Any
) -> dict[tuple[str, str, str], list[LintFinding]]:
    """``add``/``refresh``: each (lock entry, its probe's Snapshot) whose pinned package ships a
    statement, checked; its lines told through ``say``; ``entry.publisher`` set to the key that
    vouched (None when none does); the critical findings returned. The policy is the one in
    effect (``$MCPLOCK_POLICY``)."""
    from mcplock.trust import org_policy

    org: Any = None
    out: dict[tuple[str, str, str], list[LintFinding]] = {}
    for entry, snap in probed:
        pin = getattr(snap, "package", None) or entry.spec.package
        if not isinstance(snap, Snapshot) or pin is None:
            continue
        if org is None:
            org = org_policy.resolve(None, environ) or False
        v = check(entry.name, snap, pin, environ, org or None)
        entry.publisher = v.record if v is not None else None
        if v is None:
            continue
        for line in v.messages():
            say(line)
        out.update(findings(v))
    return out
