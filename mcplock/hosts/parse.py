"""Reading a host config file: bytes → text → JSON/JSONC or TOML data, with line numbers.

Every failure becomes a :class:`~mcplock.errors.ConfigError` whose message names the
file (and the line where one is known) and never quotes a value from the file.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcplock.errors import ConfigError
from mcplock.hosts.jsonc import JsoncError, to_json
from mcplock.model.files import NotRegularFile, TooLarge, read_bounded

MAX_BYTES = 32 * 1024 * 1024  # ~/.claude.json grows, but not this big


class DupDict(dict[str, Any]):
    """A JSON object that remembers keys it saw more than once (the last one wins, like JS)."""

    dups: tuple[str, ...] = ()


def _pairs(pairs: list[tuple[str, Any]]) -> DupDict:
    d = DupDict()
    dups: list[str] = []
    for k, v in pairs:
        if k in d and k not in dups:
            dups.append(k)
        d[k] = v
    if dups:
        d.dups = tuple(dups)
    return d


def read_text(path: Path, shown: str) -> str:
    """A host config's text: at most :data:`MAX_BYTES` of UTF-8 (a BOM dropped); what cannot be
    read so is refused."""
    raw = _read_bytes(path, shown)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise ConfigError(f"{shown}:{line}: not UTF-8 text", hint="save the file as UTF-8") from None


def _read_bytes(path: Path, shown: str) -> bytes:
    """A host config's bytes; a directory, a missing or unreadable file, one larger than
    :data:`MAX_BYTES` is refused."""
    hint = "give the path of a host config such as .mcp.json, .vscode/mcp.json or ~/.codex/config.toml"
    try:
        if path.is_dir():
            raise ConfigError(f"{shown}: is a directory, not a config file", hint=hint)
        raw = read_bounded(path, MAX_BYTES)
    except TooLarge:
        raise ConfigError(
            f"{shown}: larger than {MAX_BYTES // (1024 * 1024)} MiB, not a host config", hint=hint
        ) from None
    except NotRegularFile as e:
        raise ConfigError(f"{shown}: {e.strerror}", hint=hint) from None
    except FileNotFoundError:
        raise ConfigError(f"{shown}: no such file", hint=hint) from None
    except PermissionError:
        raise ConfigError(f"{shown}: permission denied", hint="make the file readable by this user") from None
    except OSError as e:
        raise ConfigError(f"{shown}: cannot read: {e.strerror or type(e).__name__}", hint=hint) from None
    if len(raw) > MAX_BYTES:
        raise ConfigError(f"{shown}: larger than {MAX_BYTES // (1024 * 1024)} MiB, not a host config", hint=hint)
    return raw


def parse_json(text: str, shown: str) -> Any:
    """Parse JSON, accepting JSONC comments and trailing commas (VS Code, Gemini CLI write them)."""
    try:
        cleaned = to_json(text)
    except JsoncError as e:
        raise ConfigError(f"{shown}:{e.line}: invalid JSON: {e}", hint="close the comment with */") from None
    try:
        return json.loads(cleaned, object_pairs_hook=_pairs)
    except json.JSONDecodeError as e:
        raise ConfigError(
            f"{shown}:{e.lineno}: invalid JSON: {e.msg} (column {e.colno})",
            hint="fix the syntax at that line; the host cannot read this file either",
        ) from None
    except RecursionError:
        raise ConfigError(f"{shown}: invalid JSON: nested too deeply", hint="this is not a host config") from None


_TOML_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")
_TOML_END = re.compile(r"\s*\(at end of document\)\s*$")


def parse_toml(text: str, shown: str) -> Any:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        line: int | None = None
        col = ""
        if m := _TOML_AT.search(msg):
            line, col = int(m.group(1)), f" (column {m.group(2)})"
            msg = msg[: m.start()]
        elif m := _TOML_END.search(msg):
            line = max(1, len(text.splitlines()))
            msg = msg[: m.start()] + " at end of file"
        where = f"{shown}:{line}" if line else shown
        raise ConfigError(
            f"{where}: invalid TOML: {msg}{col}",
            hint="fix the syntax at that line; the host cannot read this file either",
        ) from None


def parse(text: str, shown: str, fmt: str) -> Any:
    return parse_toml(text, shown) if fmt == "toml" else parse_json(text, shown)


@dataclass
class Where:
    """Finds the (approximate) line of a key path in the file's text, for error messages."""

    shown: str
    text: str
    fmt: str

    def line(self, keys: tuple[str, ...]) -> int | None:
        pos, found = 0, None
        for k in keys:
            if self.fmt == "toml":
                pat = r'(?m)(?:^|[\s.\[{,])(?P<k>["\']?' + re.escape(k) + r'["\']?)\s*(?:=|\]|\.)'
            else:
                pat = "(?P<k>" + re.escape(json.dumps(k, ensure_ascii=False)) + r")\s*:"
            m = re.compile(pat).search(self.text, pos)
            if not m:
                break
            pos = m.end("k")
            found = self.text.count("\n", 0, m.start("k")) + 1
        return found

    def prefix(self, keys: tuple[str, ...]) -> str:
        line = self.line(keys) if keys else None
        return f"{self.shown}:{line}: " if line else f"{self.shown}: "

    def error(self, message: str, keys: tuple[str, ...] = (), *, hint: str | None = None) -> ConfigError:
        return ConfigError(self.prefix(keys) + message, hint=hint)
