"""Text renderings of diffs and snapshots. Every server-sent string goes through ``safe_text``."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text

from mcplock.errors import ProbeError
from mcplock.lint.compare import Cloaked, PendingItem, ServerDiff
from mcplock.model.severity import INFO, style
from mcplock.model.snapshot import Snapshot
from mcplock.render.formats.common import changes_count, ident, shown_status, summary_counts
from mcplock.text.untrusted import safe_name, safe_text, shell_word

STATUS_STYLE = {"ok": "green", "drift": "bold red", "unreachable": "bold yellow"}


def _name(s: str) -> Text:
    return safe_name(s)


def _param_names(schema: Any) -> list[str] | None:
    """An input schema's parameters, each required one marked ``*`` (None: no properties object)."""
    from mcplock.render.schema_tree import required_names

    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return None
    required = required_names(schema)
    return [f"{p}{'*' if p in required else ''}" for p in schema["properties"]]


def fields_change(
    kind: str,
    fields: list[str],
    old: dict[str, Any],
    new: Any,
    *,
    color: bool,
    indent: str = "      ",
    whole: bool = False,
) -> list[Text]:
    """How each of ``fields`` of a definition changed (a skill's files file by file); ``whole``:
    nothing of the change cut (`show`)."""
    from mcplock.render.changes import render_field_change

    lines: list[Text] = []
    for f in fields:
        if kind == "skill" and f == "resources":
            lines += skill_files_change(old, new, indent)
        else:
            lines += render_field_change(f, old.get(f), new.get(f), color=color, indent=indent, whole=whole)
    return lines


def _changed_detail(c: Any, color: bool) -> list[Text]:
    """A changed item, field by field (a skill's files file by file)."""
    from mcplock.render.changes import render_field_change

    if c.kind == "instructions":
        return render_field_change("instructions", c.locked, c.live, color=color)
    if not (isinstance(c.locked, dict) and isinstance(c.live, dict)):
        return []
    return fields_change(c.kind, c.fields, c.locked, c.live, color=color)


def _added_detail(d: Any) -> list[Text]:
    """A new item in brief: its text, or its description and parameters."""
    if isinstance(d, str):
        return [Text("      ").append_text(safe_text(d[:300], keep_newlines=False))]
    if not isinstance(d, dict):
        return []
    lines: list[Text] = []
    desc = d.get("description")
    if isinstance(desc, str) and desc.strip():
        lines.append(
            Text("      description: ", style="bold").append_text(safe_text(desc.strip(), keep_newlines=False))
        )
    params = _param_names(d.get("inputSchema"))
    if params is not None:
        lines.append(
            Text("      params: ", style="bold").append_text(safe_text(", ".join(params), keep_newlines=False))
        )
    return lines


def _change_detail(c: Any, color: bool) -> list[Text]:
    if c.change == "changed":
        return _changed_detail(c, color)
    if c.change == "added":
        return _added_detail(c.live)
    return []


def _server_head(d: ServerDiff) -> Text:
    """The server's line: its status, how many changes, cloaking."""
    head = _name(d.name).append(": ")
    status = shown_status(d)
    head.append(status, style=STATUS_STYLE.get(status, "yellow"))
    if d.status == "drift":
        head.append(f" ({changes_count(d)})")
    cloaks = d.critical_cloaks
    if cloaks:
        head.append(f", cloaking: {cloaks} item(s) answered otherwise to another host", style="bold red")
    return head


def _error_lines(head: Text, error: ProbeError) -> list[Text]:
    """An unreachable server's error: its first line ends ``head``; the rest (a dying server's
    stderr tail: real lines, each escaped) and the hint follow."""
    first, *more = error.message.splitlines() or [""]
    head.append(" — ").append_text(safe_text(first, keep_newlines=False))
    lines = [Text("  ").append_text(safe_text(m, keep_newlines=False)) for m in more]
    if error.hint:
        lines.append(Text("  hint: ", style="dim").append_text(safe_text(error.hint, "dim", keep_newlines=False)))
    return lines


def _change_row(c: Any) -> Text:
    """One change: severity, what changed and its fields, why."""
    row = Text("  ")
    row.append(f"{c.severity:<8}", style=style(c.severity))
    row.append(f" {c.change:<7} {c.kind} ")
    row.append_text(_name(c.name))
    if c.change == "changed" and c.fields:
        row.append("  [", style="dim").append_text(safe_text(", ".join(c.fields), "dim", keep_newlines=False)).append(
            "]", style="dim"
        )
    if c.reason:
        row.append(" — ", style="dim").append_text(safe_text(c.reason, "dim", keep_newlines=False))
    if c.kind == "skill" and c.dynamic:
        row.append("  (dynamic skill: its files are generated, only its entry is pinned)", style="yellow")
    return row


