"""The lock's TOML tables read with a type each, every problem a :class:`LockfileError` that names
the file, the line of the table (:mod:`mcplock.lock.headers`) and the fix: :class:`Tables`, the
base of the lock's reader (:mod:`mcplock.lock.read`)."""

from __future__ import annotations

import os
import re
from typing import Any

from mcplock.errors import LockfileError
from mcplock.lock import codec
from mcplock.lock.hashing import is_hash
from mcplock.lock.headers import header_lines

REGEN_HINT = "fix the line by hand, or restore the file from git (`git checkout -- {name}`), then run `mcplock check`"


class Tables:
    """Typed access to the tables of one lock text (``path`` names it in errors)."""

    def __init__(self, text: str, path: str) -> None:
        self.text = text
        self.path = path
        self._lines: dict[tuple[str, ...], int] | None = None
        self.notes: list[tuple[tuple[str, ...], str]] = []

    def line_of(self, table: tuple[str, ...]) -> int | None:
        if self._lines is None:
            self._lines = header_lines(self.text)
        while table:
            if table in self._lines:
                return self._lines[table]
            table = table[:-1]
        return None

    def fail(self, table: tuple[str, ...], message: str, hint: str | None = None) -> LockfileError:
        name = os.path.basename(self.path)
        return LockfileError(
            message, path=self.path, line=self.line_of(table), hint=hint or REGEN_HINT.format(name=name)
        )

    def _where(self, table: tuple[str, ...]) -> str:
        return "[" + ".".join(shown_key(k) for k in table) + "]" if table else "the top level"

    def get(
        self, t: dict[str, Any], table: tuple[str, ...], key: str, typ: type | tuple[type, ...], default: Any = None
    ) -> Any:
        if key not in t:
            return default
        v = t[key]
        if not _is_a(v, typ):
            raise self.fail(
                table, f"`{key}` in {self._where(table)} must be {_article(_type_names(typ))}, not {type(v).__name__}"
            )
        return v

    def check_keys(self, t: dict[str, Any], table: tuple[str, ...], allowed: set[str] | frozenset[str]) -> None:
        for k in t:
            if k not in allowed:
                raise self.fail(table, f"unknown key `{k}` in {self._where(table)}")

    def str_map(self, t: dict[str, Any], table: tuple[str, ...], key: str) -> dict[str, str]:
        m = self.get(t, table, key, dict, {})
        for k, v in m.items():
            if not isinstance(v, str):
                raise self.fail(table, f"`{key}.{k}` in {self._where(table)} must be a string")
        return dict(m)

    def hash_value(self, t: dict[str, Any], table: tuple[str, ...], key: str) -> str | None:
        v: str | None = self.get(t, table, key, str)
        if v is not None and not is_hash(v):
            raise self.fail(table, f"`{key}` in {self._where(table)} is not a `sha256:` + 64 hex digits hash")
        return v


def _is_a(v: Any, typ: type | tuple[type, ...]) -> bool:
    """Whether ``v`` is of the TOML type asked for (a boolean is not an integer here)."""
    return isinstance(v, typ) and not (typ is int and isinstance(v, bool))


def _type_names(typ: type | tuple[type, ...]) -> str:
    return typ.__name__ if isinstance(typ, type) else " or ".join(x.__name__ for x in typ)


def _article(names: str) -> str:
    words = {
        "str": "a string",
        "int": "an integer",
        "bool": "a boolean (true/false)",
        "dict": "a table",
        "list": "a list",
    }
    return " or ".join(words.get(n, n) for n in names.split(" or "))


_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def shown_key(k: str) -> str:
    return k if _BARE.match(k) else codec.toml_basic(k)
