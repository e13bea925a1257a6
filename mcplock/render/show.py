"""``mcplock show``: a definition in full and readable — description as text, the input
schema as a tree of parameters with types, limits and required marks, flags, annotations
(declared by the server, never trusted), findings, and a pending proposal beside it."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Group
from rich.text import Text

from mcplock.documents import is_dynamic
from mcplock.lock.model import Entry, Pending, ServerEntry
from mcplock.lock.targets import label
from mcplock.render.text import state_text
from mcplock.severity import style
from mcplock.spec import ServerSpec
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


def _param_row(name: Any, sub: Any, refname: str | None, required: list[Any], width: int, indent: str) -> Text:
    """One parameter: its name (``*`` when required), type, referenced definition, allowed values,
    limits and description."""
    row = Text(indent)
    named = safe_text(
        str(name) + ("*" if name in required else ""), "bold" if name in required else "", keep_newlines=False
    )
    row.append_text(named).append(" " * max(1, width - named.cell_len))
    if not isinstance(sub, dict):
        return row.append_text(safe_text(_j(sub), keep_newlines=False))
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
    return row


def _nested(sub: dict[str, Any], root: Any) -> dict[str, Any] | None:
    """The object a parameter holds (itself, or an array's items), when it has properties to show."""
    nested = sub.get("items") if _type(sub).startswith("array") else sub
    nested, _ = _resolve(nested, root)
    return nested if isinstance(nested, dict) and isinstance(nested.get("properties"), dict) else None


def schema_tree(schema: Any, *, indent: str = "    ", root: Any = None, depth: int = 0) -> list[Text]:
    root = schema if root is None else root
    if not isinstance(schema, dict):
        return [Text(indent).append_text(safe_text(_j(schema), keep_newlines=False))]
    props = schema.get("properties")
    if not isinstance(props, dict) or not props:
        return [Text(indent + "(no parameters)", style="dim")] if depth == 0 else []
    listed = schema.get("required")
    required = listed if isinstance(listed, list) else []
    width = max(len(str(k)) for k in props) + 2
    lines: list[Text] = []
    for name, sub in props.items():
        sub, refname = _resolve(sub, root)
        lines.append(_param_row(name, sub, refname, required, width, indent))
        nested = _nested(sub, root) if isinstance(sub, dict) and depth < 4 else None
        if nested is not None:
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


def _described(d: dict[str, Any], indent: str) -> list[Text]:
    """Title, description (as text, line by line) and the URI fields."""
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
    return lines


def _document(d: dict[str, Any], indent: str, full: bool, target: str | None) -> list[Text]:
    """A document's text (an App's HTML, a SKILL.md): its size, lines and hash, then the text
    escaped, in full or an excerpt; a ``text`` that is not a string as JSON."""
    if "text" not in d:
        return []
    text = d["text"]
    if not isinstance(text, str):
        return [Text(f"{indent}text: ", style="bold").append_text(safe_text(_j(text), keep_newlines=False))]
    import hashlib

    raw = text.encode("utf-8", "surrogatepass")
    size = Text(f"{indent}text:", style="bold").append(
        f"  ({len(raw)} bytes, {text.count(chr(10)) + 1} lines, sha256:{hashlib.sha256(raw).hexdigest()})",
        style="dim",
    )
    return [size, *_text_lines(text, indent + "  ", full, target)]


def _arguments(arguments: list[Any], indent: str) -> list[Text]:
    """A prompt's arguments, each required one marked ``*``, with its description."""
    lines = [Text(f"{indent}arguments (* required):", style="bold")]
    for a in arguments:
        if isinstance(a, dict):
            arg = str(a.get("name")) + ("*" if a.get("required") else "")
            row = Text(indent + "  ").append_text(safe_text(arg, keep_newlines=False))
            if isinstance(a.get("description"), str):
                row.append("  — ", style="dim").append_text(safe_text(a["description"], "dim", keep_newlines=False))
            lines.append(row)
    return lines


def _annotations(ann: Any, indent: str) -> Text:
    shown = ", ".join(f"{k}={_j(v)}" for k, v in ann.items()) if isinstance(ann, dict) else _j(ann)
    return (
        Text(f"{indent}annotations: ", style="bold")
        .append_text(safe_text(shown, keep_newlines=False))
        .append("  (declared by the server; never trusted)", style="dim")
    )


def definition_lines(
    kind: str, d: Any, indent: str = "  ", *, full: bool = True, target: str | None = None
) -> list[Text]:
    """``full``: a document's text in full (else an excerpt, ``target`` named for the rest)."""
    if isinstance(d, str):  # instructions
        return [Text(indent).append_text(safe_text(line)) for line in d.split("\n")]
    if not isinstance(d, dict):
        return [Text(indent).append_text(safe_text(_j(d)))]
    lines = _described(d, indent) + _document(d, indent, full, target)
    if "inputSchema" in d:
        lines.append(Text(f"{indent}parameters (* required):", style="bold"))
        lines += schema_tree(d["inputSchema"], indent=indent + "  ")
    if isinstance(d.get("arguments"), list):
        lines += _arguments(d["arguments"], indent)
    if "outputSchema" in d:
        lines.append(Text(f"{indent}output schema:", style="bold"))
        lines += schema_tree(d["outputSchema"], indent=indent + "  ")
    if "annotations" in d:
        lines.append(_annotations(d["annotations"], indent))
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


def _flags(e: Entry) -> Text:
    """A tool's ``enabled`` and ``approval``, then any item's review state."""
    flags = Text("  ")
    if e.kind == "tool":
        flags.append("enabled: ").append("yes" if e.enabled else "no", style="green" if e.enabled else "red")
        asks = " (ask before each call)" if e.approval == "always" else " (no prompt)"
        flags.append("   approval: ").append(e.approval + asks)
        flags.append("   ")
    return flags.append("state: ").append_text(state_text(e))


def _warnings(srv: ServerEntry, e: Entry) -> list[Text]:
    """What a reader must know before the definitions: a dynamic skill is not pinned, a tampered
    definition is not what was reviewed (and how to get back to one that is)."""
    parts: list[Text] = []
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
    return parts


def _accepted(srv: ServerEntry, e: Entry, full: bool) -> list[Any]:
    """The accepted definition with its hash and findings, or the rejected hash of one never accepted."""
    if e.definition is not None:
        return [
            Text(f"  accepted  {e.hash}", style="dim"),
            *definition_lines(e.kind, e.definition, "    ", full=full, target=_typed(srv, e)),
            *_findings(e.kind, e.definition, None, "    "),
        ]
    if e.rejected_hash:
        return [Text(f"  never accepted; rejected upstream definition {e.rejected_hash}", style="dim")]
    return []


def _change_from_accepted(e: Entry, p: Pending, color: bool) -> list[Any]:
    """A staged change beside the accepted definition: field by field (a skill's files file by file)."""
    from mcplock.compare import changed_fields
    from mcplock.render.changes import render_field_change

    if isinstance(e.definition, str):
        return render_field_change("text", e.definition, p.definition, color=color, indent="    ")
    parts: list[Any] = []
    for f in changed_fields(e.definition, p.definition):
        if e.kind == "skill" and f == "resources":  # file by file (render/diff.py)
            from mcplock.render.diff import skill_files_change

            parts += skill_files_change(e.definition, p.definition, indent="    ")
        else:
            parts += render_field_change(f, e.definition.get(f), p.definition.get(f), color=color, indent="    ")
    return parts


def _pending(srv: ServerEntry, e: Entry, p: Pending, *, color: bool, full: bool) -> list[Any]:
    """The pending proposal: a removal, the accepted definition offered again, a change (as a
    diff from the accepted one) or a new definition in full, with its findings."""
    parts: list[Any] = [
        Text(""),
        Text(f"  pending {p.change}" + (f"  {p.hash}" if p.hash else ""), style="bold yellow"),
    ]
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
        parts += _change_from_accepted(e, p, color)
        parts += _findings(e.kind, p.definition, e.definition, "    ")
    else:
        parts += definition_lines(e.kind, p.definition, "    ", full=full, target=_typed(srv, e))
        parts += _findings(e.kind, p.definition, None, "    ")
    return parts


def render_entry(srv: ServerEntry, e: Entry, *, color: bool = True, full: bool = False) -> list[Any]:
    """``full``: documents (an App's HTML) in full; by default an excerpt, its size and hash, and
    for a change the diff."""
    title = Text(f"{e.kind} ", style="bold").append_text(safe_name(label(srv, e), "bold"))
    parts: list[Any] = [title, _flags(e), *_warnings(srv, e), *_accepted(srv, e, full)]
    if e.pending is not None:
        parts += _pending(srv, e, e.pending, color=color, full=full)
    return parts


def _typed(srv: ServerEntry, e: Entry) -> str:
    from mcplock.untrusted import shell_word

    return shell_word(label(srv, e))


def _package_lines(spec: ServerSpec) -> list[Text]:
    """The package the server runs as (or why none is pinned), and the integrity it is pinned to."""
    from mcplock.packages.pin import describe

    lines = [
        Text("  package: ").append_text(safe_text(describe(spec.package, spec.command, spec.args), keep_newlines=False))
    ]
    stored = spec.package.stored() if spec.package is not None else {}
    for k, v in stored.items():
        if k in ("integrity", "tree-integrity"):
            lines += [
                Text(f"    {k}: ").append_text(safe_text(str(x), keep_newlines=False))
                for x in (v if isinstance(v, list) else [v])
            ]
    return lines


def _origin_lines(spec: ServerSpec) -> list[Text]:
    """Where the server's entry came from: a host config it was imported from, the MCP Registry."""
    lines: list[Text] = []
    if spec.source:
        lines.append(Text("  imported from ").append_text(safe_text(spec.source, keep_newlines=False)))
    ref = spec.registry
    if ref is not None:
        listed = f"{ref.name} {ref.version} ({ref.url})" + (f", source {ref.repository}" if ref.repository else "")
        lines.append(Text("  MCP Registry: ").append_text(safe_text(listed, keep_newlines=False)))
    return lines


def _server_lines(srv: ServerEntry) -> list[Text]:
    """The server itself: transport and policy, how it is reached, its package, where it came
    from, what it said it is."""
    sp = srv.spec
    head = Text("server ", style="bold").append_text(safe_name(srv.name, "bold"))
    head.append(f"  {sp.transport}, policy {srv.policy}")
    where = " ".join([sp.command or "", *sp.args]).strip() if sp.stdio else (sp.url or "")
    lines = [head, Text("  ").append_text(safe_text(where, keep_newlines=False))]
    lines += _package_lines(sp) + _origin_lines(sp)
    if srv.server_info:
        info = " ".join(str(srv.server_info.get(k, "")) for k in ("name", "version")).strip()
        lines.append(
            Text("  server: ")
            .append_text(safe_text(info, keep_newlines=False))
            .append("  protocol ")
            .append_text(safe_text(srv.protocol_version or "?", keep_newlines=False))
        )
    return lines


def render_show(
    srv: ServerEntry, entries: list[Entry], *, whole_server: bool, color: bool = True, full: bool = False
) -> Group:
    parts: list[Any] = _server_lines(srv) if whole_server else []
    for e in entries:
        parts.append(Text(""))
        parts += render_entry(srv, e, color=color, full=full)
    return Group(*parts)