def _cloak_row(k: Cloaked) -> Text:
    row = Text("  ")
    row.append(f"{k.severity:<8}", style=style(k.severity))
    if k.change == "capability":  # offered by capability, as the protocol has it: not cloaking
        row.append(f" offered {k.kind} ")
    else:
        row.append(f" cloaked {k.kind} " if k.kind != "server" else " cloak   ")
    row.append_text(_name(k.name)).append(" — ", style="dim")
    return row.append_text(safe_text(k.message, keep_newlines=False))


def _pending_row(p: PendingItem, color: bool) -> Text:
    row = Text("  pending  ", style="yellow").append(f"{p.change:<7} {p.kind} ")
    row.append_text(_name(p.name))
    if p.detail is not None:
        row.append(f"  ({p.detail.severity})", style=style(p.detail.severity) if color else "")
        if p.detail.reason:
            row.append(" — ", style="dim").append_text(safe_text(p.detail.reason, "dim", keep_newlines=False))
    return row


def _pending_lines(p: PendingItem, color: bool, detail: bool) -> list[Text]:
    """A pending item's row, then its staged change's detail and findings when it has one."""
    lines = [_pending_row(p, color)]
    if p.detail is not None:
        lines += _detail_and_findings(p.detail, color, detail)
    return lines


def _identity_line(identity: dict[str, Any]) -> Text:
    """The server's identity, locked → live: reported apart, not drift."""
    lo, li = identity["locked"], identity["live"]
    return Text("  identity ", style="dim").append_text(
        safe_text(f"{ident(lo)} → {ident(li)} (not drift)", keep_newlines=False)
    )


def _server_lines(d: ServerDiff, color: bool, detail: bool) -> list[Text]:
    """One server's part of the report: its head, its changes, cloaking, pending items, identity."""
    lines = [_server_head(d)]
    if d.error is not None:
        lines += _error_lines(lines[0], d.error)
    for c in d.changes:
        lines.append(_change_row(c))
        lines.extend(_detail_and_findings(c, color, detail))
    lines.extend(_cloak_row(k) for k in d.cloaked or ())
    for p in d.pending:
        lines += _pending_lines(p, color, detail)
    if d.identity is not None:
        lines.append(_identity_line(d.identity))
    return lines


def render_diff(diffs: list[ServerDiff], *, color: bool = True, detail: bool = True, steps: bool = True) -> Group:
    """The text report of ``diff``; ``steps``: end with what to run next (not for two files compared)."""
    lines: list[Any] = []
    for d in diffs:
        lines += _server_lines(d, color, detail)
    n = summary_counts(diffs)
    lines.append(
        Text(
            f"\n{n['servers']} server(s): {n['drift']} with drift, {n['unreachable']} unreachable, "
            f"{n['pending']} pending review" + (f", {n['cloaked']} cloaking finding(s)" if "cloaked" in n else "")
        )
    )
    if steps:
        lines.extend(safe_text(n, "dim", keep_newlines=False) for n in next_steps(diffs))
    return Group(*lines)


def _drift_step(diffs: list[ServerDiff]) -> list[str]:
    """`refresh` stages the drift of the servers that have some."""
    drifted = [d.name for d in diffs if d.changes]
    if not drifted:
        return []
    return [f"drift: `mcplock refresh {' '.join(map(shell_word, drifted))}` stages the changes for review"]


def _review_step(diffs: list[ServerDiff]) -> list[str]:
    """`accept` reviews what is staged: the first eight targets named, the servers to walk."""
    from mcplock.render.formats.common import target

    waiting = [target(d.name, p.kind, p.name) for d in diffs for p in d.pending]
    if not waiting:
        return []
    shown = ", ".join(waiting[:8]) + (f" and {len(waiting) - 8} more" if len(waiting) > 8 else "")
    servers = " ".join(map(shell_word, dict.fromkeys(d.name for d in diffs if d.pending)))
    return [
        f"awaiting review: {shown} — review with `mcplock accept {servers}` "
        "(a walk on a terminal; or `mcplock show SERVER/TOOL`, then `accept`/`reject` it)"
    ]


def next_steps(diffs: list[ServerDiff]) -> list[str]:
    """What to run next: drift is staged by `refresh`; what is staged awaits `accept`/`reject`.
    Untrusted (server and item names): render through ``safe_text``."""
    return _drift_step(diffs) + _review_step(diffs)


