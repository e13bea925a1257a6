"""``mcplock show``: a definition in full and readable — description as text, the input
schema as a tree of parameters with types, limits and required marks (:mod:`mcplock.render.schema_tree`),
flags, annotations (declared by the server, never trusted), findings, and a pending proposal beside it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Group
from rich.text import Text

from mcplock.lock.model import Entry, Pending, ServerEntry
from mcplock.lock.spec import ServerSpec
from mcplock.lock.targets import label
from mcplock.model.documents import is_dynamic
from mcplock.render.schema_tree import as_json, schema_tree
from mcplock.render.text import state_text, where_text
from mcplock.text.untrusted import safe_name, safe_text

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


EXCERPT_LINES = 12  # a document's text in `show` and the review walk: its first lines…
EXCERPT_CHARS = 1500  # …and at most this much of it (a minified bundle is a few lines of 100 kB)
_LINE_CHARS = 200


def _excerpt(all_lines: list[str], indent: str) -> tuple[list[Text], int]:
    """A text's first lines, each cut at ``_LINE_CHARS`` and all together at ``EXCERPT_CHARS``
    (a line cut says how much more it has), and how many characters they show."""
    out: list[Text] = []
    used = 0
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
    return out, used


def _excerpt_note(shown: int, lines: int, used: int, chars: int, indent: str, target: str | None) -> Text:
    """How much of a text an excerpt shows, and the command that prints it all."""
    how = f"`mcplock show {target} --full`" if target else "`mcplock show … --full`"
    return Text(
        f"{indent}… an excerpt: {shown} of {lines} lines, {used} of {chars} characters; {how} prints it all",
        style="dim",
    )


def _text_lines(text: str, indent: str, full: bool, target: str | None) -> list[Text]:
    """A document's text: in full with ``full``, else an excerpt and how to see the rest."""
    all_lines = text.split("\n")
    if full:
        return [Text(indent).append_text(safe_text(line)) for line in all_lines]
    out, used = _excerpt(all_lines, indent)
    if used < len(text.replace("\n", "")) or len(out) < len(all_lines):
        out.append(_excerpt_note(len(out), len(all_lines), used, len(text), indent, target))
    return out


def _description(desc: Any, indent: str) -> list[Text]:
    """A description as text, line by line (one that is not a string as JSON)."""
    text = desc if isinstance(desc, str) else as_json(desc)
    return [
        Text(f"{indent}description:", style="bold"),
        *(Text(indent + "  ").append_text(safe_text(line)) for line in text.split("\n")),
    ]


def _described(d: dict[str, Any], indent: str) -> list[Text]:
    """Title, description (as text, line by line) and the URI fields."""
    lines: list[Text] = []
    if isinstance(d.get("title"), str):
        lines.append(Text(f"{indent}title: ", style="bold").append_text(safe_text(d["title"], keep_newlines=False)))
    if "description" in d:
        lines += _description(d["description"], indent)
    for key in ("uriTemplate", "uri", "mimeType"):
        if key in d:
            lines.append(
                Text(f"{indent}{key}: ", style="bold").append_text(safe_text(as_json(d[key]), keep_newlines=False))
            )
    return lines


def _document(d: dict[str, Any], indent: str, full: bool, target: str | None) -> list[Text]:
    """A document's text (an App's HTML, a SKILL.md): its size, lines and hash, then the text
    escaped, in full or an excerpt; a ``text`` that is not a string as JSON."""
    if "text" not in d:
        return []
    text = d["text"]
    if not isinstance(text, str):
        return [Text(f"{indent}text: ", style="bold").append_text(safe_text(as_json(text), keep_newlines=False))]
    import hashlib

    raw = text.encode("utf-8", "surrogatepass")
    size = Text(f"{indent}text:", style="bold").append(
        f"  ({len(raw)} bytes, {text.count(chr(10)) + 1} lines, sha256:{hashlib.sha256(raw).hexdigest()})",
        style="dim",
    )
    return [size, *_text_lines(text, indent + "  ", full, target)]


def _arguments(arguments: Any, indent: str) -> list[Text]:
    """A prompt's arguments, each required one marked ``*``, with its description (nothing when
    ``arguments`` is not a list)."""
    if not isinstance(arguments, list):
        return []
    return [
        Text(f"{indent}arguments (* required):", style="bold"),
        *(_argument_row(a, indent + "  ") for a in arguments if isinstance(a, dict)),
    ]


