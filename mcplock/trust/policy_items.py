"""What an organisation's policy forbids in one reviewed item (docs/policy.md): a denied tool
that is enabled, a tool under `require-approval` that runs unasked, an accepted item with
findings above `review.max-accepted-severity`; and what an accept would give that it forbids."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcplock.lock.targets import format_target
from mcplock.model.severity import rank
from mcplock.text.untrusted import shell_word
from mcplock.trust.policy_model import OrgPolicy, Violation

if TYPE_CHECKING:  # pragma: no cover
    from mcplock.lock.model import ServerEntry


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
