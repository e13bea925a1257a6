"""One settings file being edited, JSON/JSONC (:mod:`jsonedit`) or TOML (tomlkit), behind one
small API of path-based edits. Each edit says which containers it had to create, so that the
containers mcplock created can be removed again when they are empty."""

from __future__ import annotations

from typing import Any

from mcplock.hosts.export.jsonedit import JsonText

Path = tuple[str, ...]


class Document:
    def __init__(self, text: str, fmt: str) -> None:
        self.fmt = fmt
        if fmt == "toml":
            import tomlkit

            self._toml = tomlkit.parse(text)
        else:
            self._json = JsonText(text)
        self.original = text

    @property
    def text(self) -> str:
        if self.fmt == "toml":
            out = self._toml.as_string()
            tail = len(self.original) - len(self.original.rstrip("\n"))
            return out.rstrip("\n") + "\n" * max(tail, 1) if out.strip() else out
        return self._json.text if self._json.text != "{}\n" or self.original.strip() else self.original

    def get(self, path: Path) -> Any:
        if self.fmt != "toml":
            return self._json.get(path)
        node: Any = self._toml
        for k in path:
            if not hasattr(node, "get") or k not in node:
                return None
            node = node[k]
        return node.unwrap() if hasattr(node, "unwrap") else node

    def _missing(self, path: Path) -> list[Path]:
        return [path[:i] for i in range(1, len(path) + 1) if self.get(path[:i]) is None]

    def _toml_container(self, path: Path, last: Any) -> Any:
        import tomlkit

        node: Any = self._toml
        for i, k in enumerate(path):
            if k not in node:
                if i == len(path) - 1:
                    node[k] = last
                elif i == len(path) - 2 and len(path) >= 4:
                    node[k] = tomlkit.table(is_super_table=True)
                else:
                    node[k] = tomlkit.table()
            node = node[k]
        return node

    def add_member(self, path: Path, value: str) -> list[Path]:
        created = self._missing(path)
        if self.fmt == "toml":
            import tomlkit

            self._toml_container(path, tomlkit.array()).append(value)
        else:
            self._json.append(path, value)
        return created

    def remove_member(self, path: Path, value: str) -> None:
        items = self.get(path)
        if not isinstance(items, list) or value not in items:
            return
        i = items.index(value)
        if self.fmt == "toml":
            self._toml_container(path, None).pop(i)
        else:
            self._json.remove_item(path, i)

    def set_key(self, path: Path, value: str) -> list[Path]:
        created = self._missing(path[:-1])
        if self.fmt == "toml":
            import tomlkit

            self._toml_container(path[:-1], tomlkit.table())[path[-1]] = value
        else:
            self._json.set(path, value)
        return created

    def delete(self, path: Path) -> None:
        if self.get(path) is None:
            return
        if self.fmt == "toml":
            parent = self._toml_container(path[:-1], None)
            del parent[path[-1]]
        else:
            self._json.delete(path)

    # --- whole entries, for --guard (JSON hosts) ------------------------------------------------

    def span(self, path: Path) -> str | None:
        return self._json.span(path)

    def replace_span(self, path: Path, raw: str) -> None:
        node = self._json.node(path)
        if node is not None:
            self._json._splice(node.start, node.end, raw)

    def dump(self, value: Any, path: Path) -> str:
        node = self._json.node(path)
        return self._json._dump(value, self._json._line_indent(node.start) if node else "")
