"""What the lock allows at run time: one decision per item, pure (no I/O).

The guard (``mcplock run``), ``mcplock call``, the library's guarded client and the host
exports all ask this module, so a tool is listed, refused, asked about or forwarded for the
same reason everywhere::

    d = decide_tool("docs", "search_docs", entry, live_hash, Host(elicitation=True), purpose="call")
    d.verdict   # "list" | "refuse" | "ask" | "forward"
    d.reason    # "`docs/search_docs` changed upstream since it was accepted"
    d.fix       # "review it with `mcplock diff docs`"

``live_hash`` is the hash of the definition the upstream serves now (``None``: the upstream
does not offer it); :data:`UNVERIFIED` when nobody looked (an offline reader such as an
export), in which case only the lock's own state counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal

from mcplock.lock.model import Entry
from mcplock.lock.targets import format_target
from mcplock.text.untrusted import name_text, shell_word

if TYPE_CHECKING:
    from mcplock.trust.org_policy import OrgPolicy

Verdict = Literal["list", "refuse", "ask", "forward"]
Purpose = Literal["list", "call"]


class _Unverified:
    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return "UNVERIFIED"


UNVERIFIED: Final = _Unverified()


@dataclass(frozen=True)
class Host:
    """What the other side can do and what the run allows."""

    elicitation: bool = False  # the host declared the `elicitation` capability
    strict: bool = False  # refuse approval-always calls the host cannot be asked about
    approved: bool = False  # the person already approved this call (`call --approve`, a prompt)
    org: OrgPolicy | None = None  # the organisation's policy (docs/policy.md): it outranks the lock
    # client capabilities the lock's probe declared and this host does not (``sampling`` …): a
    # server may show some items only to clients that declare them, so one it does not list to
    # this host is not one it removed
    lacks: tuple[str, ...] = ()


@dataclass(frozen=True)
class Decision:
    verdict: Verdict
    code: str  # stable: "ok", "unknown", "pending-new", "rejected", "disabled", "quarantined", …
    reason: str = ""
    fix: str | None = None  # the step that changes the decision, with its command in backticks

    @property
    def allowed(self) -> bool:
        return self.verdict != "refuse"

    def message(self) -> str:
        """The reason and the fix in one sentence (what a refused call answers)."""
        return self.reason + (f"; {self.fix}" if self.fix else "")


def _refuse(code: str, reason: str, fix: str | None) -> Decision:
    return Decision("refuse", code, reason, fix)


def _review(server: str, target: str) -> str:
    s, t = shell_word(server), shell_word(target)
    return f"review it with `mcplock diff {s}`, then `mcplock refresh {s}` and `mcplock accept {t}`"


def _state(
    server: str, kind: str, key: str, entry: Entry | None, live_hash: object, lacks: tuple[str, ...] = ()
) -> Decision | None:
    """The refusal the lock's state and the live hash give, or None when the item may be seen."""
    target = format_target(server, kind, key)
    shown = name_text(target)  # a look-alike reads apart from the name it imitates
    s, t = shell_word(server), shell_word(target)  # as typed, each hint reaches this item, not a look-alike
    what = {"tool": "tool", "ui": "App document", "content": "document"}.get(kind, kind.replace("-", " "))
    if entry is None:
        return _refuse(
            "unknown",
            f"the {what} `{shown}` is not in the lock",
            f"stage it with `mcplock refresh {s}`, review it and `mcplock accept {t}`",
        )
    if entry.definition is None or entry.hash is None:
        return _unaccepted(entry, what, shown, s, t)
    refusal = _stored_refusal(kind, entry, shown, s, t)
    if refusal is not None or live_hash is UNVERIFIED:
        return refusal
    return _live_refusal(entry, live_hash, lacks, shown, server, target)


def _unaccepted(entry: Entry, what: str, shown: str, s: str, t: str) -> Decision:
    """An item the lock holds no accepted definition of: new and pending, or rejected."""
    if entry.pending is not None:
        return _refuse(
            "pending-new",
            f"the {what} `{shown}` is new and awaits review",
            f"review it with `mcplock diff {s}` and `mcplock accept {t}`",
        )
    return _refuse(
        "rejected",
        f"the {what} `{shown}` was rejected in review",
        f"it is proposed again when it changes upstream (`mcplock refresh {s}`)",
    )


