"""Edit JSON/JSONC text in place: the user's bytes outside the edited spot stay as they are.

A small parser finds where each value starts and ends (on the text with comments and trailing
commas blanked out, which keeps every offset); edits splice the original text. New members go
after the last one, in the container's own style (one line or one per line, the file's indent
unit and line ending), so keys keep their order and comments survive.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, field
from typing import Any

from mcplock.hosts.jsonc import to_json

Path = tuple[str, ...]


@dataclass
class Node:
    kind: str  # "object" | "array" | "scalar"
    start: int
    end: int  # just past the value
    members: list[tuple[str, int, Node]] = field(default_factory=list)  # object: (key, key start, value)
    items: list[Node] = field(default_factory=list)  # array


class _Parser:
    def __init__(self, text: str) -> None:
        self.t, self.i = text, 0

    def ws(self) -> None:
        while self.i < len(self.t) and self.t[self.i] in " \t\r\n":
            self.i += 1

    def value(self) -> Node:
        self.ws()
        start, c = self.i, self.t[self.i]
        if c == "{":
            node = self._object(start)
        elif c == "[":
            node = self._array(start)
        elif c == '"':
            self.string()
            node = Node("scalar", start, start)
        else:
            m = _SCALAR.match(self.t, self.i)
            self.i = m.end() if m else self.i + 1
            node = Node("scalar", start, start)
        node.end = self.i
        return node

    def _object(self, start: int) -> Node:
        """The object that opens at ``start``: its members, with where each key starts."""
        node = Node("object", start, start)
        self.i += 1
        self.ws()
        while self.t[self.i] != "}":
            kstart = self.i
            key = self.string()
            self.ws()
            self.i += 1  # ':'
            node.members.append((key, kstart, self.value()))
            self._past_comma()
        self.i += 1
        return node

    def _array(self, start: int) -> Node:
        """The array that opens at ``start``: its items."""
        node = Node("array", start, start)
        self.i += 1
        self.ws()
        while self.t[self.i] != "]":
            node.items.append(self.value())
            self._past_comma()
        self.i += 1
        return node

    def _past_comma(self) -> None:
        """Past the white space after a member or item, and its comma (and the white space after it)."""
        self.ws()
        if self.t[self.i] == ",":
            self.i += 1
            self.ws()

    def string(self) -> str:
        j = self.i + 1
        while self.t[j] != '"':
            j += 2 if self.t[j] == "\\" else 1
        s: str = json.loads(self.t[self.i : j + 1])  # a JSON string literal decodes to a str
        self.i = j + 1
        return s


_SCALAR = re.compile(r"-?[0-9.eE+-]+|true|false|null")


class JsonText:
    """A JSON/JSONC document as text, with path-based edits. The text must already parse."""

    def __init__(self, text: str) -> None:
        self.text = text if text.strip() else "{}\n"
        self.nl = "\r\n" if "\r\n" in self.text else "\n"
        self.unit = _indent_unit(self.text)

    # --- reading ------------------------------------------------------------------------------

    def _root(self) -> Node:
        return _Parser(to_json(self.text)).value()

    def node(self, path: Path) -> Node | None:
        node: Node | None = self._root()
        for key in path:
            if node is None or node.kind != "object":
                return None
            node = next((v for k, _, v in reversed(node.members) if k == key), None)
        return node

    def get(self, path: Path) -> Any:
        node = self.node(path)
        return None if node is None else json.loads(to_json(self.text[node.start : node.end]))

    def span(self, path: Path) -> str | None:
        node = self.node(path)
        return None if node is None else self.text[node.start : node.end]

    # --- writing ------------------------------------------------------------------------------

    def _splice(self, start: int, end: int, new: str) -> None:
        self.text = self.text[:start] + new + self.text[end:]

    def _line_indent(self, pos: int) -> str:
        line_start = self.text.rfind("\n", 0, pos) + 1
        m = re.match(r"[ \t]*", self.text[line_start:])
        return m.group(0) if m else ""

    def _dump(self, value: Any, indent: str) -> str:
        if isinstance(value, (dict, list)) and not value:
            return "{}" if isinstance(value, dict) else "[]"
        out = json.dumps(value, ensure_ascii=False, indent=self.unit)
        return out.replace("\n", self.nl + indent)

    def _insert(self, container: Node, key: str | None, value: Any) -> None:
        """Add one member (``key``) or item after the last one, in the container's own style: one
        per line with the file's indent, or on one line when the container is written on one."""
        children = [v for _, _, v in container.members] if container.kind == "object" else container.items
        prefix = "" if key is None else json.dumps(key, ensure_ascii=False) + ": "
        if self._inline(container, children):
            self._insert_inline(
                container, children, prefix + json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
            )
            return
        if not children:
            self._insert_first(container, prefix, value)
            return
        # the last member's key, or the last item, gives the indent
        child = self._line_indent(container.members[-1][1] if container.kind == "object" else children[-1].start)
        rendered = (prefix + self._dump(value, "")).replace(self.nl, self.nl + child)
        self._splice(children[-1].end, children[-1].end, "," + self.nl + child + rendered)

    def _insert_inline(self, container: Node, children: list[Node], compact: str) -> None:
        """Add a member or item, written ``compact``, to a container written on one line."""
        at = children[-1].end if children else container.start + 1
        self._splice(at, at, (", " if children else "") + compact)

    def _insert_first(self, container: Node, prefix: str, value: Any) -> None:
        """Add the first member or item to an empty container written over lines: on its own
        line, one indent step in."""
        indent = self._line_indent(container.start)
        child = indent + self.unit
        body = (prefix + self._dump(value, "")).replace(self.nl, self.nl + child)
        self._splice(container.start + 1, container.end - 1, self.nl + child + body + self.nl + indent)

    def _inline(self, container: Node, children: list[Node]) -> bool:
        """Whether ``container`` is written on one line: no line break before its first member
        (an object's key) or item; an empty one, when more follows it on its line."""
        first = container.members[0][1] if container.kind == "object" and children else None
        first = children[0].start if first is None and children else first
        if first is not None:
            return "\n" not in self.text[container.start : first]
        line_end = self.text.find("\n", container.end)
        after = self.text[container.end : len(self.text) if line_end < 0 else line_end].strip().lstrip(",").strip()
        return bool(after)

    def set(self, path: Path, value: Any) -> None:
        """Set ``path`` to ``value``: replace the value in place, or add the key at the end of
        its object (creating the objects on the way)."""
        node = self.node(path)
        if node is not None:
            self._splice(node.start, node.end, self._dump(value, self._line_indent(node.start)))
            return
        parent = self.ensure_object(path[:-1])
        self._insert(parent, path[-1], value)

    def insert_before(self, path: Path, value: Any, before: str) -> bool:
        """Add the key ``path[-1]`` just before the member ``before`` of its object, in the
        object's own layout; False when there is no such member (nothing changed)."""
        parent = self.node(path[:-1])
        if parent is None or parent.kind != "object" or self.node(path) is not None:
            return False
        for i, (k, start, _v) in enumerate(parent.members):
            if k != before:
                continue
            lead = self.text[parent.members[i - 1][2].end if i else parent.start + 1 : start]
            ws = lead[len(lead.rstrip(" \t\r\n")) :] or " "
            rendered = json.dumps(path[-1], ensure_ascii=False) + ": " + self._dump(value, self._line_indent(start))
            self._splice(start, start, rendered + "," + ws)
            return True
        return False

    def ensure_object(self, path: Path) -> Node:
        """The object at ``path``, created (empty) with its parents where missing."""
        node = self.node(path)
        if node is None:
            self.set(path, {})
            node = self.node(path)
        if node is None or node.kind != "object":
            raise ValueError("not an object")
        return node

    def append(self, path: Path, value: Any) -> None:
        node = self.node(path)
        if node is None:
            self.set(path, [])
            node = self.node(path)
        assert node is not None and node.kind == "array"
        self._insert(node, None, value)

    def remove_item(self, path: Path, index: int) -> None:
        node = self.node(path)
        assert node is not None and node.kind == "array"
        self._remove(node, [(n.start, n.end) for n in node.items], index)

    def delete(self, path: Path) -> None:
        parent = self.node(path[:-1])
        if parent is None or parent.kind != "object":
            return
        spans = [(s, v.end) for _, s, v in parent.members]
        idx = [i for i, (k, _, _) in enumerate(parent.members) if k == path[-1]]
        if idx:
            self._remove(parent, spans, idx[-1])

    def _remove(self, container: Node, spans: list[tuple[int, int]], index: int) -> None:
        start, end = spans[index]
        if len(spans) == 1:
            self._splice(container.start + 1, container.end - 1, "")
        elif index + 1 < len(spans):
            self._splice(start, spans[index + 1][0], "")
        else:
            self._splice(spans[index - 1][1], end, "")


def _indent_unit(text: str) -> str:
    """The file's indent step: the first indented line's indent minus its parent line's."""
    lines = text.splitlines()
    for prev, line in itertools.pairwise(lines):
        if prev.rstrip().endswith(("{", "[")) and line.strip():
            p = prev[: len(prev) - len(prev.lstrip(" \t"))]  # its indentation
            c = line[: len(line) - len(line.lstrip(" \t"))]
            if c.startswith(p) and len(c) > len(p):
                return c[len(p) :]
    return "  "
