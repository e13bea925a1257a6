"""Human renderings (rich). Every server-sent string goes through ``safe_text``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Group
from rich.text import Text

from mcplock.lock.model import Entry, Lock, ServerEntry
from mcplock.lock.targets import item_target
from mcplock.model.documents import is_dynamic
from mcplock.model.severity import CRITICAL, style, worst_of
from mcplock.text.untrusted import safe_name, safe_text, shell_word

STATE_STYLE = {"accepted": "green", "rejected": "red"}


def state_text(e: Entry) -> Text:
    return Text(e.state, style=STATE_STYLE.get(e.state, "yellow"))


def where_text(s: ServerEntry) -> Text:
    """How a server is reached: its command line, or its URL."""
    if s.spec.stdio:
        return safe_text(" ".join([s.spec.command or "", *s.spec.args]).strip(), keep_newlines=False)
    return safe_text(s.spec.url or "", keep_newlines=False)


def _pins(lock: Lock) -> Text:
    """Each server's package pin (what its command runs, exactly), or why it has none."""
    from mcplock.packages.runs import describe

    width = max(len(n) for n in lock.servers) + 2
    out = Text("\npackage pins\n", style="bold")
    for name, s in sorted(lock.servers.items()):
        label = safe_name(name)
        out.append_text(label).append(" " * max(1, width - label.cell_len))
        pinned = describe(s.spec.package, s.spec.command, s.spec.args)
        out.append_text(safe_text(pinned, keep_newlines=False)).append("\n")
    out.rstrip()
    return out


def _width(cell: object) -> int:
    return cell.cell_len if isinstance(cell, Text) else len(str(cell))


def render_list(
    lock: Lock, findings: dict[Any, Any] | None = None, tampered: set[tuple[str, str, str]] | None = None
) -> Group:
    """``tampered``: the (server, kind, key) whose stored definition does not match its hash, when
    the caller has checked them already (else each item is checked here)."""
    findings = findings or {}
    if not lock.servers:
        return Group(Text("no servers locked yet: `mcplock add NAME -- CMD…` or `mcplock init`"))
    parts: list[Any] = [_servers_table(lock), _pins(lock), *_env_code(lock)]
    if findings:
        parts.append(_lint_note(findings))
    for name, s in sorted(lock.servers.items()):
        parts.append(Text(""))
        parts.append(_items_block(name, s, findings, tampered))
    return Group(*parts)


_HEADS = ("server", "transport", "tools", "enabled", "pending", "policy")


def _server_row(name: str, s: ServerEntry) -> tuple[Any, ...]:
    """A server's cells: its name, transport, tools, enabled tools, pending items, policy, where."""
    tools = s.tools
    return (
        safe_name(name),
        s.spec.transport,
        str(len(tools)),
        str(sum(1 for t in tools.values() if t.enabled)),
        s.pending_count(),
        s.policy,
        where_text(s),
    )


def _append_row(table: Text, r: tuple[Any, ...], widths: list[int]) -> None:
    """A server's row, each cell padded to its column (pending items in yellow)."""
    table.append_text(r[0]).append(" " * (widths[0] - r[0].cell_len))
    for k in (1, 2, 3):
        table.append(str(r[k]).ljust(widths[k]))
    table.append(str(r[4]).ljust(widths[4]), style="yellow" if r[4] else "")
    table.append(str(r[5]).ljust(widths[5]))
    table.append_text(r[6]).append("\n")


def _servers_table(lock: Lock) -> Text:
    """One row per server: transport, tools, enabled, pending, policy, where it came from."""
    rows = [_server_row(name, s) for name, s in sorted(lock.servers.items())]
    widths = [max([len(h), *(_width(r[k]) for r in rows)]) + 2 for k, h in enumerate(_HEADS)]
    summary = Text("".join(h.ljust(w) for h, w in zip(_HEADS, widths, strict=True)) + "where\n", style="bold")
    for r in rows:
        _append_row(summary, r, widths)
    summary.rstrip()
    return summary


def _env_code(lock: Lock) -> list[Text]:
    """A line per server whose environment loads code outside its pin (docs/pins.md, "Variables that load code")."""
    from mcplock.packages.envcode import of_spec

    lines = []
    for name, s in sorted(lock.servers.items()):
        code = of_spec(s.spec)
        if code:
            lines.append(
                Text("critical env-loads-code: ", style="bold red")
                .append_text(safe_name(name))
                .append(f" sets {', '.join(code)}, which loads code outside the package pin")
            )
    return lines


def _lint_note(findings: dict[Any, Any]) -> Text:
    crit = sum(1 for fs in findings.values() if any(f.severity == CRITICAL for f in fs))
    note = Text(f"\nlint: {len(findings)} item(s) with findings", style="bold red" if crit else "yellow")
    if crit:
        note.append(f", {crit} critical")
    note.append(" — see `mcplock show SERVER/TOOL`", style="dim")
    return note