def _argument_row(a: dict[str, Any], indent: str) -> Text:
    """A prompt's argument: its name, ``*`` when required, and its description."""
    arg = str(a.get("name")) + ("*" if a.get("required") else "")
    row = Text(indent).append_text(safe_text(arg, keep_newlines=False))
    if isinstance(a.get("description"), str):
        row.append("  — ", style="dim").append_text(safe_text(a["description"], "dim", keep_newlines=False))
    return row


def _annotations(ann: Any, indent: str) -> list[Text]:
    shown = ", ".join(f"{k}={as_json(v)}" for k, v in ann.items()) if isinstance(ann, dict) else as_json(ann)
    return [
        Text(f"{indent}annotations: ", style="bold")
        .append_text(safe_text(shown, keep_newlines=False))
        .append("  (declared by the server; never trusted)", style="dim")
    ]


def _parameters(schema: Any, indent: str) -> list[Text]:
    """A tool's input schema as a tree of parameters."""
    return [Text(f"{indent}parameters (* required):", style="bold"), *schema_tree(schema, indent=indent + "  ")]


def _output_schema(schema: Any, indent: str) -> list[Text]:
    return [Text(f"{indent}output schema:", style="bold"), *schema_tree(schema, indent=indent + "  ")]


# the parts of a definition after its text, in order: (its field, how it reads)
_PARTS: tuple[tuple[str, Callable[[Any, str], list[Text]]], ...] = (
    ("inputSchema", _parameters),
    ("arguments", _arguments),
    ("outputSchema", _output_schema),
    ("annotations", _annotations),
)


def definition_lines(
    kind: str, d: Any, indent: str = "  ", *, full: bool = True, target: str | None = None
) -> list[Text]:
    """``full``: a document's text in full (else an excerpt, ``target`` named for the rest)."""
    if isinstance(d, str):  # instructions
        return [Text(indent).append_text(safe_text(line)) for line in d.split("\n")]
    if not isinstance(d, dict):
        return [Text(indent).append_text(safe_text(as_json(d)))]
    lines = _described(d, indent) + _document(d, indent, full, target)
    for key, part in _PARTS:
        if key in d:
            lines += part(d[key], indent)
    return lines + _other_fields(d, indent)


def _other_fields(d: dict[str, Any], indent: str) -> list[Text]:
    """The fields no part above shows, each as ``key: JSON``, in key order."""
    return [
        Text(indent)
        .append_text(safe_text(str(key), "bold", keep_newlines=False))
        .append(": ", style="bold")
        .append_text(safe_text(as_json(d[key]), keep_newlines=False))
        for key in sorted(set(d) - _SHOWN)
    ]


def _findings(kind: str, d: Any, old: Any, indent: str) -> list[Text]:
    from mcplock.render.diff import finding_row

    try:
        from mcplock.lint import lint_definition
    except ImportError:  # pragma: no cover
        return []
    return [finding_row(f, indent) for f in lint_definition(kind, d, old=old)]


def _flags(e: Entry) -> Text:
    """A tool's ``enabled`` and ``approval``, then any item's review state."""
    flags = Text("  ")
    if e.kind == "tool":
        flags.append("enabled: ").append("yes" if e.enabled else "no", style="green" if e.enabled else "red")
        asks = " (ask before each call)" if e.approval == "always" else " (no prompt)"
        flags.append("   approval: ").append(e.approval + asks)
        flags.append("   ")
    return flags.append("state: ").append_text(state_text(e))


def _dynamic_skill(e: Entry) -> bool:
    """A skill whose newest definition (the pending one, else the accepted) is generated."""
    return e.kind == "skill" and is_dynamic(e.pending.definition if e.pending is not None else e.definition)


def _tampered_warning(srv: ServerEntry, e: Entry) -> list[Text]:
    """A tampered definition is not what was reviewed: which one, and how to get back to one that is."""
    which = "accepted" if e.tampered() else "pending"
    return [
        Text(
            f"  TAMPERED: the {which} definition below does not match its hash (edited by hand or "
            f"tampered with); it is not what was reviewed",
            style="bold red",
        ),
        Text("  restore mcp.lock from git, or run `mcplock refresh ", style="dim")
        .append_text(safe_text(srv.name, "dim", keep_newlines=False))
        .append("` to stage what the server offers and review it", style="dim"),
    ]