def _stored_refusal(kind: str, entry: Entry, shown: str, s: str, t: str) -> Decision | None:
    """The refusal an accepted item's state in the lock gives: tampered with, its change
    rejected, disabled, quarantined or awaiting review of a change."""
    changed = entry.pending is not None and entry.pending.change == "changed"
    if entry.tampered():
        return _refuse(
            "tampered",
            f"the stored definition of `{shown}` does not match its hash (edited by hand or tampered with)",
            f"restore mcp.lock from git, or run `mcplock refresh {s}` and `mcplock accept {t}`",
        )
    if entry.rejected_hash is not None and entry.pending is None:
        # its server offered a definition a person refused: the accepted one is not what it serves
        return _refuse(
            "rejected",
            f"`{shown}` was rejected in review",
            f"it is proposed again when its server changes it: `mcplock refresh {s}`, review it "
            f"and `mcplock accept {t}`",
        )
    if kind == "tool" and not entry.enabled:
        if changed:
            return _refuse(
                "quarantined",
                f"`{shown}` changed upstream and is disabled until reviewed",
                f"review it with `mcplock diff {s}` and `mcplock accept {t}`",
            )
        return _refuse("disabled", f"`{shown}` is disabled in the lock", f"enable it with `mcplock enable {t}`")
    if changed:
        return _refuse(
            "quarantined",
            f"`{shown}` changed upstream and awaits review",
            f"review it with `mcplock diff {s}` and `mcplock accept {t}`",
        )
    return None


def _live_refusal(
    entry: Entry, live_hash: object, lacks: tuple[str, ...], shown: str, server: str, target: str
) -> Decision | None:
    """The refusal what the server serves now gives an accepted item: not offered to this host,
    removed, changed (to a definition rejected before, or a new one)."""
    s = shell_word(server)
    if live_hash is None and lacks:
        return _refuse(
            "not-offered",
            f"the server does not offer `{shown}` to this host, which declares no "
            f"{' or '.join(lacks)} (the lock was made as a client that does)",
            "a host that declares them sees it; nothing to review",
        )
    if live_hash is None:
        return _refuse(
            "removed",
            f"the server no longer offers `{shown}`",
            f"see `mcplock diff {s}`; `mcplock refresh {s}` stages the removal",
        )
    if live_hash != entry.hash:
        if live_hash == entry.rejected_hash:
            return _refuse(
                "rejected", f"`{shown}` now serves a definition that was rejected in review", _review(server, target)
            )
        return _refuse("changed", f"`{shown}` changed upstream since it was accepted", _review(server, target))
    return None


def decide_tool(
    server: str,
    name: str,
    entry: Entry | None,
    live_hash: object = UNVERIFIED,
    host: Host = Host(),
    *,
    purpose: Purpose = "call",
) -> Decision:
    """List (``purpose="list"``) or call (``"call"``) the tool ``server/name``?

    Listing gives ``list`` or ``refuse``; a call gives ``forward``, ``ask`` (approval
    ``always`` and the host can ask the person through elicitation) or ``refuse``. An empty
    or unknown approval means ask. Without elicitation a call is forwarded, relying on the
    host's own prompt (``reason`` says so), unless ``host.strict`` or the organisation's
    ``tools.require-approval`` covers the tool: then it is refused, since no prompt of ours
    holds the rule.
    """
    target = format_target(server, "tool", name)
    shown = name_text(target)
    if host.org is not None and (pattern := host.org.denied(server, name)):
        return _refuse(
            "policy-denied",
            f"`{shown}` is denied by the organisation's policy ({host.org.rule('tools.deny', pattern)})",
            "the policy outranks the lock: only its owners can allow it",
        )
    refused = _state(server, "tool", name, entry, live_hash, host.lacks)
    if refused is not None:
        return refused
    assert entry is not None
    if purpose == "list":
        return Decision("list", "ok")
    return _call(server, name, entry, host, target, shown)


def _call(server: str, name: str, entry: Entry, host: Host, target: str, shown: str) -> Decision:
    """A call of an accepted, enabled tool (``target`` as formatted, ``shown`` as displayed):
    forwarded, asked, or refused where the approval it needs cannot be asked for
    (:func:`decide_tool`)."""
    t = shell_word(target)
    required = host.org.approval_required(server, name) if host.org is not None else None
    never = entry.approval == "never" and not required
    if never or host.approved:
        return Decision("forward", "ok")
    if host.elicitation:
        return Decision("ask", "approval", f"`{shown}` asks for approval on every call")
    if required and host.org is not None:  # the organisation's rule is held: no host prompt is relied on
        return _refuse(
            "policy-approval",
            f"the organisation's policy requires approval on every call of "
            f"`{shown}` ({host.org.rule('tools.require-approval', required)}), and the host cannot be "
            "asked (it declared no elicitation)",
            f"use a host that supports elicitation, or approve the call yourself: `mcplock call {t} --approve`",
        )
    if host.strict:
        return _refuse(
            "approval",
            f"`{shown}` asks for approval on every call and the host cannot be asked "
            "(it declared no elicitation); refused under --strict",
            f"approve it where you run it, or lower it with `mcplock approval {t} never`",
        )
    return Decision(
        "forward",
        "host-prompt",
        f"`{shown}` asks for approval on every call; the host declared no elicitation, "
        "so its own confirmation prompt is relied on",
    )


def decide_item(
    server: str, kind: str, key: str, entry: Entry | None, live_hash: object = UNVERIFIED, host: Host = Host()
) -> Decision:
    """May a prompt, a resource template or the instructions be shown (``list``) or not (``refuse``)?"""
    refused = _state(server, kind, key, entry, live_hash, host.lacks)
    return refused if refused is not None else Decision("list", "ok")
