"""An input schema as a tree of parameters, as ``mcplock show`` prints it: each parameter's name
(``*`` when required), type, referenced definition (``$ref`` followed within the schema),
allowed values, limits and description, nested objects indented (four levels at most). Pure:
returns rich ``Text``, all server text through ``safe_text``."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text

from mcplock.text.untrusted import safe_text

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


def as_json(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False, sort_keys=True)


def _follow(ref: str, root: Any) -> Any:
    """The node a local reference (``#/$defs/Point``) names in ``root``; None when there is none."""
    node: Any = root
    for part in ref[2:].split("/"):
        node = node.get(part) if isinstance(node, dict) else None
    return node


def _resolve(schema: Any, root: Any) -> tuple[Any, str | None]:
    """A schema with its ``$ref`` followed (and the name it is shown by): the definition a local
    reference names, else the schema itself with the reference as written."""
    if not (isinstance(schema, dict) and isinstance(schema.get("$ref"), str)):
        return schema, None
    ref = schema["$ref"]
    node = _follow(ref, root) if ref.startswith("#/") else None
    if isinstance(node, dict):
        return node, ref.rsplit("/", 1)[-1]
    return schema, ref


def _untyped(s: dict[str, Any]) -> str:
    """What a schema without a ``type`` holds: its combinator, an enum, else anything."""
    for comb in ("anyOf", "oneOf", "allOf"):
        if isinstance(s.get(comb), list):
            return comb
    return "enum" if "enum" in s else "any"


def _type(s: dict[str, Any]) -> str:
    t = s.get("type")
    if t is None:
        return _untyped(s)
    if isinstance(t, list):
        t = " | ".join(str(x) for x in t)
    if t == "array" and isinstance(s.get("items"), dict):
        inner = s["items"].get("type")
        t = f"array of {inner}" if inner else "array"
    return str(t)


def required_names(schema: dict[str, Any]) -> list[Any]:
    """The parameters an object schema's ``required`` lists (none when it is not a list)."""
    listed = schema.get("required")
    return listed if isinstance(listed, list) else []


def _param_name(name: Any, required: bool, width: int, indent: str) -> Text:
    """A parameter's name, marked ``*`` and bold when required, padded to ``width``."""
    named = safe_text(str(name) + ("*" if required else ""), "bold" if required else "", keep_newlines=False)
    return Text(indent).append_text(named).append(" " * max(1, width - named.cell_len))


def _constraints(row: Text, sub: dict[str, Any]) -> Text:
    """``row`` with what a parameter's schema allows: its values, its limits, then its description."""
    if isinstance(sub.get("enum"), list):
        row.append("  one of ").append_text(safe_text(", ".join(as_json(v) for v in sub["enum"]), keep_newlines=False))
    for key, word in _LIMITS:
        if key in sub:
            row.append(f"  {word} ").append_text(safe_text(as_json(sub[key]), keep_newlines=False))
    desc = sub.get("description")
    if isinstance(desc, str) and desc.strip():
        row.append("  — ", style="dim").append_text(safe_text(desc.strip(), "dim", keep_newlines=False))
    return row


def _param_row(name: Any, sub: Any, refname: str | None, required: list[Any], width: int, indent: str) -> Text:
    """One parameter: its name (``*`` when required), type, referenced definition, allowed values,
    limits and description."""
    row = _param_name(name, name in required, width, indent)
    if not isinstance(sub, dict):
        return row.append_text(safe_text(as_json(sub), keep_newlines=False))
    row.append(_type(sub), style="cyan")
    if refname:
        row.append(" (", style="dim").append_text(safe_text(refname, "dim", keep_newlines=False))
        row.append(")", style="dim")
    return _constraints(row, sub)


def _nested(sub: Any, root: Any, depth: int) -> dict[str, Any] | None:
    """The object a parameter holds (itself, or an array's items), when it has properties to show
    and the tree is not yet four levels deep."""
    if not isinstance(sub, dict) or depth >= 4:
        return None
    nested = sub.get("items") if _type(sub).startswith("array") else sub
    nested, _ = _resolve(nested, root)
    return nested if isinstance(nested, dict) and isinstance(nested.get("properties"), dict) else None


def _properties_tree(schema: dict[str, Any], props: dict[Any, Any], indent: str, root: Any, depth: int) -> list[Text]:
    """A row per property, each followed by the properties of the object it holds."""
    required = required_names(schema)
    width = max(len(str(k)) for k in props) + 2
    lines: list[Text] = []
    for name, sub in props.items():
        sub, refname = _resolve(sub, root)
        lines.append(_param_row(name, sub, refname, required, width, indent))
        nested = _nested(sub, root, depth)
        if nested is not None:
            lines += schema_tree(nested, indent=indent + "  ", root=root, depth=depth + 1)
    if schema.get("additionalProperties") is False:
        lines.append(Text(indent + "(no other properties)", style="dim"))
    return lines


def schema_tree(schema: Any, *, indent: str = "    ", root: Any = None, depth: int = 0) -> list[Text]:
    root = schema if root is None else root
    if not isinstance(schema, dict):
        return [Text(indent).append_text(safe_text(as_json(schema), keep_newlines=False))]
    props = schema.get("properties")
    if not isinstance(props, dict) or not props:
        return [Text(indent + "(no parameters)", style="dim")] if depth == 0 else []
    return _properties_tree(schema, props, indent, root, depth)
