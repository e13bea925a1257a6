"""One importer per host config format: raw entries → :class:`ImportedServer` or a skip reason.

See the package docstring (``mcplock.hosts``) for the transport rules of each host.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

from mcplock.errors import json_type
from mcplock.hosts.interpolate import Unsupported, convert, host_name
from mcplock.hosts.model import ImportedServer
from mcplock.hosts.parse import DupDict, Where
from mcplock.hosts.secrets import Secrets
from mcplock.spec import ServerSpec, looks_secret

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TYPES = {"stdio": "stdio", "http": "http", "streamable-http": "http", "streamableHttp": "http", "sse": "sse"}


class Skip(Exception):
    """The server is not imported; ``str`` is the reason shown to the user."""


# --- field access with type checks --------------------------------------------------------


class Entry:
    """One server's raw object, with typed accessors that raise ConfigError naming file and line."""

    def __init__(self, where: Where, keys: tuple[str, ...], name: str, raw: dict[str, Any]) -> None:
        self.where, self.keys, self.name, self.raw = where, keys, name, raw
        if isinstance(raw, DupDict) and raw.dups:
            raise where.error(
                f"server `{name}`: key `{raw.dups[0]}` appears twice",
                (*keys, raw.dups[0], raw.dups[0]),
                hint="keep one of them; the host silently uses the last one",
            )

    def has(self, key: str) -> bool:
        return self.raw.get(key) is not None

    def _bad(self, key: str, want: str, got: object) -> Exception:
        return self.where.error(
            f"server `{self.name}`: `{key}` must be {want}, not {json_type(got)}",
            (*self.keys, key),
            hint=f"fix `{key}` in this server's entry; the host expects {want} there too",
        )

    def string(self, key: str) -> str | None:
        v = self.raw.get(key)
        if v is None or isinstance(v, str):
            return v
        raise self._bad(key, "a string", v)

    def flag(self, key: str) -> bool | None:
        v = self.raw.get(key)
        if v is None or isinstance(v, bool):
            return v
        raise self._bad(key, "true or false", v)

    def str_list(self, key: str) -> list[str]:
        v = self.raw.get(key)
        if v is None:
            return []
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            bad = v if not isinstance(v, list) else next(x for x in v if not isinstance(x, str))
            raise self._bad(key, "a list of strings", bad)
        return list(v)

    def str_map(self, key: str) -> dict[str, str]:
        v = self.raw.get(key)
        if v is None:
            return {}
        if not isinstance(v, dict):
            raise self._bad(key, "an object of strings", v)
        if isinstance(v, DupDict) and v.dups:
            raise self.where.error(
                f"server `{self.name}`: `{key}` has the key `{v.dups[0]}` twice",
                (*self.keys, key, v.dups[0], v.dups[0]),
                hint="keep one of them; the host silently uses the last one",
            )
        for k, x in v.items():
            if not isinstance(x, str):
                raise self.where.error(
                    f"server `{self.name}`: `{key}.{k}` must be a string, not {json_type(x)}",
                    (*self.keys, key, k),
                    hint="quote the value",
                )
        return dict(v)


# --- transports ---------------------------------------------------------------------------


def _explicit_type(e: Entry, host: str) -> str | None:
    t = e.string("type")
    if t is None:
        return None
    if t in _TYPES:
        return _TYPES[t]
    if t in ("ws", "websocket"):
        raise Skip("ws transport not supported (mcplock speaks stdio, Streamable HTTP and SSE)")
    shown = len(t) <= 24 and _IDENT.fullmatch(t.replace("-", "_")) and not looks_secret("", t)
    raise Skip(f"unknown transport type {t!r}" if shown else "unknown transport type")


def _check_url(url: str) -> None:
    if url.startswith("${"):
        return  # a template (e.g. ${DOCS_MCP_URL:-https://…}): checked when the probe expands it
    m = re.match(r"([A-Za-z][A-Za-z0-9+.-]*)://", url)
    scheme = m.group(1).lower() if m else ""
    if scheme in ("http", "https"):
        return
    if scheme in ("unix", "pipe"):
        raise Skip(f"{scheme}:// URLs (local sockets and pipes) are not supported")
    if scheme in ("ws", "wss"):
        raise Skip("ws transport not supported (mcplock speaks stdio, Streamable HTTP and SSE)")
    if not url.strip():
        raise Skip("empty url")
    shown = scheme and len(scheme) <= 24 and not looks_secret("", scheme)
    raise Skip(f"unsupported URL scheme {scheme!r}" if shown else "url is not an http(s) URL")