def skill_files_change(locked: dict[str, Any], live: dict[str, Any], indent: str = "      ") -> list[Text]:
    """A skill's set of files, file by file: added, removed, changed (its digest or size)."""
    from mcplock.model.documents import is_dynamic, skill_files

    if is_dynamic(locked) or is_dynamic(live):
        return [_dynamic_change(locked, live, indent)]
    old, new = skill_files(locked), skill_files(live)
    return [
        _file_row(uri, old.get(uri), new.get(uri), indent)
        for uri in sorted(set(old) | set(new))
        if old.get(uri) != new.get(uri)
    ]


def _dynamic_change(locked: dict[str, Any], live: dict[str, Any], indent: str) -> Text:
    """A skill that became dynamic, or stopped being: what its resources were and are."""
    from mcplock.model.documents import is_dynamic

    was, now = ("dynamic" if is_dynamic(d) else "a set of files" for d in (locked, live))
    return Text(f"{indent}resources: ", style="bold").append(f"{was} → {now}")


def _file_row(uri: str, a: dict[str, Any] | None, b: dict[str, Any] | None, indent: str) -> Text:
    """One file of a skill added, removed, or changed (its size, else its digest)."""
    what = "added" if a is None else "removed" if b is None else "changed"
    row = Text(f"{indent}{what:<8}", style="bold").append_text(safe_text(uri, keep_newlines=False))
    if a is not None and b is not None:
        row.append(
            f"  size {a.get('size')} → {b.get('size')}"
            if a.get("size") != b.get("size")
            else "  same size, other digest",
            style="dim",
        )
    return row


def finding_row(f: Any, indent: str, *, color: bool = True) -> Text:
    """One security finding: its severity and rule, where, and its message."""
    sev = getattr(f, "severity", INFO)
    row = Text(indent).append(f"{sev} {getattr(f, 'rule', 'finding')}", style=style(sev) if color else "")
    where = getattr(f, "where", "")
    if where:
        row.append(" at ").append_text(safe_text(where, keep_newlines=False))
    return row.append(": ").append_text(safe_text(getattr(f, "message", str(f)), keep_newlines=False))


def _detail_and_findings(c: Any, color: bool, detail: bool) -> list[Text]:
    lines = _change_detail(c, color) if detail else []
    return lines + [finding_row(f, "      ", color=color) for f in c.findings]


def _snapshot_item(d: dict[str, Any], key: str) -> list[Text]:
    """One listed item: its key, a document's type and size (`show` has the text), the first line
    of its description, its parameters."""
    row = Text("  ").append_text(safe_text(str(d.get(key)), "bold", keep_newlines=False))
    if isinstance(d.get("text"), str):
        row.append("  ").append_text(safe_text(str(d.get("mimeType", "?")), "dim", keep_newlines=False))
        row.append(f", {len(d['text'].encode('utf-8', 'surrogatepass'))} bytes", style="dim")
    desc = d.get("description")
    if isinstance(desc, str) and desc.strip():
        row.append("  ").append_text(safe_text(desc.strip().split("\n")[0][:160], keep_newlines=False))
    params = _param_names(d.get("inputSchema"))
    if not params:
        return [row]
    return [
        row,
        Text("    params: ", style="dim").append_text(safe_text(", ".join(params), "dim", keep_newlines=False)),
    ]


_SNAPSHOT_LISTS = (  # (title, the snapshot's list, the key of its items); the last four only when not empty
    ("tools", "tools", "name"),
    ("prompts", "prompts", "name"),
    ("resource templates", "resource_templates", "uriTemplate"),
    ("resources", "resources", "uri"),
    ("App documents", "ui", "uri"),
    ("skills", "skills", "uri"),
    ("documents", "contents", "uri"),
)


_LISTED_WHEN_ANY = ("resources", "App documents", "skills", "documents")


def _snapshot_head(snap: Snapshot) -> list[Text]:
    """What the server said it is, and its instructions line by line."""
    info = snap.server_info or {}
    head = (
        Text("server ", style="bold")
        .append_text(safe_text(f"{info.get('name', '?')} {info.get('version', '')}".strip(), keep_newlines=False))
        .append("  protocol ")
        .append_text(safe_text(str(snap.protocol_version), keep_newlines=False))
    )
    if not snap.instructions:
        return [head]
    return [
        head,
        Text("instructions:", style="bold"),
        *(Text("  ").append_text(safe_text(ln, keep_newlines=False)) for ln in snap.instructions.split("\n")),
    ]


def render_snapshot(snap: Snapshot) -> Group:
    lines: list[Any] = _snapshot_head(snap)
    for title, attr, key in _SNAPSHOT_LISTS:
        items: list[dict[str, Any]] = getattr(snap, attr) or []
        if not items and title in _LISTED_WHEN_ANY:
            continue
        lines.append(Text(f"{title} ({len(items)}):", style="bold"))
        for d in items:
            lines += _snapshot_item(d, key)
    return Group(*lines)
