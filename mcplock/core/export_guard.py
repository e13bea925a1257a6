"""``mcplock export --guard``: each locked server's entry in a host's MCP config launches
``mcplock run NAME``; ``--no-guard`` puts the original entry back, byte for byte (kept in the
export record, which is why an entry holding a literal secret is refused)."""

from __future__ import annotations

from typing import Any

from mcplock.core.export_record import FileState
from mcplock.errors import ConfigError
from mcplock.hosts.export import Exporter
from mcplock.hosts.export.document import Document


def secret_in(entry: Any) -> bool:
    """Whether a raw host entry holds a literal secret (env/header values, arguments, URL)."""
    from mcplock.spec import looks_secret

    if not isinstance(entry, dict):
        return False
    for key in ("env", "environment", "headers", "http_headers"):
        values = entry.get(key)
        if isinstance(values, dict) and any(isinstance(v, str) and looks_secret(k, v) for k, v in values.items()):
            return True
    args = entry.get("args") if isinstance(entry.get("args"), list) else entry.get("command")
    if isinstance(args, list) and any(isinstance(a, str) and looks_secret("", a) for a in args):
        return True
    url = entry.get("url") or entry.get("httpUrl")
    return isinstance(url, str) and looks_secret("", url)


def _refuse(shown: str, name: str) -> ConfigError:
    return ConfigError(
        f"{shown}: server `{name}` holds a literal secret; --guard keeps the original entry in the export record "
        "(to restore it with --no-guard) and mcplock never writes a secret",
        hint="replace the value with a variable the host expands (e.g. ${TOKEN}), then run `mcplock export --guard`",
    )


def _servers_keys(doc: Document, exp: Exporter) -> tuple[str, ...]:
    if exp.host == "opencode" and isinstance(doc.get(("mcp", "servers")), dict):
        return ("mcp", "servers")
    return exp.servers_keys


def apply_json(doc: Document, exp: Exporter, names: set[str], lock_args: list[str], guard: bool,
               state: FileState, shown: str) -> None:
    keys = _servers_keys(doc, exp)
    servers = doc.get(keys)
    if not isinstance(servers, dict):
        return
    if not guard:
        for name, raw in sorted(state.guarded.items()):
            if exp.is_guard(servers.get(name)):
                doc.replace_span((*keys, name), raw)
            del state.guarded[name]
        return
    for name in sorted(servers):
        entry = servers[name]
        if name not in names or exp.is_guard(entry):
            continue
        if secret_in(entry):
            raise _refuse(shown, name)
        raw = doc.span((*keys, name))
        assert raw is not None
        state.guarded[name] = raw
        kept = {k: v for k, v in entry.items() if k in exp.guard_keeps}
        doc.replace_span((*keys, name), doc.dump({**exp.guard_entry(name, lock_args), **kept}, (*keys, name)))


def apply_toml(text: str, names: set[str], lock_args: list[str], guard: bool, state: FileState, shown: str) -> str:
    import tomllib

    from mcplock.hosts.export.codex import guard_body, restore_body

    servers = tomllib.loads(text).get("mcp_servers") if text.strip() else None
    if not isinstance(servers, dict):
        return text
    if not guard:
        for name, original in sorted(state.guarded.items()):
            entry = servers.get(name)
            if isinstance(entry, dict) and entry.get("command") == "mcplock":
                text = restore_body(text, name, original)
            del state.guarded[name]
        return text
    for name in sorted(servers):
        entry = servers[name]
        if name not in names or (isinstance(entry, dict) and entry.get("command") == "mcplock"):
            continue
        if secret_in(entry):
            raise _refuse(shown, name)
        done = guard_body(text, name, ["run", name, *lock_args])
        if done is None:
            continue
        text, state.guarded[name], _ = done
    return text
