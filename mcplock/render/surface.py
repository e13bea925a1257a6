"""The report of ``mcplock surface``: the statement written and, with ``--against``, what the release
does to every pinned client (:mod:`mcplock.publish.impact`) — as text, Markdown (a job summary, a
pull request comment) or JSON. Every server-sent string is escaped (``safe_text``, ``md_text``,
``md_code``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Group
from rich.text import Text

from mcplock.model.severity import style
from mcplock.text.untrusted import safe_text

if TYPE_CHECKING:
    from mcplock.publish.impact import Impact, Item
    from mcplock.publish.statement import Statement

EFFECT_WORDS = {
    "quarantined": "every pinned client quarantines it (disabled until reviewed)",
    "new": "staged as new in every pinned client (a tool disabled until accepted)",
    "review": "staged for review in every pinned client",
    "removed": "its removal is staged in every pinned client",
    "unchanged": "no word changed: no client sees a thing",
}


def _counts(st: Statement) -> str:
    h = st.hashes()
    parts = [f"{len(h.get(k, {}))} {w}" for k, w in (("tool", "tools"), ("prompt", "prompts"))]
    parts += [f"{len(h[k])} {w}" for k, w in _MORE if h.get(k)]
    if "instructions" in h:
        parts.append("instructions")
    return ", ".join(parts)


_MORE = (
    ("resource-template", "resource templates"),
    ("resource", "resources"),
    ("ui", "App documents"),
    ("skill", "skills"),
    ("content", "documents"),
)


def head_line(st: Statement, path: str) -> str:
    return f"wrote {path}: {_counts(st)}; mcp-lock/1 surface {st.doc['digests']['mcp-lock/1']['surface']}"


def _item_row(i: Item) -> Text:
    row = Text("  ")
    sev = i.change.severity if i.change is not None else ""
    row.append(f"{sev:<8}", style=style(sev))
    row.append(f" {i.effect:<11} {i.kind} ").append_text(safe_text(i.name, "bold", keep_newlines=False))
    if i.change is not None and i.change.reason:
        row.append(" — ", style="dim").append_text(safe_text(i.change.reason, "dim", keep_newlines=False))
    return row


def render_text(imp: Impact, *, color: bool = True) -> Group:
    from mcplock.render.diff import finding_row

    n = imp.summary()
    lines: list[Any] = [
        Text("against ")
        .append_text(safe_text(imp.previous, keep_newlines=False))
        .append(
            f": {n['quarantined']} quarantined, {n['new']} new, {n['review']} to review, "
            f"{n['removed']} removed, {n['unchanged']} unchanged"
        )
    ]
    for i in imp.items:
        if i.effect == "unchanged":
            continue
        lines.append(_item_row(i))
        lines += [finding_row(f, "      ", color=color) for f in i.change.findings]
    same = [i for i in imp.items if i.effect == "unchanged"]
    if same:
        names = ", ".join(i.name if i.kind == "instructions" else f"{i.kind} {i.name}" for i in same)
        lines.append(Text("  unchanged: ", style="green").append_text(safe_text(names, keep_newlines=False)))
    if n["worst"]:
        lines.append(Text(f"the worst a client sees: {n['worst']}", style=style(n["worst"])))
    return Group(*lines)


def render_markdown(imp: Impact | None, st: Statement, path: str, code: int) -> str:
    from mcplock.render.formats.markdown import md_code, md_text

    icon = "❌" if code else "✅"
    out = [f"## {icon} mcplock surface: {md_code(st.name)} (exit {code})", ""]
    out.append(f"Wrote {md_code(path)}: {md_text(_counts(st))}.")
    out.append(f"mcp-lock/1 surface digest {md_code(st.doc['digests']['mcp-lock/1']['surface'])}.")
    if imp is None:
        return "\n".join(out) + "\n"
    n = imp.summary()
    out += ["", f"### What this release does to every client that pinned {md_code(imp.previous)}", ""]
    out.append(
        f"{n['quarantined']} quarantined · {n['new']} new · {n['review']} to review · "
        f"{n['removed']} removed · {n['unchanged']} unchanged" + (f" · worst: **{n['worst']}**" if n["worst"] else "")
    )
    changed = [i for i in imp.items if i.change is not None]
    if changed:
        out += ["", "| severity | item | what every pinned client does | why |", "|---|---|---|---|"]
        for i in changed:
            item = md_code(f"{i.kind} {i.name}", table=True)
            out.append(f"| **{i.change.severity}** | {item} | {EFFECT_WORDS[i.effect]} | {md_text(i.change.reason)} |")
        out += _md_findings(changed)
    same = [i for i in imp.items if i.effect == "unchanged"]
    if same:
        out += ["", "No word changed (no client sees a thing): " + ", ".join(md_code(i.name) for i in same)]
    return "\n".join(out) + "\n"


def _md_findings(changed: list[Item]) -> list[str]:
    from mcplock.render.formats.markdown import md_code, md_text

    out: list[str] = []
    for i in changed:
        for f in i.change.findings:
            where = f" at {md_code(f.where)}" if getattr(f, "where", "") else ""
            out.append(f"- {md_code(i.name)}: **{f.severity}** {md_text(f.rule)}{where}: {md_text(f.message)}")
    return ["", "Findings:", "", *out] if out else []


def json_report(imp: Impact | None, st: Statement, path: str, code: int, signature: str | None) -> dict[str, Any]:
    return {
        "version": 1,
        "command": "surface",
        "statement": path,
        "name": st.name,
        "digest": st.digest(),
        "surface_digest": st.doc["digests"]["mcp-lock/1"]["surface"],
        "signature": signature,
        "exit_code": code,
        "impact": imp.as_json() if imp is not None else None,
    }
