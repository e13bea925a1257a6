"""What every host's importer shares: an entry's typed fields (:class:`Entry`), the transport
rules several hosts have in common, the servers map of a file. One server built from an entry
through its host's :class:`~mcplock.hosts.formats.interface.Importer` is :mod:`mcplock.hosts.imported`.

The hosts' own rules are one module each in :mod:`mcplock.hosts.formats`; the package docstring
(``mcplock.hosts``) lists them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

from mcplock.errors import json_type
from mcplock.hosts.interpolate import host_name
from mcplock.hosts.parse import DupDict, Where
from mcplock.lock.spec import Transport
from mcplock.lock.templates import looks_secret

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TYPES = {
    "stdio": Transport.STDIO,
    "http": Transport.HTTP,
    "streamable-http": Transport.HTTP,
    "streamableHttp": Transport.HTTP,
    "sse": Transport.SSE,
}


class Skip(Exception):
    """The server is not imported; ``str`` is the reason shown to the user."""


def _first_dup(obj: object) -> str | None:
    """The first key a JSON object has twice (None: none, or an object read without keeping
    duplicates)."""
    return obj.dups[0] if isinstance(obj, DupDict) and obj.dups else None


# --- field access with type checks --------------------------------------------------------


class Entry:
    """One server's raw object, with typed accessors that raise ConfigError naming file and line."""

    def __init__(self, where: Where, keys: tuple[str, ...], name: str, raw: dict[str, Any]) -> None:
        self.where, self.keys, self.name, self.raw = where, keys, name, raw
        dup = _first_dup(raw)
        if dup is not None:
            raise where.error(
                f"server `{name}`: key `{dup}` appears twice",
                (*keys, dup, dup),
                hint="keep one of them; the host silently uses the last one",
            )

    def has(self, key: str) -> bool:
        return self.raw.get(key) is not None

    def bad(self, key: str, want: str, got: object) -> Exception:
        return self.where.error(
            f"server `{self.name}`: `{key}` must be {want}, not {json_type(got)}",
            (*self.keys, key),
            hint=f"fix `{key}` in this server's entry; the host expects {want} there too",
        )

    def string(self, key: str) -> str | None:
        v = self.raw.get(key)
        if v is None or isinstance(v, str):
            return v
        raise self.bad(key, "a string", v)

    def flag(self, key: str) -> bool | None:
        v = self.raw.get(key)
        if v is None or isinstance(v, bool):
            return v
        raise self.bad(key, "true or false", v)

    def str_list(self, key: str) -> list[str]:
        v = self.raw.get(key)
        if v is None:
            return []
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise self.bad(key, "a list of strings", _first_wrong(v))
        return list(v)

    def str_map(self, key: str) -> dict[str, str]:
        v = self.raw.get(key)
        if v is None:
            return {}
        if not isinstance(v, dict):
            raise self.bad(key, "an object of strings", v)
        dup = _first_dup(v)
        if dup is not None:
            raise self.where.error(
                f"server `{self.name}`: `{key}` has the key `{dup}` twice",
                (*self.keys, key, dup, dup),
                hint="keep one of them; the host silently uses the last one",
            )
        self._strings_only(key, v)
        return dict(v)

    def _strings_only(self, key: str, v: dict[str, Any]) -> None:
        """Refuse an object of strings with a value that is no string (naming the first)."""
        for k, x in v.items():
            if not isinstance(x, str):
                raise self.where.error(
                    f"server `{self.name}`: `{key}.{k}` must be a string, not {json_type(x)}",
                    (*self.keys, key, k),
                    hint="quote the value",
                )


def _first_wrong(v: object) -> object:
    """What is wrong in a value that must be a list of strings: the value itself when it is no
    list, else its first item that is no string."""
    if not isinstance(v, list):
        return v
    return next(x for x in v if not isinstance(x, str))


# --- transports ---------------------------------------------------------------------------


def explicit_type(e: Entry) -> Transport | None:
    t = e.string("type")
    if t is None:
        return None
    if t in _TYPES:
        return _TYPES[t]
    if t in ("ws", "websocket"):
        raise Skip(_NO_WS)
    shown = _showable(t) and IDENT.fullmatch(t.replace("-", "_"))
    raise Skip(f"unknown transport type {t!r}" if shown else "unknown transport type")


