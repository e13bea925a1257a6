"""``mcplock export --guard``: each locked server's entry in a host's MCP config launches
``mcplock run NAME``; ``--no-guard`` puts the original entry back, byte for byte (kept in the
export record, which is why an entry holding a literal secret is refused)."""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Callable
from typing import Any

from mcplock.core.export_record import FileState
from mcplock.errors import ConfigError
from mcplock.hosts.export import Exporter
from mcplock.hosts.export.document import Document
from mcplock.lock.model import Lock


def secret_in(entry: Any, host: str) -> bool:
    """Whether a raw host entry holds a literal secret (env/header values, arguments, URL), read
    with the host's variable syntax (``${env:X}``, ``{env:X}`` … are references, not secrets)."""
    if not isinstance(entry, dict):
        return False
    return (
        _secret_in_tables(entry, host)
        or _secret_in_args(entry, host)
        or _secret(host, "", entry.get("url") or entry.get("httpUrl"))
    )


def _secret(host: str, key: str, value: object) -> bool:
    """Whether one value (under ``key``, "" for none) is a literal secret, the host's variable
    references read as references."""
    from mcplock.hosts.interpolate import Unsupported, convert
    from mcplock.lock.spec import looks_secret

    if not isinstance(value, str):
        return False
    try:
        value = convert(host, value, [])
    except Unsupported:
        pass
    return looks_secret(key, value)


def _secret_in_tables(entry: dict[str, Any], host: str) -> bool:
    """Whether an entry's environment or headers hold a literal secret."""
    for key in ("env", "environment", "headers", "http_headers"):
        values = entry.get(key)
        if isinstance(values, dict) and any(_secret(host, k, v) for k, v in values.items()):
            return True
    return False


def _secret_in_args(entry: dict[str, Any], host: str) -> bool:
    """Whether an entry's arguments (or its command, where that is a list) hold a literal secret."""
    args = entry.get("args") if isinstance(entry.get("args"), list) else entry.get("command")
    return isinstance(args, list) and any(_secret(host, "", a) for a in args)


def _refuse(shown: str, name: str) -> ConfigError:
    return ConfigError(
        f"{shown}: server `{name}` holds a literal secret; --guard keeps the original entry in the export record "
        "(to restore it with --no-guard) and mcplock never writes a secret",
        hint="replace the value with a variable the host expands (e.g. ${TOKEN}), then run `mcplock export --guard`",
    )


def _to_guard(lock: Lock, name: str, entry: Any, is_guard: Callable[[Any], bool], host: str, shown: str) -> bool:
    """Whether ``--guard`` routes a host's entry: a locked server's, not routed yet; one that
    holds a literal secret is refused."""
    if name not in lock.servers or is_guard(entry):
        return False
    if secret_in(entry, host):
        raise _refuse(shown, name)
    return True


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
        _unguard_json(doc, exp, keys, servers, state)
        return
    for name in sorted(servers):
        entry = servers[name]
        if _to_guard(lock, name, entry, exp.is_guard, exp.host, shown):
            state.guarded[name] = _guard_json(
                doc, exp, lock, (*keys, name), entry, _lock_arg(exp, rel_lock, shown), command
            )


def _unguard_json(
    doc: Document, exp: Exporter, keys: tuple[str, ...], servers: dict[str, Any], state: FileState
) -> None:
    """``--no-guard``: each entry the export routed, where it still launches the guard, back to
    its original text; the record forgets them all."""
    for name, raw in sorted(state.guarded.items()):
        if exp.is_guard(servers.get(name)):
            doc.replace_span((*keys, name), raw)
        del state.guarded[name]


def _guard_json(
    doc: Document, exp: Exporter, lock: Lock, at: tuple[str, ...], entry: dict[str, Any], arg: str | None, command: str
) -> str:
    """One server's entry (at the key path ``at``) replaced with its guard entry; returns the
    original entry's text, to restore."""
    span = doc.span(at)
    assert span is not None
    new = {**exp.guard_entry(at[-1], ["--lockfile", arg] if arg else [], command), **_kept(exp, lock, at[-1], entry)}
    doc.replace_span(at, doc.dump(new, at))
    return span


def _kept(exp: Exporter, lock: Lock, name: str, entry: dict[str, Any]) -> dict[str, Any]:
    """What of a server's entry stays in its guard entry: the keys the host applies itself
    (``guard_keeps``), and its environment with every variable the lock's templates name passed on."""
    kept = {k: v for k, v in entry.items() if k in exp.guard_keeps}
    env = _guard_env(exp, lock, name, entry)
    if env:
        kept[exp.env_key] = env
    return kept


def _guard_env(exp: Exporter, lock: Lock, name: str, entry: dict[str, Any]) -> dict[str, Any]:
    """A server's environment as its guard entry sets it: the entry's own, with every variable
    the lock's templates name passed on (the host's reference to it)."""
    env = dict(entry.get(exp.env_key) or {}) if isinstance(entry.get(exp.env_key), dict) else {}
    for var in template_vars(lock, name):
        env.setdefault(var, exp.env_ref(var))
    return env


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
    env = entry.get("env")
    return (set(env) if isinstance(env, dict) else set()) | _listed_names(entry.get("env_vars"))


def _listed_names(listed: Any) -> set[str]:
    """The names a Codex ``env_vars`` list gives: each a name, or a table with a ``name``."""
    out = set()
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

    servers = tomllib.loads(text).get("mcp_servers") if text.strip() else None
    if not isinstance(servers, dict):
        return text
    if not guard:
        return _unguard_toml(text, servers, state)
    for name in sorted(servers):
        entry = servers[name]
        if _to_guard(lock, name, entry, _codex_is_guard, "codex", shown):
            text = _guard_toml(text, lock, name, entry, lock_args, state, command)
    return text


def _unguard_toml(text: str, servers: dict[str, Any], state: FileState) -> str:
    """``--no-guard`` in a Codex config: each table the export routed, where it still launches
    the guard, back to its original body; the record forgets them all."""
    from mcplock.hosts.export.codex import restore_body

    for name, original in sorted(state.guarded.items()):
        if _codex_is_guard(servers.get(name)):
            text = restore_body(text, name, original)
        del state.guarded[name]
    return text


def _guard_toml(
    text: str, lock: Lock, name: str, entry: Any, lock_args: list[str], state: FileState, command: str
) -> str:
    """One Codex server table routed through the guard (its original body kept in ``state``),
    with the variables the guard needs passed on; as it was when its body cannot be rewritten."""
    from mcplock.hosts.export.codex import guard_body

    done = guard_body(text, name, ["run", name, *lock_args], command)
    if done is None:
        return text
    text, state.guarded[name], _ = done
    return _codex_pass_on(text, lock, name, entry)


def _codex_pass_on(text: str, lock: Lock, name: str, entry: Any) -> str:
    """The variables the guard needs for ``name`` that Codex does not hand its command yet,
    added to its ``env_vars``."""
    forwarded = _codex_forwarded(entry)  # the whole entry: its `env` may be a table of its own
    need = [v for v in passed_vars(lock, name) if v not in forwarded]
    return _codex_env_vars(text, name, need) if need else text


def _codex_is_guard(entry: Any) -> bool:
    """Whether a Codex server table launches the guard (``mcplock run``)."""
    from mcplock.model.guard_argv import guard_target

    return isinstance(entry, dict) and guard_target(entry.get("command"), entry.get("args")) is not None