def _guess_remote(url: str, host: str, warnings: list[str]) -> str:
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
        return "sse"
    return "http"


def _transport(e: Entry, host: str, warnings: list[str]) -> tuple[str, str | None]:
    """(transport, url) of an entry, per the host's rules; raises Skip."""
    command = e.string("command") if host != "opencode" else None
    url = e.string("url")
    if host == "claude-code":
        t = _explicit_type(e, host)
        if t is None:
            if command is not None:
                return "stdio", None
            if url is not None:
                raise Skip('url without type: Claude Code skips it too; add "type": "http" or "sse"')
            raise Skip("neither command nor url")
        return t, url
    if host == "claude-desktop":
        if command is not None:
            return "stdio", None
        if url is not None:
            raise Skip("remote server in claude_desktop_config.json: Claude Desktop reads only command/args/env here")
        raise Skip("missing command")
    if host == "codex":
        if command is not None and url is not None:
            raise Skip("both command and url: Codex rejects this entry")
        if command is not None:
            return "stdio", None
        if url is not None:
            return "http", url  # Codex speaks Streamable HTTP only
        raise Skip("neither command nor url")
    if host == "opencode":
        t = e.string("type")
        if t == "local":
            return "stdio", None
        if t == "remote":
            if url is None:
                raise Skip('type "remote" without a url')
            return _guess_remote(url, host, warnings), url
        raise Skip('opencode needs "type": "local" or "remote"')
    if host == "gemini":
        http_url = e.string("httpUrl")
        t = _explicit_type(e, host)
        if http_url is not None:  # precedence: httpUrl > url > command
            if t not in (None, "http"):
                warnings.append(f"httpUrl with type {t!r}: httpUrl wins, imported as Streamable HTTP")
            return "http", http_url
        if url is not None:
            if t == "stdio":
                raise Skip('type "stdio" with a url and no command')
            return (t or _guess_remote(url, host, warnings)), url
        if command is not None:
            return "stdio", None
        raise Skip("none of command, url, httpUrl")
    # cursor, windsurf, vscode
    if host == "windsurf" and e.has("serverUrl"):
        url = e.string("serverUrl")
    t = _explicit_type(e, host)
    if t is not None:
        return t, url
    if command is not None and url is not None:
        if host == "vscode":
            warnings.append("both command and url without a type: VS Code starts the command (stdio)")
            return "stdio", None
        raise Skip("both command and url without a type: ambiguous")
    if command is not None:
        return "stdio", None
    if url is not None:
        return _guess_remote(url, host, warnings), url
    raise Skip("neither command nor url" + (" (nor serverUrl)" if host == "windsurf" else ""))


# --- one server ---------------------------------------------------------------------------

_CWD_HOSTS = ("vscode", "gemini", "codex")


