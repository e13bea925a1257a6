"""``mcplock export --guard``: each locked server's entry in a host's MCP config launches
``mcplock run NAME``; ``--no-guard`` puts the original entry back, byte for byte (kept in the
export record, which is why an entry holding a literal secret is refused)."""

from __future__ import annotations

import os
import re
import shutil
import sys
from typing import Any

from mcplock.core.export_record import FileState
from mcplock.errors import ConfigError
from mcplock.hosts.export import Exporter
from mcplock.hosts.export.document import Document
from mcplock.lock.model import Lock


def secret_in(entry: Any, host: str) -> bool:
    """Whether a raw host entry holds a literal secret (env/header values, arguments, URL), read
    with the host's variable syntax (``${env:X}``, ``{env:X}`` … are references, not secrets)."""
    from mcplock.hosts.interpolate import Unsupported, convert
    from mcplock.spec import looks_secret

    def secret(key: str, value: object) -> bool:
        if not isinstance(value, str):
            return False
        try:
            value = convert(host, value, [])
        except Unsupported:
            pass
        return looks_secret(key, value)

    if not isinstance(entry, dict):
        return False
    for key in ("env", "environment", "headers", "http_headers"):
        values = entry.get(key)
        if isinstance(values, dict) and any(secret(k, v) for k, v in values.items()):
            return True
    args = entry.get("args") if isinstance(entry.get("args"), list) else entry.get("command")
    if isinstance(args, list) and any(secret("", a) for a in args):
        return True
    return secret("", entry.get("url") or entry.get("httpUrl"))


def _refuse(shown: str, name: str) -> ConfigError:
    return ConfigError(
        f"{shown}: server `{name}` holds a literal secret; --guard keeps the original entry in the export record "
        "(to restore it with --no-guard) and mcplock never writes a secret",
        hint="replace the value with a variable the host expands (e.g. ${TOKEN}), then run `mcplock export --guard`",
    )


def running_mcplock() -> str | None:
    """The absolute path of the ``mcplock`` command running now (its console script), if any."""
    for path in (sys.argv[0], os.path.join(os.path.dirname(sys.executable), "mcplock")):
        if os.path.basename(path) == "mcplock" and os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.abspath(path)
    return None


def guard_command(path: str | None = None) -> str:
    """The command a host entry launches the guard with: ``mcplock`` where that is the mcplock
    running now (found on ``PATH``, as a host started from this shell finds it), else this
    mcplock's absolute path (a venv not activated, a pipx bin directory not on PATH). Refused
    when there is no ``mcplock`` command at all (``python -m mcplock`` with none installed)."""
    me = running_mcplock()
    found = shutil.which("mcplock", path=path)
    if me is None:
        if found is not None:
            return "mcplock"
        raise ConfigError(
            "--guard needs an `mcplock` command for the host to launch, and there is none: this "
            "mcplock is not installed as a command and none is on PATH",
            hint="install mcplock (README, Install), then run `mcplock export --guard` again",
        )
    if found is not None and os.path.samefile(found, me):
        return "mcplock"
    return me


def _servers_keys(doc: Document, exp: Exporter) -> tuple[str, ...]:
    if exp.host == "opencode" and isinstance(doc.get(("mcp", "servers")), dict):
        return ("mcp", "servers")
    return exp.servers_keys


