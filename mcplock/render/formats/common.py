"""What the machine and CI reports share: rule ids, the lock's line numbers, the messages
that sarif and github both print, and the one-line form of untrusted text.

Untrusted text (anything a server sent: names, field keys, messages that quote a
definition, excerpts) never reaches a report raw: control and invisible characters are
made visible with :func:`mcplock.text.untrusted.visible` (:func:`plain`), then escaped for the
format (Markdown punctuation, workflow-command ``%``/``:``/``,``; JSON and SARIF are JSON).

Lint findings on a :class:`~mcplock.lint.compare.Change` are handled generically: any object
(or dict) with ``rule``, ``severity``, ``message`` and ``where`` (``excerpt`` optional).
"""

from __future__ import annotations

import hashlib
import os
from typing import TYPE_CHECKING, Any

from mcplock.lock.targets import format_target
from mcplock.model.files import work_tree
from mcplock.model.severity import INFO
from mcplock.text.untrusted import shell_word, visible

if TYPE_CHECKING:  # pragma: no cover
    from mcplock.lint.compare import Change, ServerDiff

KIND_TITLE = {
    "tool": "tool",
    "prompt": "prompt",
    "resource-template": "resource template",
    "resource": "resource",
    "instructions": "instructions",
    "ui": "App document",
    "content": "document",
    "skill": "skill",
}
# SARIF level of each `check` problem
CHECK_LEVEL = {
    "hash-mismatch": "error",
    "config-error": "error",
    "config-changed": "warning",
    "config-missing": "warning",
    "not-locked": "warning",
    "pending": "warning",
    "source-missing": "error",
    "unknown-value": "warning",
    "pin-no-integrity": "error",
    "pin-not-exact": "error",
    # check's warnings: said in every format, never a failure of the gate
    "critical-accepted": "warning",
    "env-loads-code": "error",
    # the organisation's policy (docs/policy.md): each rule an error
    **{
        f"policy/{rule}": "error"
        for rule in (
            "tools.deny",
            "tools.require-approval",
            "review.max-accepted-severity",
            "packages.require-pin",
            "packages.allow-registries",
            "servers.allow",
        )
    },
}
PENDING_RULE = "pending/review"