def build(e: Entry, host: str, source: str, extra_warnings: list[str] | None = None) -> ImportedServer:
    """Turn one raw entry into an ImportedServer (raises Skip, or ConfigError for wrong shapes)."""
    warnings: list[str] = []
    transport, url = _transport(e, host, warnings)
    def conv(v: str) -> str:
        return convert(host, v, warnings)
    try:
        if transport == "stdio" and host == "opencode":
            argv = e.str_list("command")
            if not argv or not argv[0].strip():
                raise Skip("empty command")
            spec_fields: dict[str, Any] = {
                "command": conv(argv[0]), "args": [conv(a) for a in argv[1:]],
                "env": {k: conv(v) for k, v in e.str_map("environment").items()}, "cwd": None,
            }
        elif transport == "stdio":
            command = e.string("command")
            if not command or not command.strip():
                raise Skip(f'type "{transport}" without a command' if e.has("type") else "empty command")
            args = e.str_list("args")
            env = e.str_map("env")
            cwd = e.string("cwd")
            pass_env = _codex_pass_env(e, env) if host == "codex" else ()
            if cwd is not None and host not in _CWD_HOSTS:
                warnings.append(f"cwd is not a {host_name(host)} setting: ignored")
                cwd = None
            spec_fields = {
                "command": conv(command),
                "args": [conv(a) for a in args],
                "env": {k: conv(v) for k, v in env.items()},
                "cwd": conv(cwd) if cwd is not None else None,
                "pass_env": pass_env,
            }
            for key in ("envFile",):
                if e.has(key):
                    warnings.append(f"{key} is not read by mcplock: set those variables in the environment")
        else:
            if url is None or not url.strip():
                raise Skip(f'type "{transport}" without a url')
            headers = e.str_map("http_headers" if host == "codex" else "headers")
            if host == "codex":
                headers = _codex_headers(e, headers, warnings)
            url = conv(url)
            _check_url(url)
            spec_fields = {"url": url, "headers": {k: conv(v) for k, v in headers.items()}}
            if e.has("headersHelper"):
                warnings.append("headersHelper is not run by mcplock: set the headers it prints with ${VAR} templates")
    except Unsupported as u:
        raise Skip(str(u)) from None
    for key, what in (("oauth", "oauth"), ("auth", "auth")):
        if e.has(key):
            warnings.append(f"{what} settings are not imported: mcplock logs in with its own OAuth flow (`--login`)")
    secrets = Secrets(e.name)
    if transport == "stdio":
        spec_fields["args"] = tuple(secrets.args(spec_fields["args"]))
        spec_fields["env"] = secrets.env(spec_fields["env"])
    else:
        spec_fields["url"] = secrets.url(spec_fields["url"])
        spec_fields["headers"] = secrets.headers(spec_fields["headers"])
    spec = ServerSpec(
        name=e.name,
        transport=transport,  # type: ignore[arg-type]
        source=source,
        secrets=dict(secrets.values),
        **spec_fields,
    )
    return ImportedServer(
        spec=spec,
        templated=tuple(secrets.notes),
        warnings=tuple(dict.fromkeys([*warnings, *secrets.warnings, *(extra_warnings or [])])),
    )


# --- Codex specifics ------------------------------------------------------------------------


def _env_name(e: Entry, key: str, value: object, at: tuple[str, ...]) -> str:
    if isinstance(value, str) and _IDENT.fullmatch(value):
        return value
    raise e.where.error(
        f"server `{e.name}`: `{key}` must name an environment variable, "
        f"not {json_type(value) if not isinstance(value, str) else 'this string'}",
        e.keys + at,
        hint="use a name like GITHUB_TOKEN (letters, digits, _)",
    )


def _codex_pass_env(e: Entry, env: dict[str, str]) -> tuple[str, ...]:
    """``env_vars`` forwards variables from Codex's environment as they are: ``pass-env`` (names
    only); a name that ``env`` sets is set by ``env``."""
    raw = e.raw.get("env_vars")
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise e._bad("env_vars", "a list of names", raw)
    out: list[str] = []
    for item in raw:
        name_v = item.get("name") if isinstance(item, dict) else item
        name = _env_name(e, "env_vars", name_v, ("env_vars",))
        if name not in env:
            out.append(name)
    return tuple(sorted(set(out)))


def _codex_headers(e: Entry, headers: dict[str, str], warnings: list[str]) -> dict[str, str]:
    out = dict(headers)
    env_headers = e.str_map("env_http_headers")
    for header, var in env_headers.items():
        out[header] = "${" + _env_name(e, f"env_http_headers.{header}", var, ("env_http_headers", header)) + "}"
    bearer = e.raw.get("bearer_token_env_var")
    if bearer is not None:
        var = _env_name(e, "bearer_token_env_var", bearer, ("bearer_token_env_var",))
        if any(k.lower() == "authorization" for k in out):
            warnings.append("bearer_token_env_var replaces the Authorization header given in the headers")
            out = {k: v for k, v in out.items() if k.lower() != "authorization"}
        out["Authorization"] = "Bearer ${" + var + "}"
    return out


# --- the servers map of a file ----------------------------------------------------------------


def servers_map(where: Where, data: Any, keys: tuple[str, ...]) -> Iterator[tuple[str, Entry]]:
    """Walk ``data[keys]`` (an object of server objects), checking its shape."""
    obj: Any = data
    for k in keys:
        obj = obj.get(k) if isinstance(obj, dict) else None
    if obj is None:
        return
    if not isinstance(obj, dict):
        raise where.error(
            f"`{'.'.join(keys)}` must be an object of servers, not {json_type(obj)}",
            keys,
            hint='write it as {"name": {"command": …}} (one key per server)',
        )
    if isinstance(obj, DupDict) and obj.dups:
        raise where.error(
            f"server `{obj.dups[0]}` appears twice in `{'.'.join(keys)}`",
            (*keys, obj.dups[0], obj.dups[0]),
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