_NO_WS = "ws transport not supported (mcplock speaks stdio, Streamable HTTP and SSE)"
#: URL schemes mcplock refuses, and why
_REFUSED_SCHEMES = {
    "unix": "unix:// URLs (local sockets and pipes) are not supported",
    "pipe": "pipe:// URLs (local sockets and pipes) are not supported",
    "ws": _NO_WS,
    "wss": _NO_WS,
}


def _showable(word: str) -> bool:
    """Whether a word from a config may be shown in a message: short, and not secret-looking."""
    return len(word) <= 24 and not looks_secret("", word)


def check_url(url: str) -> None:
    if url.startswith("${"):
        return  # a template (e.g. ${DOCS_MCP_URL:-https://…}): checked when the probe expands it
    m = re.match(r"([A-Za-z][A-Za-z0-9+.-]*)://", url)
    scheme = m.group(1).lower() if m else ""
    if scheme in ("http", "https"):
        return
    if scheme in _REFUSED_SCHEMES:
        raise Skip(_REFUSED_SCHEMES[scheme])
    if not url.strip():
        raise Skip("empty url")
    shown = scheme and _showable(scheme)
    raise Skip(f"unsupported URL scheme {scheme!r}" if shown else "url is not an http(s) URL")


def guess_remote(url: str, host: str, warnings: list[str]) -> Transport:
    """Transport of a URL given without a type, for hosts that try Streamable HTTP, then SSE.

    mcplock pins one transport per server, so it cannot fall back at probe time: a URL whose
    path ends in ``/sse`` (the legacy SSE convention) is imported as ``sse``, any other as ``http``.
    """
    path = re.split(r"[?#]", url, maxsplit=1)[0].rstrip("/")
    if path.lower().endswith("/sse"):
        warnings.append(
            f"url without a type ends in /sse: imported as legacy SSE ({host_name(host)} may try Streamable HTTP "
            "first; a lock pins one transport); set the type in the config if the server speaks Streamable HTTP"
        )
        return Transport.SSE
    return Transport.HTTP


# --- the servers map of a file ----------------------------------------------------------------


def servers_map(where: Where, data: Any, keys: tuple[str, ...]) -> Iterator[tuple[str, Entry]]:
    """Walk ``data[keys]`` (an object of server objects), checking its shape."""
    obj = dig(data, keys)
    if obj is None:
        return
    if not isinstance(obj, dict):
        raise where.error(
            f"`{'.'.join(keys)}` must be an object of servers, not {json_type(obj)}",
            keys,
            hint='write it as {"name": {"command": …}} (one key per server)',
        )
    dup = _first_dup(obj)
    if dup is not None:
        raise where.error(
            f"server `{dup}` appears twice in `{'.'.join(keys)}`",
            (*keys, dup, dup),
            hint="remove one of them (a bad merge?); the host silently uses the last one",
        )
    for name, raw in obj.items():
        if not isinstance(raw, dict):
            raise where.error(
                f"server `{name}` must be an object, not {json_type(raw)}",
                (*keys, name),
                hint="each server is an object with command/args/env or url/headers",
            )
        yield name, Entry(where, (*keys, name), name, raw)


def dig(data: Any, keys: tuple[str, ...]) -> Any:
    """``data[keys]``, None where a step is missing or is no object."""
    obj: Any = data
    for k in keys:
        obj = obj.get(k) if isinstance(obj, dict) else None
    return obj


def check_name(name: str) -> str | None:
    """Why a server name cannot be locked, or None."""
    if not name.strip():
        return "empty server name"
    if "/" in name:
        return "server name contains '/', which mcplock uses in SERVER/TOOL targets"
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        return "server name contains control characters"
    return None


def same_path(a: str, b: str | os.PathLike[str]) -> bool:
    def norm(p: str | os.PathLike[str]) -> str:
        try:
            p = os.path.realpath(os.path.expanduser(p))
        except (OSError, ValueError):
            p = os.path.abspath(p)
        return os.path.normcase(os.path.normpath(p))

    return norm(a) == norm(b) or os.path.normpath(a) == os.path.normpath(os.fspath(b))