def _warnings(srv: ServerEntry, e: Entry) -> list[Text]:
    """What a reader must know before the definitions: a dynamic skill is not pinned, a tampered
    definition is not what was reviewed (and how to get back to one that is)."""
    parts: list[Text] = []
    if _dynamic_skill(e):
        parts.append(
            Text(
                "  dynamic skill: its files are generated by the server and cannot be pinned; only its "
                "entry (URI, frontmatter) is",
                style="yellow",
            )
        )
    if e.tampered() or e.tampered(pending=True):
        parts += _tampered_warning(srv, e)
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
    from mcplock.lint.compare import changed_fields
    from mcplock.render.changes import render_field_change
    from mcplock.render.diff import fields_change

    if isinstance(e.definition, str):
        return render_field_change("text", e.definition, p.definition, color=color, indent="    ", whole=True)
    fields = changed_fields(e.definition, p.definition)  # the change whole: what `show` exists to show
    return fields_change(e.kind, fields, e.definition, p.definition, color=color, indent="    ", whole=True)


def _offered_again(e: Entry, p: Pending) -> bool:
    """The proposal is the accepted definition itself (offered again after it had been rejected)."""
    return p.change == "changed" and p.hash == e.hash and not e.tampered()


def _proposal(srv: ServerEntry, e: Entry, p: Pending, color: bool, full: bool) -> list[Any]:
    """What a pending proposal is: a removal, the accepted definition offered again, a change (as a
    diff from the accepted one) or a new definition in full, with its findings."""
    if p.change == "removed":
        return [Text("    the server no longer offers it; `accept` drops it from the lock", style="dim")]
    if _offered_again(e, p):
        return [
            Text(
                "    the server offers the accepted definition again (it had been rejected); `accept` enables it",
                style="dim",
            )
        ]
    if p.change == "changed" and e.definition is not None:
        return _change_from_accepted(e, p, color) + _findings(e.kind, p.definition, e.definition, "    ")
    return definition_lines(e.kind, p.definition, "    ", full=full, target=_typed(srv, e)) + _findings(
        e.kind, p.definition, None, "    "
    )


def _pending(srv: ServerEntry, e: Entry, p: Pending, *, color: bool, full: bool) -> list[Any]:
    """The pending proposal: its change and hash, then what it is (:func:`_proposal`)."""
    return [
        Text(""),
        Text(f"  pending {p.change}" + (f"  {p.hash}" if p.hash else ""), style="bold yellow"),
        *_proposal(srv, e, p, color, full),
    ]


def render_entry(srv: ServerEntry, e: Entry, *, color: bool = True, full: bool = False) -> list[Any]:
    """``full``: documents (an App's HTML) in full; by default an excerpt, its size and hash, and
    for a change the diff."""
    title = Text(f"{e.kind} ", style="bold").append_text(safe_name(label(srv, e), "bold"))
    parts: list[Any] = [title, _flags(e), *_warnings(srv, e), *_accepted(srv, e, full)]
    if e.pending is not None:
        parts += _pending(srv, e, e.pending, color=color, full=full)
    return parts


def _typed(srv: ServerEntry, e: Entry) -> str:
    from mcplock.text.untrusted import shell_word

    return shell_word(label(srv, e))


def _package_lines(spec: ServerSpec) -> list[Text]:
    """The package the server runs as (or why none is pinned), and the integrity it is pinned to."""
    from mcplock.packages.runs import describe

    lines = [
        Text("  package: ").append_text(safe_text(describe(spec.package, spec.command, spec.args), keep_newlines=False))
    ]
    stored = spec.package.stored() if spec.package is not None else {}
    for k, v in stored.items():
        if k in ("integrity", "tree-integrity"):
            lines += _integrity_lines(k, v)
    return lines


def _integrity_lines(key: str, value: Any) -> list[Text]:
    """A pin's integrity (or tree integrity): a line per value it holds."""
    return [
        Text(f"    {key}: ").append_text(safe_text(str(x), keep_newlines=False))
        for x in (value if isinstance(value, list) else [value])
    ]


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
    lines = [head, Text("  ").append_text(where_text(srv))]
    lines += _package_lines(sp) + _origin_lines(sp)
    if srv.server_info:
        lines.append(_said_line(srv.server_info, srv.protocol_version))
    return lines


def _said_line(server_info: dict[str, Any], protocol: str | None) -> Text:
    """What the server said it is: its name and version, and its protocol version."""
    info = " ".join(str(server_info.get(k, "")) for k in ("name", "version")).strip()
    return (
        Text("  server: ")
        .append_text(safe_text(info, keep_newlines=False))
        .append("  protocol ")
        .append_text(safe_text(protocol or "?", keep_newlines=False))
    )


def render_show(
    srv: ServerEntry, entries: list[Entry], *, whole_server: bool, color: bool = True, full: bool = False
) -> Group:
    parts: list[Any] = _server_lines(srv) if whole_server else []
    for e in entries:
        parts.append(Text(""))
        parts += render_entry(srv, e, color=color, full=full)
    return Group(*parts)
