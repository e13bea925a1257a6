"""Codex: ``.codex/config.toml`` (``[mcp_servers.NAME]``). ``command`` = stdio, ``url`` = http
(Codex has no SSE; both = skipped); ``bearer_token_env_var`` → ``Authorization: Bearer ${VAR}``;
``env_http_headers`` → ``${VAR}`` headers (they win over ``http_headers``, which are literal);
``env_vars`` → ``pass-env`` names (an explicit ``env`` value wins); ``cwd`` kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcplock.errors import json_type
from mcplock.hosts.formats.interface import Found, Importer
from mcplock.hosts.importers import IDENT, Entry, Skip
from mcplock.lock.spec import Transport


class Codex(Importer):
    host = "codex"
    servers_key = ("mcp_servers",)
    reads_cwd = True

    def by_name(self, path: Path, data: dict[str, Any]) -> bool:
        return path.suffix.lower() == ".toml"

    def is_toml(self, path: Path) -> bool:
        return path.suffix.lower() != ".json"

    def annotate(self, data: dict[str, Any], found: list[Found]) -> None:
        for _n, e, extra in found:
            if e.flag("enabled") is False:
                extra.append("disabled in this file (enabled = false)")

    def transport(self, e: Entry, warnings: list[str]) -> tuple[Transport, str | None]:
        command, url = e.string("command"), e.string("url")
        if command is not None and url is not None:
            raise Skip("both command and url: Codex rejects this entry")
        if command is not None:
            return Transport.STDIO, None
        if url is not None:
            return Transport.HTTP, url  # Codex speaks Streamable HTTP only
        raise Skip("neither command nor url")

    def pass_env(self, e: Entry, env: dict[str, str]) -> tuple[str, ...]:
        """``env_vars`` forwards variables from Codex's environment as they are: ``pass-env`` (names
        only); a name that ``env`` sets is set by ``env``."""
        raw = e.raw.get("env_vars")
        if raw is None:
            return ()
        if not isinstance(raw, list):
            raise e.bad("env_vars", "a list of names", raw)
        out: list[str] = []
        for item in raw:
            name_v = item.get("name") if isinstance(item, dict) else item
            name = _env_name(e, "env_vars", name_v, ("env_vars",))
            if name not in env:
                out.append(name)
        return tuple(sorted(set(out)))

    def headers(self, e: Entry, warnings: list[str]) -> dict[str, str]:
        out = e.str_map("http_headers")
        for header, var in e.str_map("env_http_headers").items():
            out[header] = "${" + _env_name(e, f"env_http_headers.{header}", var, ("env_http_headers", header)) + "}"
        bearer = e.raw.get("bearer_token_env_var")
        if bearer is not None:
            var = _env_name(e, "bearer_token_env_var", bearer, ("bearer_token_env_var",))
            out = _with_bearer(out, var, warnings)
        return out


def _with_bearer(headers: dict[str, str], var: str, warnings: list[str]) -> dict[str, str]:
    """The headers with ``Authorization: Bearer ${var}`` (``bearer_token_env_var``), which
    replaces an Authorization header given in them (with a warning)."""
    if any(k.lower() == "authorization" for k in headers):
        warnings.append("bearer_token_env_var replaces the Authorization header given in the headers")
        headers = {k: v for k, v in headers.items() if k.lower() != "authorization"}
    headers["Authorization"] = "Bearer ${" + var + "}"
    return headers


def _env_name(e: Entry, key: str, value: object, at: tuple[str, ...]) -> str:
    if isinstance(value, str) and IDENT.fullmatch(value):
        return value
    raise e.where.error(
        f"server `{e.name}`: `{key}` must name an environment variable, "
        f"not {json_type(value) if not isinstance(value, str) else 'this string'}",
        e.keys + at,
        hint="use a name like GITHUB_TOKEN (letters, digits, _)",
    )