def attr(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def finding_severity(f: Any) -> str:
    return str(attr(f, "severity") or INFO)


def plain(s: object) -> str:
    """Untrusted text on one line, hidden characters made visible."""
    return visible(s if isinstance(s, str) else str(s), keep_newlines=False)


def target(server: str, kind: str, name: str) -> str:
    """The review target of an item, as `mcplock accept` takes it."""
    return format_target(server, kind, name)


def kind_title(kind: str) -> str:
    return KIND_TITLE.get(kind) or plain(kind)


def drift_rule(kind: str, change: str) -> str:
    return f"drift/{kind}-{change}"


def lint_rule(finding: Any) -> str:
    rule = str(attr(finding, "rule") or "finding")
    return rule if rule.startswith("lint/") else f"lint/{rule}"


def check_rule(code: str) -> str:
    return PENDING_RULE if code == "pending" else f"check/{code}"


def fingerprint(*parts: object) -> str:
    h = hashlib.sha256("\x00".join("" if p is None else str(p) for p in parts).encode("utf-8", "surrogatepass"))
    return h.hexdigest()[:32]


def ident(i: dict[str, Any]) -> str:
    """A server's identity (serverInfo and protocol) on one line; untrusted, escape it for the output."""
    info = i.get("server_info") or {}
    return f"{info.get('name', '?')} {info.get('version', '?')} (protocol {i.get('protocol_version') or '?'})"


def shown_status(d: ServerDiff) -> str:
    """A server's status as reports show it: ``pending review`` for one in sync with items staged."""
    return "pending review" if d.status == "ok" and d.pending else d.status


def changes_count(d: ServerDiff) -> str:
    """``1 change``, ``3 changes``."""
    return f"{len(d.changes)} change{'s' if len(d.changes) != 1 else ''}"


def summary_counts(diffs: list[ServerDiff]) -> dict[str, int]:
    """The counts every format's summary gives; ``cloaked`` (the critical cloaking findings) only
    when the cloaking probe ran (``diff --cloak``)."""
    out = {
        "servers": len(diffs),
        "drift": sum(d.status == "drift" for d in diffs),
        "unreachable": sum(d.status == "unreachable" for d in diffs),
        "changes": sum(len(d.changes) for d in diffs),
        "pending": sum(len(d.pending) for d in diffs),
    }
    if any(d.cloaked is not None for d in diffs):
        out["cloaked"] = sum(d.critical_cloaks for d in diffs)
    return out


def artifact_path(lockfile: str, cwd: str | None = None) -> str:
    """The lock's path as CI systems want it: relative to the git work tree that holds it
    (GitHub resolves annotations and SARIF locations against the repository root), else to
    ``cwd``; absolute when it lies outside both. Forward slashes."""
    ap = os.path.abspath(lockfile)
    outside = os.path.abspath(cwd or os.getcwd())
    base = work_tree(os.path.dirname(ap)) or outside
    rel = os.path.relpath(ap, base)
    if rel.startswith(".."):
        rel = ap
    return rel.replace(os.sep, "/")


class Lines:
    """1-based lines of the lock's tables (``header_lines``), with fallbacks to the server's
    table (an added item has no table yet) and then to line 1."""

    def __init__(self, lock_text: str | None) -> None:
        from mcplock.lock.headers import header_lines

        self._lines = header_lines(lock_text) if lock_text else {}

    def of(self, table: tuple[str, ...]) -> int:
        while table:
            if table in self._lines:
                return self._lines[table]
            table = table[:-1]
        return 1

    def item(self, server: str, kind: str, name: str) -> int:
        if kind == "instructions":
            return self.of(("server", server))
        return self.of(("server", server, kind, name))


# --- messages of sarif results and github annotations --------------------------------------


def unreachable_message(d: ServerDiff) -> str:
    assert d.error is not None
    msg = f"server `{plain(d.name)}` could not be probed ({plain(d.error.kind)}): {plain(d.error.message)}"
    if d.error.hint:
        msg += f". Hint: {plain(d.error.hint)}"
    return msg


def _change_head(server: str, c: Change) -> str:
    """What happened to the item: changed upstream (its fields), offered but not locked, or gone."""
    t = plain(target(server, c.kind, c.name))
    what = kind_title(c.kind)
    if c.change == "changed":
        fields = ", ".join(plain(f) for f in c.fields) or "definition"
        return f"{what} `{t}` changed upstream since it was locked ({fields})"
    if c.change == "added":
        return f"{what} `{t}` is offered by the server but not in the lock"
    return f"{what} `{t}` is in the lock but the server no longer offers it"


def change_message(server: str, c: Change) -> str:
    head = _change_head(server, c)
    why = getattr(c, "reason", "")
    sev = f"severity {c.severity}: {plain(why)}" if why else f"severity {c.severity}"
    s, typed = shell_word(server), shell_word(target(server, c.kind, c.name))
    return (
        f"{head}; {sev}. Review with `mcplock diff {s}`; "
        f"`mcplock refresh {s}` stages it, then `mcplock accept {typed}` or `mcplock reject {typed}`."
    )


def finding_message(server: str, c: Change, f: Any) -> str:
    msg = f"{plain(attr(f, 'message', str(f)))} ({kind_title(c.kind)} `{plain(target(server, c.kind, c.name))}`"
    where = attr(f, "where")
    if where:
        msg += f", {plain(where)}"
    msg += ")"
    excerpt = attr(f, "excerpt")
    if excerpt:
        msg += f": {plain(excerpt)}"
    return msg


def pending_message(server: str, kind: str, name: str, change: str) -> str:
    t = plain(target(server, kind, name))
    typed = shell_word(target(server, kind, name))
    return (
        f"{kind_title(kind)} `{t}`: pending {plain(change)} awaits review; "
        f"see `mcplock show {typed}`, then `mcplock accept {typed}` or `mcplock reject {typed}`."
    )


def check_message(f: Any) -> str:
    return f"{plain(f.message)}. Fix: {plain(f.hint)}"
