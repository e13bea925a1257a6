"""Edit JSON/JSONC text in place: the user's bytes outside the edited spot stay as they are.

:mod:`jsontree` finds where each value starts and ends; edits splice the original text. New members go
after the last one, in the container's own style (one line or one per line, the file's indent
unit and line ending), so keys keep their order and comments survive.
"""

from __future__ import annotations

import copy
import itertools
import json
import re
from dataclasses import dataclass, field
from typing import Any

from mcplock.hosts.export.jsontree import Node, Parser
from mcplock.hosts.jsonc import to_json

Path = tuple[str, ...]


_UNREAD = object()  # the document's value not read yet


@dataclass
class _Held:
    """The edits held for one container of the text as parsed: members or items to add after
    its last one (``adds``), or the indices of members or items to take out (``drops``) — one
    kind at a time."""

    node: Node
    adds: list[tuple[str | None, Any]] = field(default_factory=list)
    drops: set[int] = field(default_factory=set)


class JsonText:
    """A JSON/JSONC document as text, with path-based edits. The text must already parse.

    The text is parsed once, not once per edit (issue 42.1: an export of thousands of rules,
    and a ``check`` that compares them, read each file once). Adding members or items, taking
    them out and replacing a scalar are held against the text as parsed (what the document
    holds is updated at once) and spliced in together, in one pass, when the text is read or an
    edit needs the text as it is (which then parses it again)."""

    def __init__(self, text: str, data: Any = None) -> None:
        """``data``: what ``text`` holds, where the caller parsed it already (None: parsed when read)."""
        self._set_text(text if text.strip() else "{}\n", _UNREAD if data is None or not text.strip() else data)
        self.nl = "\r\n" if "\r\n" in self._text else "\n"
        self.unit = _indent_unit(self._text)

    @property
    def text(self) -> str:
        self._flush()
        return self._text

    def _set_text(self, value: str, data: Any = _UNREAD) -> None:
        self._text = value
        self._blanked: str | None = None  # the text without comments and trailing commas
        self._tree: Node | None = None  # where each value lies
        self._data: Any = data  # what the whole document holds (with the held edits)
        self._held: dict[int, _Held] = {}  # by the container's start
        self._replaced: dict[int, tuple[Node, str]] = {}  # scalars to replace, by their start

    # --- reading ------------------------------------------------------------------------------

    def _json(self) -> str:
        if self._blanked is None:
            self._blanked = to_json(self._text)
        return self._blanked

    def _root(self) -> Node:
        if self._tree is None:
            self._tree = Parser(self._json()).value()
        return self._tree

    def node(self, path: Path) -> Node | None:
        """Where the value at ``path`` lies in the text as it is (held edits spliced in first)."""
        self._flush()
        return self._parsed_node(path)

    def _parsed_node(self, path: Path) -> Node | None:
        node: Node | None = self._root()
        for key in path:
            if node is None or node.kind != "object":
                return None
            node = node.member(key)
        return node

    def get(self, path: Path) -> Any:
        """The value at ``path`` (None: absent). It is the document's own, shared until the next
        edit: read it, never change it."""
        node: Any = self._value()
        for key in path:
            if not isinstance(node, dict) or key not in node:
                return None
            node = node[key]
        return node

    def _value(self) -> Any:
        if self._data is _UNREAD:
            self._data = json.loads(self._json())
        return self._data

    def span(self, path: Path) -> str | None:
        node = self.node(path)
        return None if node is None else self._text[node.start : node.end]

    # --- held edits ---------------------------------------------------------------------------

    def _holdable(self, path: Path) -> Node | None:
        """The node at ``path`` in the text as parsed, when edits at it can be held: it is there
        and nothing held changed what lies on the way to it (else the held edits are spliced in
        first, and the node is the one in the new text)."""
        node = self._parsed_node(path)
        if (self._held or self._replaced) and not self._agrees(path, node):
            self._flush()
            node = self._parsed_node(path)
        return node

    def _agrees(self, path: Path, node: Node | None) -> bool:
        """Whether the text as parsed still says what the document holds at ``path``: the value
        is there in both or in neither, no container on the way had members taken out, and the
        value itself was not replaced."""
        if (node is None) != (self.get(path) is None):
            return False
        walk: Node | None = self._root()
        for key in path:
            if walk is None or walk.kind != "object":
                break
            held = self._held.get(walk.start)
            if held is not None and held.drops:
                return False
            walk = walk.member(key)
        return node is None or node.start not in self._replaced

    def _hold(self, node: Node, kind: str) -> _Held | None:
        """The held edits of the container ``node`` to add to (``kind`` "adds" or "drops"); None
        when it holds edits of the other kind (then the text is edited as it is first)."""
        held = self._held.get(node.start)
        if held is None:
            held = self._held[node.start] = _Held(node)
        return None if (held.drops if kind == "adds" else held.adds) else held

    def _flush(self) -> None:
        """Splice every held edit into the text, in one pass; what the document holds stays."""
        if not self._held and not self._replaced:
            return
        data = self._data
        splices = [(n.start, n.end, text) for n, text in self._replaced.values()]
        for held in self._held.values():
            if not held.adds and not held.drops:
                continue
            splices += self._added(held.node, held.adds) if held.adds else self._dropped(held.node, held.drops)
        splices.sort(key=lambda s: (s[0], s[1]))
        out, at = [], 0
        for start, end, text in splices:
            assert start >= at, "held edits overlap"
            out += [self._text[at:start], text]
            at = end
        out.append(self._text[at:])
        self._set_text("".join(out), data)

    # --- writing ------------------------------------------------------------------------------

    def _splice(self, start: int, end: int, new: str) -> None:
        """Change the text now (no edit held): it is parsed again when next needed."""
        self._flush()
        self._set_text(self._text[:start] + new + self._text[end:])

    def _line_indent(self, pos: int) -> str:
        line_start = self._text.rfind("\n", 0, pos) + 1
        m = re.match(r"[ \t]*", self._text[line_start:])
        return m.group(0) if m else ""

    def _dump(self, value: Any, indent: str) -> str:
        if isinstance(value, (dict, list)) and not value:
            return "{}" if isinstance(value, dict) else "[]"
        out = json.dumps(value, ensure_ascii=False, indent=self.unit)
        return out.replace("\n", self.nl + indent)

    def _added(self, container: Node, adds: list[tuple[str | None, Any]]) -> list[tuple[int, int, str]]:
        """The splice that adds members (a key each) or items after the last one, in the
        container's own style: one per line with the file's indent, or on one line when the
        container is written on one."""
        children = [v for _, _, v in container.members] if container.kind == "object" else container.items
        pairs = [("" if key is None else json.dumps(key, ensure_ascii=False) + ": ", v) for key, v in adds]
        if self._inline(container, children):
            at = children[-1].end if children else container.start + 1
            compact = [p + json.dumps(v, ensure_ascii=False, separators=(", ", ": ")) for p, v in pairs]
            return [(at, at, (", " if children else "") + ", ".join(compact))]
        if not children:  # the first on its own line, one indent step in
            indent = self._line_indent(container.start)
            child = indent + self.unit
        else:  # the last member's key, or the last item, gives the indent
            child = self._line_indent(container.members[-1][1] if container.kind == "object" else children[-1].start)
        bodies = [(p + self._dump(v, "")).replace(self.nl, self.nl + child) for p, v in pairs]
        if not children:
            joined = ("," + self.nl + child).join(bodies)
            return [(container.start + 1, container.end - 1, self.nl + child + joined + self.nl + indent)]
        at = children[-1].end
        return [(at, at, "".join("," + self.nl + child + b for b in bodies))]

    def _dropped(self, container: Node, drops: set[int]) -> list[tuple[int, int, str]]:
        """The splices that take out the members or items ``drops`` (indices), with their
        separators: a run of them up to the next one kept, or, at the end, from the one kept
        before; all of them, the container's inside."""
        spans = (
            [(s, v.end) for _, s, v in container.members]
            if container.kind == "object"
            else [(n.start, n.end) for n in container.items]
        )
        if len(drops) == len(spans):
            return [(container.start + 1, container.end - 1, "")]
        out = []
        for a, b in _runs(sorted(drops)):
            if b + 1 < len(spans):
                out.append((spans[a][0], spans[b + 1][0], ""))
            else:
                out.append((spans[a - 1][1], spans[b][1], ""))
        return out

    def _inline(self, container: Node, children: list[Node]) -> bool:
        """Whether ``container`` is written on one line: no line break before its first member
        (an object's key) or item; an empty one, when more follows it on its line."""
        first = container.members[0][1] if container.kind == "object" and children else None
        first = children[0].start if first is None and children else first
        if first is not None:
            return "\n" not in self._text[container.start : first]
        line_end = self._text.find("\n", container.end)
        after = self._text[container.end : len(self._text) if line_end < 0 else line_end].strip().lstrip(",").strip()
        return bool(after)

    def _add(self, container: Node, path: Path, key: str | None, value: Any) -> None:
        """Add a member (``key``) or item to the container at ``path``: held, or at once when
        the container holds edits of the other kind."""
        held = self._hold(container, "adds")
        if held is None:
            self._flush()
            fresh = self._parsed_node(path)
            assert fresh is not None
            held = self._hold(fresh, "adds")
            assert held is not None
        held.adds.append((key, value))
        target = self.get(path)
        if key is None:
            target.append(copy.deepcopy(value))
        else:
            target[key] = copy.deepcopy(value)

    def set(self, path: Path, value: Any) -> None:
        """Set ``path`` to ``value``: replace the value in place, or add the key at the end of
        its object (creating the objects on the way)."""
        node = self._holdable(path)
        if node is not None:
            self._replace(node, path, value)
            return
        parent = self.ensure_object(path[:-1])
        self._add(parent, path[:-1], path[-1], value)

    def _replace(self, node: Node, path: Path, value: Any) -> None:
        """The value at ``path`` (``node``) replaced: held for a scalar, else now."""
        rendered = self._dump(value, self._line_indent(node.start))
        if node.kind != "scalar" or not path:
            self._splice(node.start, node.end, rendered)
            return
        self._replaced[node.start] = (node, rendered)
        self.get(path[:-1])[path[-1]] = copy.deepcopy(value)

    def replace_span(self, path: Path, raw: str) -> None:
        """The value at ``path`` replaced with the text ``raw``, now."""
        node = self.node(path)
        if node is not None:
            self._splice(node.start, node.end, raw)

    def insert_before(self, path: Path, value: Any, before: str) -> bool:
        """Add the key ``path[-1]`` just before the member ``before`` of its object, in the
        object's own layout; False when there is no such member (nothing changed)."""
        parent = self.node(path[:-1])
        if parent is None or parent.kind != "object" or self.node(path) is not None:
            return False
        for i, (k, start, _v) in enumerate(parent.members):
            if k != before:
                continue
            lead = self._text[parent.members[i - 1][2].end if i else parent.start + 1 : start]
            ws = lead[len(lead.rstrip(" \t\r\n")) :] or " "
            rendered = json.dumps(path[-1], ensure_ascii=False) + ": " + self._dump(value, self._line_indent(start))
            self._splice(start, start, rendered + "," + ws)
            return True
        return False

    def ensure_object(self, path: Path) -> Node:
        """The object at ``path``, created (empty) with its parents where missing."""
        node = self._holdable(path)
        if node is None:
            self.set(path, {})
            node = self._holdable(path)
        if node is None or node.kind != "object":
            raise ValueError("not an object")
        return node

    def append(self, path: Path, value: Any) -> None:
        node = self._holdable(path)
        if node is None:
            self.set(path, [])
            node = self._holdable(path)
        assert node is not None and node.kind == "array"
        self._add(node, path, None, value)

    def remove_item(self, path: Path, index: int) -> None:
        """Take out the item ``index`` (of the list as the document holds it now)."""
        node = self._holdable(path)
        assert node is not None and node.kind == "array"
        held = self._hold(node, "drops")
        if held is None:  # items were added: edit the text as it is
            self._flush()
            node = self._parsed_node(path)
            assert node is not None
            held = self._hold(node, "drops")
            assert held is not None
        kept = (i for i in range(len(node.items)) if i not in held.drops)
        held.drops.add(next(itertools.islice(kept, index, None)))
        self.get(path).pop(index)

    def delete(self, path: Path) -> None:
        parent = self._holdable(path[:-1])
        if parent is None or parent.kind != "object":
            return
        idx = [i for i, (k, _, _) in enumerate(parent.members) if k == path[-1]]
        if not idx:
            return
        held = self._hold(parent, "drops")
        if len(idx) > 1 or held is None or self._edits_in(parent.members[idx[-1]][2]):
            # a repeated key (an earlier one then holds), members were added, or edits are held
            # inside the value: edit the text as it is
            self._flush()
            self._delete_now(path)
            return
        held.drops.add(idx[-1])
        del self.get(path[:-1])[path[-1]]

    def _edits_in(self, node: Node) -> bool:
        """Whether edits are held at ``node`` or inside it."""
        return any(node.start <= at < node.end for at in (*self._held, *self._replaced))

    def _delete_now(self, path: Path) -> None:
        parent = self._parsed_node(path[:-1])
        assert parent is not None
        idx = [i for i, (k, _, _) in enumerate(parent.members) if k == path[-1]]
        for start, end, text in self._dropped(parent, {idx[-1]}):
            self._splice(start, end, text)


def _runs(indices: list[int]) -> list[tuple[int, int]]:
    """Sorted indices as runs of consecutive ones: (first, last) each."""
    out: list[tuple[int, int]] = []
    for i in indices:
        if out and out[-1][1] == i - 1:
            out[-1] = (out[-1][0], i)
        else:
            out.append((i, i))
    return out


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
