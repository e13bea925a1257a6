"""Where each value of a JSON text lies: a small parser that reads the text with comments and
trailing commas blanked out (which keeps every offset) into a tree of :class:`Node`, each with
its start and end, an object's members with where each key starts. What the values hold is
``json``'s to read; this says only where they are, for :mod:`jsonedit` to splice at."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

_SCALAR = re.compile(r"-?[0-9.eE+-]+|true|false|null")


@dataclass
class Node:
    kind: str  # "object" | "array" | "scalar"
    start: int
    end: int  # just past the value
    members: list[tuple[str, int, Node]] = field(default_factory=list)  # object: (key, key start, value)
    items: list[Node] = field(default_factory=list)  # array
    _index: dict[str, Node] | None = field(default=None, repr=False, compare=False)

    def member(self, key: str) -> Node | None:
        """The value of the member ``key`` (the last one, where a key repeats, as JSON parsers
        read it); one lookup, not a scan, on an object of thousands of rules."""
        if self._index is None:
            self._index = {k: v for k, _, v in self.members}  # a later duplicate overwrites: the last wins
        return self._index.get(key)


class Parser:
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
