"""``mcplock show``: a definition in full and readable — description as text, the input
schema as a tree of parameters with types, limits and required marks, flags, annotations
(declared by the server, never trusted), findings, and a pending proposal beside it."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Group
from rich.text import Text

from mcplock.documents import is_dynamic
from mcplock.lock.model import Entry, ServerEntry
from mcplock.lock.targets import label
from mcplock.render.text import state_text
from mcplock.severity import style
from mcplock.untrusted import safe_name, safe_text

_LIMITS = (
    ("minLength", "min length"),
    ("maxLength", "max length"),
    ("minimum", "≥"),
    ("maximum", "≤"),
    ("exclusiveMinimum", ">"),
    ("exclusiveMaximum", "<"),
    ("minItems", "min items"),
    ("maxItems", "max items"),
    ("pattern", "pattern"),
    ("format", "format"),
    ("default", "default"),
    ("const", "const"),
)
_SHOWN = {
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "arguments",
    "uriTemplate",
    "uri",
    "mimeType",
    "text",
}


def _j(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False, sort_keys=True)


def _resolve(schema: Any, root: Any) -> tuple[Any, str | None]:
    if isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        ref = schema["$ref"]
        if ref.startswith("#/"):
            node: Any = root
            for part in ref[2:].split("/"):
                node = node.get(part) if isinstance(node, dict) else None
            if isinstance(node, dict):
                return node, ref.rsplit("/", 1)[-1]
        return schema, ref
    return schema, None


def _type(s: dict[str, Any]) -> str:
    t = s.get("type")
    if isinstance(t, list):
        t = " | ".join(str(x) for x in t)
    if t == "array" and isinstance(s.get("items"), dict):
        inner = s["items"].get("type")
        t = f"array of {inner}" if inner else "array"
    if t is None:
        for comb in ("anyOf", "oneOf", "allOf"):
            if isinstance(s.get(comb), list):
                return comb
        if "enum" in s:
            return "enum"
        return "any"
    return str(t)


def schema_tree(schema: Any, *, indent: str = "    ", root: Any = None, depth: int = 0) -> list[Text]:
    root = schema if root is None else root
    lines: list[Text] = []
    if not isinstance(schema, dict):
        return [Text(indent).append_text(safe_text(_j(schema), keep_newlines=False))]
    props = schema.get("properties")
    if not isinstance(props, dict) or not props:
        if depth == 0:
            lines.append(Text(indent + "(no parameters)", style="dim"))
        return lines
    listed = schema.get("required")
    required = listed if isinstance(listed, list) else []
    width = max(len(str(k)) for k in props) + 2
    for name, sub in props.items():
        sub, refname = _resolve(sub, root)
        row = Text(indent)
        label = safe_text(
            str(name) + ("*" if name in required else ""), "bold" if name in required else "", keep_newlines=False
        )
        row.append_text(label).append(" " * max(1, width - label.cell_len))
        if not isinstance(sub, dict):
            lines.append(row.append_text(safe_text(_j(sub), keep_newlines=False)))
            continue
        row.append(_type(sub), style="cyan")
        if refname:
            row.append(" (", style="dim").append_text(safe_text(refname, "dim", keep_newlines=False))
            row.append(")", style="dim")
        if isinstance(sub.get("enum"), list):
            row.append("  one of ").append_text(safe_text(", ".join(_j(v) for v in sub["enum"]), keep_newlines=False))
        for key, word in _LIMITS:
            if key in sub:
                row.append(f"  {word} ").append_text(safe_text(_j(sub[key]), keep_newlines=False))
        desc = sub.get("description")
        if isinstance(desc, str) and desc.strip():
            row.append("  — ", style="dim").append_text(safe_text(desc.strip(), "dim", keep_newlines=False))
        lines.append(row)
        if depth < 4:
            nested = sub.get("items") if _type(sub).startswith("array") else sub
            nested, _ = _resolve(nested, root)
            if isinstance(nested, dict) and isinstance(nested.get("properties"), dict):
                lines += schema_tree(nested, indent=indent + "  ", root=root, depth=depth + 1)
    if schema.get("additionalProperties") is False:
        lines.append(Text(indent + "(no other properties)", style="dim"))
    return lines


EXCERPT_LINES = 12  # a document's text in `show` and the review walk: its first lines…
EXCERPT_CHARS = 1500  # …and at most this much of it (a minified bundle is a few lines of 100 kB)
_LINE_CHARS = 200


def _text_lines(text: str, indent: str, full: bool, target: str | None) -> list[Text]:
    """A document's text: in full with ``full``, else an excerpt and how to see the rest."""
    if full:
        return [Text(indent).append_text(safe_text(line)) for line in text.split("\n")]
    out: list[Text] = []
    used = 0
    all_lines = text.split("\n")
    for line in all_lines[:EXCERPT_LINES]:
        piece = line[:_LINE_CHARS]
        piece = piece[: max(0, EXCERPT_CHARS - used)]
        row = Text(indent).append_text(safe_text(piece))
        if len(piece) < len(line):
            row.append(f"… ({len(line) - len(piece)} more characters)", style="dim")
        out.append(row)
        used += len(piece)
        if used >= EXCERPT_CHARS:
            break
    if used < len(text.replace("\n", "")) or len(out) < len(all_lines):
        how = f"`mcplock show {target} --full`" if target else "`mcplock show … --full`"
        out.append(
            Text(
                f"{indent}… an excerpt: {len(out)} of {len(all_lines)} lines, {used} of {len(text)} "
                f"characters; {how} prints it all",
                style="dim",
            )
        )
    return out


