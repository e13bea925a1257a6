"""One settings file being edited, JSON/JSONC (:mod:`jsonedit`) or TOML (:mod:`tomledit`),
behind one small API of path-based edits. Each edit says which containers it had to create,
so that the containers mcplock created can be removed again once they are empty."""

from __future__ import annotations

from typing import Any

from mcplock.hosts.export.jsonedit import JsonText
from mcplock.hosts.export.tomledit import TomlText

Path = tuple[str, ...]


class Document:
    def __init__(self, text: str, fmt: str, data: Any = None) -> None:
        """``data``: what ``text`` holds, where the caller parsed it already (None: parsed here)."""
        self.fmt = fmt
        self.original = text
        if fmt == "toml":
            self._toml = TomlText(text, data)
        else:
            self._json = JsonText(text, data)

    @property
    def text(self) -> str:
        if self.fmt == "toml":
            return self._toml.text
        return self._json.text if self._json.text != "{}\n" or self.original.strip() else self.original

    def get(self, path: Path) -> Any:
        return self._toml.get(path) if self.fmt == "toml" else self._json.get(path)

    def _missing(self, path: Path) -> list[Path]:
        return [path[:i] for i in range(1, len(path) + 1) if self.get(path[:i]) is None]

    # --- TOML: line edits where the table has a header, tomlkit for anything else ---------------

    def _tomlkit(self, change: Any) -> None:
        import tomlkit

        doc = tomlkit.parse(self._toml.text)
        change(doc)
        self._toml.text = doc.as_string()

    @staticmethod
    def _walk(doc: Any, path: Path) -> Any:
        import tomlkit

        node = doc
        for k in path:
            if k not in node:
                node[k] = tomlkit.table()
            node = node[k]
        return node

    def _toml_set(self, path: Path, value: Any) -> None:
        t = self._toml
        table, key = path[:-1], path[-1]
        if t.set_in_table(table, key, value):
            return
        anchor = next((table[:i] for i in range(len(table) - 1, 0, -1) if t.has_table(table[:i])), None)
        if anchor is not None and self.get(table) is None:
            t.add_table(table, key, value, after=anchor)
            return
        self._tomlkit(lambda d: self._walk(d, table).__setitem__(key, value))

    def _toml_list(self, path: Path, change: Any) -> None:
        table, key = path[:-1], path[-1]
        if not self._toml.edit_key(table, key, lambda d: change(d[key])):
            self._tomlkit(lambda d: change(self._walk(d, table)[key]))

    # --- the edits --------------------------------------------------------------------------------

    def add_member(self, path: Path, value: str) -> list[Path]:
        created = self._missing(path)
        if self.fmt != "toml":
            self._json.append(path, value)
        elif self.get(path) is None:
            self._toml_set(path, [value])
        else:
            self._toml_list(path, lambda arr: arr.append(value))
        return created

    def remove_member(self, path: Path, value: str) -> None:
        items = self.get(path)
        if not isinstance(items, list) or value not in items:
            return
        i = items.index(value)
        if self.fmt == "toml":
            self._toml_list(path, lambda arr: arr.pop(i))
        else:
            self._json.remove_item(path, i)

    def set_key(self, path: Path, value: Any, before: str | None = None) -> list[Path]:
        """Set the key at ``path``; a new key goes at the end of its object, or (JSON) just
        before its sibling ``before`` where that exists."""
        created = self._missing(path[:-1])
        if before is not None and self.fmt != "toml" and self._json.insert_before(path, value, before):
            return created
        if self.fmt == "toml":
            self._toml_set(path, value)
        else:
            self._json.set(path, value)
        return created

    def delete(self, path: Path) -> None:
        if self.get(path) is None:
            return
        if self.fmt != "toml":
            self._json.delete(path)
        elif not (self._toml.delete_table(path) or self._toml.delete_key(path[:-1], path[-1])) and (
            not isinstance(self.get(path), dict) or self.get(path)
        ):
            self._tomlkit(lambda d: self._walk(d, path[:-1]).__delitem__(path[-1]))

    # --- whole entries, for --guard (JSON hosts) ------------------------------------------------

    def span(self, path: Path) -> str | None:
        return self._json.span(path)

    def replace_span(self, path: Path, raw: str) -> None:
        self._json.replace_span(path, raw)

    def dump(self, value: Any, path: Path) -> str:
        node = self._json.node(path)
        return self._json._dump(value, self._json._line_indent(node.start) if node else "")