def _items_block(name: str, s: Any, findings: dict[Any, Any], tampered: set[tuple[str, str, str]] | None) -> Text:
    """A server's item lines, padded by hand: a rich Table costs ~0.5 ms a row."""
    labelled = [(safe_name(item_target(e)), e) for e in s.entries()]
    head = safe_name(name)
    width = max([head.cell_len + 1, *(label.cell_len for label, _ in labelled)]) + 2
    block = Text()
    block.append_text(head)
    block.append("/".ljust(width - head.cell_len), style="bold")
    block.append("enabled  approval  state\n", style="bold")
    for label, e in labelled:
        block.append_text(label)
        block.append(" " * (width - label.cell_len))
        _append_flags(block, e)
        block.append_text(state_text(e))
        _item_notes(block, name, e, findings, tampered)
        block.append("\n")
    block.rstrip()
    return block


def _append_flags(block: Text, e: Any) -> None:
    """A tool's enabled and approval columns (blank for other items)."""
    if e.kind != "tool":
        block.append(" " * 19)
        return
    block.append("yes      " if e.enabled else "no       ", style="" if e.enabled else "dim")
    block.append(e.approval.ljust(10))


def _is_tampered(name: str, e: Any, tampered: set[tuple[str, str, str]] | None) -> bool:
    """An item whose stored definition (accepted or pending) does not match its hash: as
    ``tampered`` says when the caller checked them, else checked here."""
    if tampered is not None:
        return (name, e.kind, e.key) in tampered
    return bool(e.tampered() or e.tampered(pending=True))


def _item_notes(
    block: Text, name: str, e: Any, findings: dict[Any, Any], tampered: set[tuple[str, str, str]] | None
) -> None:
    """What an item's line says after its state: a dynamic skill, a tampered definition, its lint findings."""
    if e.kind == "skill" and is_dynamic(e.definition):
        block.append("  dynamic: its files are generated, only its entry is pinned", style="yellow")
    if _is_tampered(name, e, tampered):
        block.append("  tampered: the stored definition does not match its hash", style="bold red")
    found = findings.get((name, e.kind, e.key))
    if found:
        _append_lint(block, found)


def _append_lint(block: Text, found: list[Any]) -> None:
    """An item's lint findings: the worst severity, then the rules that found something."""
    sev = worst_of(f.severity for f in found)
    rules = ", ".join(sorted({f.rule for f in found}))
    block.append(f"  {sev}: {rules}", style=style(sev))


# the hint a server's group shows: that of its most serious problem
_HINT_ORDER = (
    "hash-mismatch",
    "unknown-value",
    "pin-not-exact",
    "pin-no-integrity",
    "config-error",
    "source-missing",
    "config-missing",
    "config-changed",
    "not-locked",
    "pending",
    "env-loads-code",
    "critical-accepted",
)


_CODE_STYLE = {"pending": "bold yellow", "critical-accepted": "yellow"}  # any other code: bold red


def _group_head(server: str, group: list[Any]) -> Text:
    """A group's head: its server, else what the findings about no server are about."""
    if server:
        return safe_name(server, "bold").append(":")
    what = "signature" if all(f.code == "signature" for f in group) else "host settings"
    return Text(what, style="bold").append(":")


def _finding_line(f: Any) -> Text:
    return (
        Text("  ")
        .append(f"{f.code}: ", style=_CODE_STYLE.get(f.code, "bold red"))
        .append_text(safe_text(f.message, keep_newlines=False))
    )


def _hints(server: str, group: list[Any]) -> list[str]:
    """One hint per server; findings about no server (exported host settings) keep each its own."""
    return [_server_hint(server, group)] if server else list(dict.fromkeys(f.hint for f in group))


def render_findings(findings: Iterable[Any]) -> Group:
    """``check``'s findings grouped per server, one hint per server."""
    by_server: dict[str, list[Any]] = {}
    for f in findings:
        by_server.setdefault(f.server, []).append(f)
    lines: list[Any] = []
    for server, group in by_server.items():
        lines.append(_group_head(server, group))
        lines += [_finding_line(f) for f in group]
        lines += [
            Text("  hint: ", style="dim").append_text(safe_text(hint, "dim", keep_newlines=False))
            for hint in _hints(server, group)
        ]
    return Group(*lines)


def _server_hint(server: str, group: list[Any]) -> str:
    codes = {f.code for f in group}
    if codes == {"pending"} and len(group) > 1:
        s = shell_word(server)
        return (
            f"`mcplock diff {s}` shows what changed; `mcplock accept {s}` reviews each item "
            f"(a walk on a terminal), `mcplock reject {s}/TOOL` refuses one"
        )
    first = min(group, key=lambda f: _HINT_ORDER.index(f.code) if f.code in _HINT_ORDER else -1)
    return str(first.hint)