def definition_lines(
    kind: str, d: Any, indent: str = "  ", *, full: bool = True, target: str | None = None
) -> list[Text]:
    """``full``: a document's text in full (else an excerpt, ``target`` named for the rest)."""
    if isinstance(d, str):  # instructions
        return [Text(indent).append_text(safe_text(line)) for line in d.split("\n")]
    if not isinstance(d, dict):
        return [Text(indent).append_text(safe_text(_j(d)))]
    lines: list[Text] = []
    if isinstance(d.get("title"), str):
        lines.append(Text(f"{indent}title: ", style="bold").append_text(safe_text(d["title"], keep_newlines=False)))
    if "description" in d:
        lines.append(Text(f"{indent}description:", style="bold"))
        desc = d["description"] if isinstance(d["description"], str) else _j(d["description"])
        lines += [Text(indent + "  ").append_text(safe_text(line)) for line in desc.split("\n")]
    for key in ("uriTemplate", "uri", "mimeType"):
        if key in d:
            lines.append(Text(f"{indent}{key}: ", style="bold").append_text(safe_text(_j(d[key]), keep_newlines=False)))
    if isinstance(d.get("text"), str):  # a document (an App's HTML, a SKILL.md): as text, escaped
        import hashlib

        text = d["text"]
        raw = text.encode("utf-8", "surrogatepass")
        lines.append(
            Text(f"{indent}text:", style="bold").append(
                f"  ({len(raw)} bytes, {text.count(chr(10)) + 1} lines, sha256:{hashlib.sha256(raw).hexdigest()})",
                style="dim",
            )
        )
        lines += _text_lines(text, indent + "  ", full, target)
    elif "text" in d:
        lines.append(Text(f"{indent}text: ", style="bold").append_text(safe_text(_j(d["text"]), keep_newlines=False)))
    if "inputSchema" in d:
        lines.append(Text(f"{indent}parameters (* required):", style="bold"))
        lines += schema_tree(d["inputSchema"], indent=indent + "  ")
    if isinstance(d.get("arguments"), list):
        lines.append(Text(f"{indent}arguments (* required):", style="bold"))
        for a in d["arguments"]:
            if isinstance(a, dict):
                arg = str(a.get("name")) + ("*" if a.get("required") else "")
                row = Text(indent + "  ").append_text(safe_text(arg, keep_newlines=False))
                if isinstance(a.get("description"), str):
                    row.append("  — ", style="dim").append_text(safe_text(a["description"], "dim", keep_newlines=False))
                lines.append(row)
    if "outputSchema" in d:
        lines.append(Text(f"{indent}output schema:", style="bold"))
        lines += schema_tree(d["outputSchema"], indent=indent + "  ")
    if "annotations" in d:
        ann = d["annotations"]
        shown = ", ".join(f"{k}={_j(v)}" for k, v in ann.items()) if isinstance(ann, dict) else _j(ann)
        lines.append(
            Text(f"{indent}annotations: ", style="bold")
            .append_text(safe_text(shown, keep_newlines=False))
            .append("  (declared by the server; never trusted)", style="dim")
        )
    for key in sorted(set(d) - _SHOWN):
        lines.append(
            Text(indent)
            .append_text(safe_text(str(key), "bold", keep_newlines=False))
            .append(": ", style="bold")
            .append_text(safe_text(_j(d[key]), keep_newlines=False))
        )
    return lines


def _findings(kind: str, d: Any, old: Any, indent: str) -> list[Text]:
    try:
        from mcplock.lint import lint_definition
    except ImportError:  # pragma: no cover
        return []
    out: list[Text] = []
    for f in lint_definition(kind, d, old=old):
        row = Text(indent).append(f"{f.severity} {f.rule}", style=style(f.severity))
        if f.where:
            row.append(" at ").append_text(safe_text(f.where, keep_newlines=False))
        out.append(row.append(": ").append_text(safe_text(f.message, keep_newlines=False)))
    return out