def template_vars(lock: Lock, name: str) -> list[str]:
    """The variables the lock's ``${VAR}`` templates for a server name (the guard expands them
    from its own environment, so the host must pass them on)."""
    import json

    srv = lock.servers.get(name)
    text = json.dumps(srv.spec.stored()) if srv is not None else ""
    return sorted(set(re.findall(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}", text)))


def apply_json(
    doc: Document,
    exp: Exporter,
    lock: Lock,
    rel_lock: str,
    guard: bool,
    state: FileState,
    shown: str,
    command: str = "mcplock",
) -> None:
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
        if name not in lock.servers or exp.is_guard(entry):
            continue
        if secret_in(entry, exp.host):
            raise _refuse(shown, name)
        span = doc.span((*keys, name))
        assert span is not None
        state.guarded[name] = span
        arg = _lock_arg(exp, rel_lock, shown)
        new = {**exp.guard_entry(name, ["--lockfile", arg] if arg else [], command), **_kept(exp, lock, name, entry)}
        doc.replace_span((*keys, name), doc.dump(new, (*keys, name)))


def _kept(exp: Exporter, lock: Lock, name: str, entry: dict[str, Any]) -> dict[str, Any]:
    """What of a server's entry stays in its guard entry: the keys the host applies itself
    (``guard_keeps``), and its environment with every variable the lock's templates name passed on."""
    kept = {k: v for k, v in entry.items() if k in exp.guard_keeps}
    env = dict(entry.get(exp.env_key) or {}) if isinstance(entry.get(exp.env_key), dict) else {}
    for var in template_vars(lock, name):
        env.setdefault(var, exp.env_ref(var))
    if env:
        kept[exp.env_key] = env
    return kept


def _lock_arg(exp: Exporter, rel_lock: str, shown: str) -> str | None:
    """The lock's path as the host passes it to the guard (None: the default ``mcp.lock``); a
    lock name the host would expand is an error."""
    arg = exp.lock_arg(rel_lock)
    if arg is not None and arg != rel_lock and re.search(r"[$\\{}]", rel_lock):
        # the host expands `${…}` in what it passes: a lock named `${HOME}.lock` (or `$(…)`)
        # would become another path, and no host documents an escape for it
        raise ConfigError(
            f"{shown}: the lock's file name `{rel_lock}` holds `$`, `{{`, `}}` or a backslash, which "
            f"{exp.host} would read as its own `${{VAR}}` syntax in the guard's command line",
            hint="rename the lock file (or its directory) without those characters, then run the export again",
        )
    return arg


def passed_vars(lock: Lock, name: str) -> list[str]:
    """The variables the guard needs from its environment for a server: those its ``${VAR}``
    templates name, and those the lock passes through by name (``pass_env``)."""
    srv = lock.servers.get(name)
    return sorted({*template_vars(lock, name), *(srv.spec.pass_env if srv is not None else ())})


def _codex_forwarded(entry: Any) -> set[str]:
    """What Codex already hands a server's command: the names its ``env`` sets, and the names
    in its ``env_vars`` (a name or a ``{name = …}`` table each)."""
    if not isinstance(entry, dict):
        return set()
    env, listed = entry.get("env"), entry.get("env_vars")
    out = set(env) if isinstance(env, dict) else set()
    for item in listed if isinstance(listed, list) else ():
        item = item.get("name") if isinstance(item, dict) else item
        if isinstance(item, str):
            out.add(item)
    return out


def _codex_env_vars(text: str, name: str, need: list[str]) -> str:
    """``need`` appended to ``[mcp_servers.NAME] env_vars`` (the key added when there is none):
    Codex starts a server's command with a few variables of its own only, plus ``env`` and
    ``env_vars``; the guard expands the lock's templates from what it is given."""
    from mcplock.hosts.export.tomledit import TomlText

    t = TomlText(text)
    table = ("mcp_servers", name)
    if not t.edit_key(table, "env_vars", lambda d: d["env_vars"].extend(need)):
        t.set_in_table(table, "env_vars", need)
    return t.text


def apply_toml(
    text: str, lock: Lock, lock_args: list[str], guard: bool, state: FileState, shown: str, command: str = "mcplock"
) -> str:
    import tomllib

    from mcplock.hosts.export.codex import guard_body, restore_body

    servers = tomllib.loads(text).get("mcp_servers") if text.strip() else None
    if not isinstance(servers, dict):
        return text
    if not guard:
        for name, original in sorted(state.guarded.items()):
            if _codex_is_guard(servers.get(name)):
                text = restore_body(text, name, original)
            del state.guarded[name]
        return text
    for name in sorted(servers):
        entry = servers[name]
        if name not in lock.servers or _codex_is_guard(entry):
            continue
        if secret_in(entry, "codex"):
            raise _refuse(shown, name)
        done = guard_body(text, name, ["run", name, *lock_args], command)
        if done is None:
            continue
        text, state.guarded[name], _ = done
        text = _codex_pass_on(text, lock, name, entry)
    return text


def _codex_pass_on(text: str, lock: Lock, name: str, entry: Any) -> str:
    """The variables the guard needs for ``name`` that Codex does not hand its command yet,
    added to its ``env_vars``."""
    forwarded = _codex_forwarded(entry)  # the whole entry: its `env` may be a table of its own
    need = [v for v in passed_vars(lock, name) if v not in forwarded]
    return _codex_env_vars(text, name, need) if need else text


def _codex_is_guard(entry: Any) -> bool:
    """Whether a Codex server table launches the guard (``mcplock run``)."""
    from mcplock.guard_argv import guard_target

    return isinstance(entry, dict) and guard_target(entry.get("command"), entry.get("args")) is not None