def render_entry(srv: ServerEntry, e: Entry, *, color: bool = True, full: bool = False) -> list[Any]:
    """``full``: documents (an App's HTML) in full; by default an excerpt, its size and hash, and
    for a change the diff."""
    from mcplock.render.changes import render_field_change

    parts: list[Any] = []
    title = Text(f"{e.kind} ", style="bold").append_text(safe_name(label(srv, e), "bold"))
    parts.append(title)
    flags = Text("  ")
    if e.kind == "tool":
        flags.append("enabled: ").append("yes" if e.enabled else "no", style="green" if e.enabled else "red")
        asks = " (ask before each call)" if e.approval == "always" else " (no prompt)"
        flags.append("   approval: ").append(e.approval + asks)
        flags.append("   ")
    flags.append("state: ").append_text(state_text(e))
    parts.append(flags)
    if e.kind == "skill" and is_dynamic(e.pending.definition if e.pending is not None else e.definition):
        parts.append(
            Text(
                "  dynamic skill: its files are generated by the server and cannot be pinned; only its "
                "entry (URI, frontmatter) is",
                style="yellow",
            )
        )
    if e.tampered() or e.tampered(pending=True):
        which = "accepted" if e.tampered() else "pending"
        parts.append(
            Text(
                f"  TAMPERED: the {which} definition below does not match its hash (edited by hand or "
                f"tampered with); it is not what was reviewed",
                style="bold red",
            )
        )
        parts.append(
            Text("  restore mcp.lock from git, or run `mcplock refresh ", style="dim")
            .append_text(safe_text(srv.name, "dim", keep_newlines=False))
            .append("` to stage what the server offers and review it", style="dim")
        )
    if e.definition is not None:
        parts.append(Text(f"  accepted  {e.hash}", style="dim"))
        parts += definition_lines(e.kind, e.definition, "    ", full=full, target=_typed(srv, e))
        parts += _findings(e.kind, e.definition, None, "    ")
    elif e.rejected_hash:
        parts.append(Text(f"  never accepted; rejected upstream definition {e.rejected_hash}", style="dim"))
    p = e.pending
    if p is not None:
        parts.append(Text(""))
        parts.append(Text(f"  pending {p.change}" + (f"  {p.hash}" if p.hash else ""), style="bold yellow"))
        if p.change == "removed":
            parts.append(Text("    the server no longer offers it; `accept` drops it from the lock", style="dim"))
        elif p.change == "changed" and p.hash == e.hash and not e.tampered():
            parts.append(
                Text(
                    "    the server offers the accepted definition again (it had been rejected); `accept` enables it",
                    style="dim",
                )
            )
        elif p.change == "changed" and e.definition is not None:
            from mcplock.compare import changed_fields

            if isinstance(e.definition, str):
                parts += render_field_change("text", e.definition, p.definition, color=color, indent="    ")
            else:
                for f in changed_fields(e.definition, p.definition):
                    if e.kind == "skill" and f == "resources":  # file by file (render/diff.py)
                        from mcplock.render.diff import skill_files_change

                        parts += skill_files_change(e.definition, p.definition, indent="    ")
                        continue
                    parts += render_field_change(
                        f, e.definition.get(f), p.definition.get(f), color=color, indent="    "
                    )
            parts += _findings(e.kind, p.definition, e.definition, "    ")
        else:
            parts += definition_lines(e.kind, p.definition, "    ", full=full, target=_typed(srv, e))
            parts += _findings(e.kind, p.definition, None, "    ")
    return parts


def _typed(srv: ServerEntry, e: Entry) -> str:
    from mcplock.untrusted import shell_word

    return shell_word(label(srv, e))


def render_show(
    srv: ServerEntry, entries: list[Entry], *, whole_server: bool, color: bool = True, full: bool = False
) -> Group:
    parts: list[Any] = []
    if whole_server:
        head = Text("server ", style="bold").append_text(safe_name(srv.name, "bold"))
        sp = srv.spec
        head.append(f"  {sp.transport}, policy {srv.policy}")
        parts.append(head)
        where = " ".join([sp.command or "", *sp.args]).strip() if sp.stdio else (sp.url or "")
        parts.append(Text("  ").append_text(safe_text(where, keep_newlines=False)))
        from mcplock.packages.pin import describe

        parts.append(
            Text("  package: ").append_text(safe_text(describe(sp.package, sp.command, sp.args), keep_newlines=False))
        )
        if sp.package is not None:
            for k, v in sp.package.stored().items():
                if k in ("integrity", "tree-integrity"):
                    for x in v if isinstance(v, list) else [v]:
                        parts.append(Text(f"    {k}: ").append_text(safe_text(str(x), keep_newlines=False)))
        if srv.spec.source:
            parts.append(Text("  imported from ").append_text(safe_text(srv.spec.source, keep_newlines=False)))
        if srv.spec.registry is not None:
            ref = srv.spec.registry
            parts.append(
                Text("  MCP Registry: ").append_text(
                    safe_text(
                        f"{ref.name} {ref.version} ({ref.url})"
                        + (f", source {ref.repository}" if ref.repository else ""),
                        keep_newlines=False,
                    )
                )
            )
        if srv.server_info:
            info = " ".join(str(srv.server_info.get(k, "")) for k in ("name", "version")).strip()
            parts.append(
                Text("  server: ")
                .append_text(safe_text(info, keep_newlines=False))
                .append("  protocol ")
                .append_text(safe_text(srv.protocol_version or "?", keep_newlines=False))
            )
    for e in entries:
        parts.append(Text(""))
        parts += render_entry(srv, e, color=color, full=full)
    return Group(*parts)
