"""Commands that talk to servers: add, refresh, diff, inspect, init.

Each one builds ServerSpecs, probes them concurrently through :mod:`mcplock.probe`
(imported here, never at start-up), and then — for the writing commands — applies the
results to the lock inside one transaction, so a concurrent writer loses nothing.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, List, Optional

import typer
from rich.text import Text

from mcplock.cli import output
from mcplock.errors import ConfigError, McplockError, ProbeError, SecretError, UsageError
from mcplock.lock.model import POLICIES, ServerEntry
from mcplock.untrusted import safe_text
from mcplock.spec import TRANSPORTS, AuthSpec, ServerSpec, looks_secret
from mcplock.cli import auth_cmds  # OAuth: --login, --oauth-*, log in where a server asks

TIMEOUT_HELP = "Seconds per server for the whole probe (default 30)."


def _lockfile() -> str:
    return output.settings().lockfile


def _lock_dir() -> str:
    return os.path.dirname(os.path.abspath(_lockfile())) or "."


def _options(timeout: float, client_name: Optional[str], client_version: Optional[str]):
    from mcplock.auth import http_client
    from mcplock.probe import ProbeOptions

    if timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds")
    _client(client_name, client_version)  # --client-version alone is a usage error
    environ = dict(os.environ)
    environ.setdefault("MCPLOCK_PROJECT_DIR", _lock_dir())
    kw: dict[str, Any] = {"timeout": timeout, "environ": environ, "verbose": output.settings().verbose,
                          "http_client": http_client}  # OAuth where the token store holds a login
    if client_name:
        kw["client_name"] = client_name
    if client_version:
        kw["client_version"] = client_version
    return ProbeOptions(**kw)


def _probe(specs: list[ServerSpec], opts) -> dict[str, Any]:
    from mcplock.probe import probe_many

    s = output.settings()

    def progress(name: str, event: str) -> None:
        if s.quiet:
            return
        if event == "start" and len(specs) > 1:
            s.err.print(Text("probing ", style="dim").append_text(safe_text(name, keep_newlines=False)))
        elif event == "failed":
            s.err.print(Text("failed  ", style="red").append_text(safe_text(name, keep_newlines=False)))

    if len(specs) == 1 and not s.quiet:
        s.err.print(Text("probing ", style="dim").append_text(safe_text(specs[0].name, keep_newlines=False)))
    results = probe_many(specs, opts, on_event=progress)
    results = auth_cmds.after_probe(specs, results, lambda again: probe_many(again, opts, on_event=progress), opts.environ)
    if s.verbose:
        for name, r in results.items():
            if not isinstance(r, ProbeError) and r.skipped_lines:
                s.err.print(Text(f"{name}: skipped {len(r.skipped_lines)} non-JSON-RPC line(s) on stdout:", style="dim"))
                for line in r.skipped_lines[:20]:
                    s.err.print(Text("  ").append_text(safe_text(line, keep_newlines=False)))
    return results


def _report_failure(name: str, err: ProbeError) -> None:
    s = output.settings()
    line = Text("error: ", style="bold red").append_text(safe_text(f"{name}: {err.message}"))
    s.err.print(line)
    if err.hint:
        s.err.print(Text("hint: ", style="dim").append_text(safe_text(err.hint, "dim")))


# --- building specs ------------------------------------------------------------------------


def _kv_env(items: list[str]) -> dict[str, str]:
    env: dict[str, str] = {}
    for item in items:
        if "=" not in item:
            raise UsageError(f"--env takes KEY=VALUE, got `{item.split('=')[0]}`")
        k, v = item.split("=", 1)
        if looks_secret(k, v):
            raise SecretError(f"--env {k}=… holds a literal secret; the lock stores only ${{VAR}} templates",
                              hint=f"export it and pass --env '{k}=${{{k}}}'")
        env[k] = v
    return env


def _kv_headers(items: list[str]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for item in items:
        if ":" not in item:
            raise UsageError("--header takes 'Name: value'")
        k, v = item.split(":", 1)
        k, v = k.strip(), v.strip()
        if looks_secret(k, v):
            from mcplock.spec import env_var_name

            var = "TOKEN" if k.lower() == "authorization" else env_var_name(k)
            scheme = v.split()[0] + " " if k.lower() == "authorization" and " " in v else ""
            raise SecretError(f"--header {k}: … holds a literal secret; the lock stores only ${{VAR}} templates",
                              hint=f"export it (export {var}=…) and pass --header '{k}: {scheme}${{{var}}}'")
        headers[k] = v
    return headers


def _check_args(args: list[str]) -> None:
    for a in args:
        if looks_secret("", a):
            raise SecretError("an argument of the server command holds a literal secret; the lock stores only ${VAR} templates",
                              hint="export it and write the argument as ${VAR}")


def _client(client_name: Optional[str], client_version: Optional[str]) -> dict[str, str] | None:
    """The client identity given on the command line, as stored in the lock's `client`."""
    if not client_name:
        if client_version:
            raise UsageError("--client-version needs --client-name")
        return None
    return {"name": client_name, **({"version": client_version} if client_version else {})}


def _stored_client(srv: ServerEntry) -> tuple[str, str] | None:
    if not srv.client:
        return None
    from mcplock import __version__

    return (srv.client["name"], srv.client.get("version", __version__))


def spec_of(srv: ServerEntry, secrets: dict[str, str] | None = None, *, stored_client: bool = True) -> ServerSpec:
    """The spec to probe a locked server with; cwd resolved against the lock's directory.

    ``stored_client``: announce the client identity the server was locked as (its `client`),
    unless --client-name overrides it for this run.
    """
    cwd = srv.cwd
    if srv.transport == "stdio":
        cwd = os.path.join(_lock_dir(), cwd) if cwd else _lock_dir()
    return ServerSpec(
        name=srv.name, transport=srv.transport, command=srv.command, args=tuple(srv.args), env=dict(srv.env), cwd=cwd,
        url=srv.url, headers=dict(srv.headers), source=srv.source, pin_resources=srv.pin_resources, secrets=secrets or {},
        auth=AuthSpec.from_stored(srv.auth) if srv.auth is not None else None,
        client=_stored_client(srv) if stored_client else None,
    )


def _source_path(path: str) -> str:
    """A host config path as stored in `source`: relative to the lock's directory."""
    ap = os.path.abspath(path)
    try:
        rel = os.path.relpath(ap, _lock_dir())
    except ValueError:  # pragma: no cover - other drive on Windows
        return ap
    return rel if not rel.startswith("..") else ap


def _imported(sources: dict[str, Any], srv: ServerEntry) -> Any:
    """The server's current entry in its host config (None when it has no source)."""
    from mcplock.hosts import load_host_config

    if not srv.source:
        return None
    if srv.source not in sources:
        sources[srv.source] = load_host_config(os.path.join(_lock_dir(), srv.source), source=srv.source,
                                               project_dir=_lock_dir())
    return sources[srv.source].servers.get(srv.name)


def _entry_from_spec(spec: ServerSpec, policy: str, config_hash: str | None) -> ServerEntry:
    cwd = spec.cwd
    return ServerEntry(
        name=spec.name, transport=spec.transport, command=spec.command, args=list(spec.args), env=dict(spec.env), cwd=cwd,
        url=spec.url, headers=dict(spec.headers), source=spec.source, config_hash=config_hash, policy=policy,
        pin_resources=spec.pin_resources, auth=auth_cmds.lock_auth(spec),
    )


def _probe_spec(spec: ServerSpec) -> ServerSpec:
    if spec.transport == "stdio":
        cwd = os.path.join(_lock_dir(), spec.cwd) if spec.cwd else _lock_dir()
        return replace(spec, cwd=cwd)
    return spec


# --- add -------------------------------------------------------------------------------------


def cmd_add(
    ctx: typer.Context,
    name: Optional[str] = typer.Argument(None, help="Name of the server in the lock."),
    target: Optional[List[str]] = typer.Argument(None, help="URL, or `-- CMD [ARG…]` for a stdio server."),
    from_file: Optional[str] = typer.Option(None, "--from", metavar="FILE", help="Import from a host config (.mcp.json, .vscode/mcp.json, .codex/config.toml, …)."),
    transport: Optional[str] = typer.Option(None, "--transport", help="http (Streamable HTTP, default for URLs) or sse (legacy)."),
    header: List[str] = typer.Option([], "--header", help="'Name: value' for a remote server; secrets as ${VAR}."),
    env: List[str] = typer.Option([], "--env", help="KEY=VALUE for a stdio server; secrets as ${VAR}."),
    cwd: Optional[str] = typer.Option(None, "--cwd", help="Working directory of a stdio server (relative to the lock)."),
    policy: str = typer.Option("all", "--policy", help="Default approval: all (ask always), writes (trust readOnlyHint to pre-select; most servers publish no annotations, so usually the same as all), none."),
    pin_resources: bool = typer.Option(False, "--pin-resources", help="Also pin resources/list (usually data that changes)."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Accept every tool without asking."),
    timeout: float = typer.Option(30.0, "--timeout", help=TIMEOUT_HELP),
    client_name: Optional[str] = typer.Option(None, "--client-name", help="Probe as this client (servers may show different tools to different hosts)."),
    client_version: Optional[str] = typer.Option(None, "--client-version"),
    oauth_client_id: Optional[str] = typer.Option(None, "--oauth-client-id", help=auth_cmds.CLIENT_ID_HELP),
    oauth_client_secret: Optional[str] = typer.Option(None, "--oauth-client-secret", help=auth_cmds.CLIENT_SECRET_HELP),
    oauth_scopes: Optional[str] = typer.Option(None, "--oauth-scopes", help=auth_cmds.SCOPES_HELP),
    oauth_grant: Optional[str] = typer.Option(None, "--oauth-grant", help=auth_cmds.GRANT_HELP),
    oauth_client_metadata_url: Optional[str] = typer.Option(None, "--oauth-client-metadata-url", help=auth_cmds.CLIENT_METADATA_URL_HELP),
    login: bool = typer.Option(False, "--login", callback=auth_cmds.set_login, help=auth_cmds.LOGIN_HELP),
) -> int:
    """Add servers: `add NAME -- CMD…`, `add NAME URL`, or `add --from FILE [NAME…]`."""
    from mcplock.hosts import config_hash

    if policy not in POLICIES:
        raise UsageError(f"--policy takes one of {', '.join(POLICIES)}")
    if transport is not None and transport not in TRANSPORTS:
        raise UsageError("--transport takes stdio, http or sse")
    target = list(target or [])
    specs: list[tuple[ServerSpec, str | None]] = []
    notes: list[str] = []
    if from_file:
        from mcplock.hosts import load_host_config

        wanted = ([name] if name else []) + target
        cfg = load_host_config(from_file, source=_source_path(from_file), project_dir=_lock_dir())
        for w in cfg.warnings:
            notes.append(f"{from_file}: {w}")
        for skipped, why in sorted(cfg.skipped.items()):
            if not wanted or skipped in wanted:
                notes.append(f"skipped `{skipped}`: {why}")
        unknown = [w for w in wanted if w not in cfg.servers and w not in cfg.skipped]
        if unknown:
            raise UsageError(f"{from_file} has no server named {', '.join(unknown)}",
                             hint=f"it has: {', '.join(sorted(cfg.servers)) or 'none'}")
        for sname, imp in sorted(cfg.servers.items()):
            if wanted and sname not in wanted:
                continue
            notes.extend(f"{sname}: {n}" for n in (*imp.templated, *imp.warnings))
            specs.append((imp.spec, config_hash(imp.spec)))
    else:
        if not name:
            raise UsageError("name the server: `mcplock add NAME -- CMD…` or `mcplock add NAME URL`")
        if "/" in name or not name.strip():
            raise UsageError(f"`{name}` cannot be a server name (no `/`, not empty)")
        dashdash = _had_dashdash()
        if not target:
            raise UsageError("give a URL or `-- CMD [ARG…]`", hint=f"e.g. `mcplock add {name} -- npx -y @modelcontextprotocol/server-everything`")
        if not dashdash and len(target) == 1 and "://" in target[0]:
            url = target[0]
            if looks_secret("url", url) and "${" not in url:
                raise SecretError("the URL holds a literal secret", hint="write it as ${VAR} in the URL and export VAR")
            if env or cwd:
                raise UsageError("--env and --cwd are for stdio servers")
            spec = ServerSpec(name=name, transport=transport or "http", url=url, headers=_kv_headers(header),
                              pin_resources=pin_resources,
                              auth=auth_cmds.auth_spec(oauth_client_id, oauth_client_secret, oauth_scopes,
                                                       oauth_grant, oauth_client_metadata_url))
        else:
            if header:
                raise UsageError("--header is for remote servers")
            if transport not in (None, "stdio"):
                raise UsageError(f"--transport {transport} needs a URL")
            _check_args(target)
            spec = ServerSpec(name=name, transport="stdio", command=target[0], args=tuple(target[1:]), env=_kv_env(env),
                              cwd=cwd, pin_resources=pin_resources)
        specs.append((spec, None))
    s = output.settings()
    for n in notes:
        s.err.print(Text("note: ", style="yellow").append_text(safe_text(n, keep_newlines=False)))

    # names already locked: exit 2 for an explicit add; skipped for an import
    from mcplock.lock.read import load

    existing: set[str] = set()
    if os.path.exists(_lockfile()):
        existing = set(load(_lockfile()).servers)
    clash = [sp.name for sp, _ in specs if sp.name in existing]
    if clash and not from_file:
        raise UsageError(f"`{clash[0]}` is already locked", hint=f"run `mcplock refresh {clash[0]}` to re-probe it, or `mcplock remove {clash[0]}` first")
    for c in clash:
        s.err.print(Text(f"skipped `{c}`: already locked (use `mcplock refresh {c}`)", style="yellow"))
    specs = [(sp, h) for sp, h in specs if sp.name not in existing]
    if not specs:
        output.info("nothing to add")
        return 0
    return _add_specs(specs, policy, yes, _options(timeout, client_name, client_version))


def _add_specs(specs: list[tuple[ServerSpec, str | None]], policy: str, yes: bool, opts) -> int:
    from mcplock.lock import review
    from mcplock.lock.store import transaction

    results = _probe([_probe_spec(sp) for sp, _ in specs], opts)
    failed = 0
    staged: list[ServerEntry] = []
    for sp, chash in specs:
        r = results.get(sp.name)
        if isinstance(r, ProbeError) or r is None:
            failed += 1
            _report_failure(sp.name, r or ProbeError("internal", "no result"))
            continue
        entry = _entry_from_spec(sp, policy, chash)
        entry.client = _client(opts.client_name, opts.client_version) if opts.client_name != "mcplock" else None
        review.stage(entry, r)
        staged.append(entry)
    interactive = not yes and sys.stdin.isatty() and sys.stdout.isatty()
    from mcplock.lint.entries import lint_entries

    findings = lint_entries(staged)
    held: dict[str, list[str]] = {}
    for entry in staged:
        _warn_findings(entry, findings)
        if yes or (interactive and _confirm(entry, findings)):
            for e in list(entry.entries()):
                if any(f.severity == "critical" for f in findings.get((entry.name, e.kind, e.key), [])):
                    held.setdefault(entry.name, []).append(e.label)  # poison is never accepted wholesale
                    continue
                review.accept(entry, e)
    if staged:
        with transaction(_lockfile(), create=True) as lock:
            for entry in staged:
                if entry.name in lock.servers:  # added by a concurrent process meanwhile
                    _report_failure(entry.name, ProbeError("exists", "was added to the lock meanwhile by another process"))
                    failed += 1
                    continue
                lock.servers[entry.name] = entry
    for entry in staged:
        n = sum(1 for t in entry.tools.values() if t.definition is not None)
        left = entry.pending_count()
        name = safe_text(entry.name, keep_newlines=False)
        if n or not left:
            line = Text("locked ").append_text(name).append(f": {n} tools accepted ({_extras(entry)})")
            if left:
                line.append(f", {left} left pending", style="yellow")
            output.say(line)
        else:
            output.say(Text("added ").append_text(name).append(f": {left} items pending review"))
        for label in held.get(entry.name, []):
            output.info(Text("  left pending (critical lint finding): ", style="bold red").append_text(
                safe_text(f"{entry.name}/{label}", keep_newlines=False)))
        if left:
            output.info(f"review with `mcplock show {entry.name}`, then `mcplock accept {entry.name}/…` or `mcplock reject {entry.name}/…`")
    return 3 if failed else 0


def _extras(entry: ServerEntry) -> str:
    parts = [f"{len(entry.items['prompt'])} prompts", f"{len(entry.items['resource-template'])} resource templates"]
    if entry.instructions is not None:
        parts.append("instructions")
    return ", ".join(parts)


def _warn_findings(entry: ServerEntry, findings: dict) -> None:
    s = output.settings()
    for e in entry.entries():
        for f in findings.get((entry.name, e.kind, e.key), []):
            if f.severity not in ("critical", "high"):
                continue
            row = Text(f"warning: {f.severity} {f.rule} in ", style="bold red" if f.severity == "critical" else "red")
            row.append_text(safe_text(f"{entry.name}/{e.label}", keep_newlines=False))
            row.append(": ").append_text(safe_text(f.message, keep_newlines=False))
            s.err.print(row)


def _confirm(entry: ServerEntry, findings: dict) -> bool:
    s = output.settings()
    s.out.print(Text("server ", style="bold").append_text(safe_text(entry.name, keep_newlines=False))
                .append(f" offers {len(entry.tools)} tools:"))
    for key, e in sorted(entry.tools.items()):
        d = e.pending.definition if e.pending else e.definition
        desc = d.get("description", "") if isinstance(d, dict) else ""
        first = desc.strip().split("\n")[0] if isinstance(desc, str) else ""
        row = Text("  ").append_text(safe_text(key, "bold", keep_newlines=False)).append("  ")
        row.append_text(safe_text(first[:120], keep_newlines=False))
        found = findings.get((entry.name, "tool", key))
        if found:
            row.append("  [" + ", ".join(sorted({f"{f.severity} {f.rule}" for f in found})) + "]", style="bold red")
        s.out.print(row)
    if entry.instructions is not None and entry.instructions.pending is not None:
        s.out.print(Text("  instructions: ").append_text(safe_text(str(entry.instructions.pending.definition)[:200], keep_newlines=False)))
    crit = any(f.severity == "critical" for fs in findings.values() for f in fs)
    question = "accept all of them? [y/N] " if not crit else "accept all but the critical ones (they stay pending)? [y/N] "
    s.out.print(Text(question, style="bold"), end="")
    answer = sys.stdin.readline().strip().lower()
    return answer in ("y", "yes")


# --- refresh / diff --------------------------------------------------------------------------


def _select(lock, names: list[str]) -> list[ServerEntry]:
    from mcplock.cli.targets import server_of

    if not names:
        return [lock.servers[n] for n in sorted(lock.servers)]
    return [server_of(lock, n) for n in names]


def cmd_refresh(
    names: Optional[List[str]] = typer.Argument(None, metavar="[NAME]…"),
    timeout: float = typer.Option(30.0, "--timeout", help=TIMEOUT_HELP),
    client_name: Optional[str] = typer.Option(None, "--client-name"),
    client_version: Optional[str] = typer.Option(None, "--client-version"),
    login: bool = typer.Option(False, "--login", callback=auth_cmds.set_login, help=auth_cmds.LOGIN_HELP),
) -> int:
    """Probe again and stage upstream changes as pending; changed tools are quarantined (disabled)."""
    from mcplock.hosts import config_hash
    from mcplock.lock import review
    from mcplock.lock.read import load
    from mcplock.lock.store import transaction

    lock = load(_lockfile())
    selected = _select(lock, list(names or []))
    sources: dict[str, Any] = {}
    specs: list[ServerSpec] = []
    reimported: dict[str, tuple[ServerSpec, str]] = {}
    for srv in selected:
        imp = None
        try:
            imp = _imported(sources, srv)
        except McplockError as e:
            raise ConfigError(f"`{srv.name}` was imported from {srv.source}: {e.message}", hint=e.hint) from None
        if srv.source and imp is None:
            raise ConfigError(f"`{srv.name}` is no longer in {srv.source}",
                              hint=f"run `mcplock remove {srv.name}`, or put it back in {srv.source}")
        if imp is not None:
            reimported[srv.name] = (imp.spec, config_hash(imp.spec))
            specs.append(replace(_probe_spec(imp.spec), auth=spec_of(srv).auth,
                                 client=None if client_name else _stored_client(srv)))
        else:
            specs.append(spec_of(srv, stored_client=not client_name))
    given_client = _client(client_name, client_version)
    results = _probe(specs, _options(timeout, client_name, client_version))
    failed = 0
    summary: list[tuple[str, Any]] = []
    with transaction(_lockfile()) as fresh:
        for srv in selected:
            r = results.get(srv.name)
            if isinstance(r, ProbeError) or r is None:
                failed += 1
                _report_failure(srv.name, r or ProbeError("internal", "no result"))
                continue
            cur = fresh.servers.get(srv.name)
            if cur is None:
                continue  # removed meanwhile
            if srv.name in reimported:
                sp, chash = reimported[srv.name]
                cur.transport, cur.command, cur.args, cur.env = sp.transport, sp.command, list(sp.args), dict(sp.env)
                cur.cwd, cur.url, cur.headers, cur.config_hash = sp.cwd, sp.url, dict(sp.headers), chash
            if given_client is not None:
                cur.client = given_client  # refresh --client-name re-pins the identity
            auth_cmds.record_oauth(cur)  # a server that started asking for an OAuth login: auth = "oauth"
            summary.append((srv.name, review.stage(cur, r)))
    for name, res in summary:
        line = Text().append_text(safe_text(name, keep_newlines=False))
        if res.proposals:
            line.append(f": {len(res.new)} new, {len(res.changed)} changed, {len(res.removed)} removed — pending review", style="yellow")
        else:
            line.append(": up to date", style="green")
        output.say(line)
        for label in res.changed:
            output.info(Text("  quarantined (changed upstream): ").append_text(safe_text(label, keep_newlines=False)))
    if any(res.proposals for _, res in summary):
        output.info("review with `mcplock diff` / `mcplock show`, then `mcplock accept` or `mcplock reject`")
    return 3 if failed else 0


def _diff_specs(selected: list[ServerEntry], stored_client: bool) -> list[ServerSpec]:
    sources: dict[str, Any] = {}
    specs: list[ServerSpec] = []
    for srv in selected:
        secrets: dict[str, str] = {}
        try:
            imp = _imported(sources, srv)
            if imp is not None:
                secrets = dict(imp.spec.secrets)
        except McplockError:
            pass  # the lock's own spec still probes; `check` reports the config problem
        specs.append(spec_of(srv, secrets, stored_client=stored_client))
    return specs


def _load_and_probe(names: list[str], opts, *, stored_client: bool):
    """Read the lock and probe its servers, overlapping the two.

    Probing waits on servers while reading a big lock keeps the CPU busy, so the servers'
    own tables are peeked first (they come before their items in the file), probing starts
    in a thread, and the whole lock is read meanwhile. The full read must agree with the
    peek; a lock in any other layout is simply read first.
    """
    import threading

    from mcplock.lock.read import LockfileError, loads, peek_servers, read_text

    path = _lockfile()
    text = read_text(path)
    peeked = peek_servers(text, path)
    if peeked is None or any(n not in peeked for n in names):
        lock = loads(text, path)
        selected = _select(lock, names)
        return lock, selected, _probe(_diff_specs(selected, stored_client), opts)
    early = [peeked[n] for n in (names or sorted(peeked))]
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["results"] = _probe(_diff_specs(early, stored_client), opts)
        except BaseException as e:  # handed to the main thread
            box["error"] = e

    worker = threading.Thread(target=work, name="mcplock-probe", daemon=True)
    worker.start()
    try:
        lock = loads(text, path)
        selected = _select(lock, names)
        if [s.name for s in selected] != [s.name for s in early] or any(
            (a.spec_dict(), a.client, a.auth) != (b.spec_dict(), b.client, b.auth) for a, b in zip(selected, early)
        ):
            raise LockfileError("the servers' tables do not read the same on their own as in the whole file",
                                path=path, hint="restore the file from git, or rewrite it with `mcplock refresh`")
        while worker.is_alive():
            worker.join(0.1)
    except BaseException:
        from mcplock.probe import _stdio

        _stdio.kill_all_live()  # a broken lock or Ctrl-C: stop the servers already started
        worker.join(10)
        raise
    if "error" in box:
        raise box["error"]
    return lock, selected, box["results"]


def cmd_diff(
    names: Optional[List[str]] = typer.Argument(None, metavar="[NAME]…"),
    fmt: str = typer.Option("text", "--format", help="text, json, markdown (step summaries, PR comments), sarif (code scanning) or github (annotations)."),
    out_file: Optional[str] = typer.Option(None, "--output", "-o", metavar="FILE", help="Write the report to FILE instead of stdout."),
    timeout: float = typer.Option(30.0, "--timeout", help=TIMEOUT_HELP),
    client_name: Optional[str] = typer.Option(None, "--client-name"),
    client_version: Optional[str] = typer.Option(None, "--client-version"),
    login: bool = typer.Option(False, "--login", callback=auth_cmds.set_login, help=auth_cmds.LOGIN_HELP),
) -> int:
    """Compare live servers with the lock (never writes). Exit 1 on drift or pending review, 3 if unreachable."""
    from mcplock import compare
    from mcplock.render import formats

    if fmt not in formats.FORMATS:
        raise UsageError(f"unknown format `{fmt}` for diff", hint=f"use --format {'|'.join(formats.FORMATS)}")
    if fmt == "json":
        from mcplock.cli import app

        app.json_command = "diff"
    opts = _options(timeout, client_name, client_version)
    lock, selected, results = _load_and_probe(list(names or []), opts, stored_client=not client_name)
    diffs: dict[str, Any] = {}
    for srv in selected:
        r = results.get(srv.name)
        if isinstance(r, ProbeError) or r is None:
            diffs[srv.name] = compare.unreachable(srv, r or ProbeError("internal", "no result"))
        else:
            diffs[srv.name] = compare.compare(srv, r)
    ordered = [diffs[s.name] for s in selected]
    compare.cross_server(ordered, compare.tools_in_view(lock, results))
    code = compare.exit_code(ordered)
    if fmt != "text":
        lock_text = None
        if fmt in ("sarif", "github"):
            try:
                lock_text = Path(_lockfile()).read_text(encoding="utf-8")
            except OSError:
                pass
        report = formats.diff_report(fmt, ordered, _lockfile(), code, lock_text=lock_text,
                                     path=formats.artifact_path(_lockfile()))
        output.emit_report(report, out_file, fmt, code)
        return code
    from mcplock.render.diff import render_diff

    s = output.settings()
    color = s.out.is_terminal and not s.no_color and not os.environ.get("NO_COLOR") and not out_file
    rendered = render_diff(ordered, color=color)
    if out_file:
        from rich.console import Console

        with open(out_file, "w", encoding="utf-8") as f:
            Console(file=f, no_color=True, color_system=None, soft_wrap=True, highlight=False).print(rendered)
        output.info(f"wrote the report to {out_file} (exit {code})")
    else:
        output.settings().out.print(rendered)
    return code


# --- inspect / init --------------------------------------------------------------------------


def cmd_inspect(
    ctx: typer.Context,
    target: List[str] = typer.Argument(..., metavar="URL | -- CMD [ARG…]"),
    transport: Optional[str] = typer.Option(None, "--transport", help="http or sse for a URL."),
    header: List[str] = typer.Option([], "--header", help="'Name: value' (values may use ${VAR})."),
    env: List[str] = typer.Option([], "--env", help="KEY=VALUE for a stdio server."),
    fmt: str = typer.Option("text", "--format", help="text or json (the raw definitions)."),
    pin_resources: bool = typer.Option(False, "--resources", help="Also list resources."),
    timeout: float = typer.Option(30.0, "--timeout", help=TIMEOUT_HELP),
    client_name: Optional[str] = typer.Option(None, "--client-name"),
    client_version: Optional[str] = typer.Option(None, "--client-version"),
    oauth_client_id: Optional[str] = typer.Option(None, "--oauth-client-id", help=auth_cmds.CLIENT_ID_HELP),
    oauth_client_secret: Optional[str] = typer.Option(None, "--oauth-client-secret", help=auth_cmds.CLIENT_SECRET_HELP),
    oauth_scopes: Optional[str] = typer.Option(None, "--oauth-scopes", help=auth_cmds.SCOPES_HELP),
    oauth_grant: Optional[str] = typer.Option(None, "--oauth-grant", help=auth_cmds.GRANT_HELP),
    oauth_client_metadata_url: Optional[str] = typer.Option(None, "--oauth-client-metadata-url", help=auth_cmds.CLIENT_METADATA_URL_HELP),
    login: bool = typer.Option(False, "--login", callback=auth_cmds.set_login, help=auth_cmds.LOGIN_HELP),
) -> int:
    """Probe a server and print what it exposes, without touching a lock."""
    if fmt not in ("text", "json"):
        raise UsageError("use --format text or --format json")
    if fmt == "json":
        from mcplock.cli import app

        app.json_command = "inspect"
    dashdash = _had_dashdash()
    if not dashdash and len(target) == 1 and "://" in target[0]:
        spec = ServerSpec(name="inspect", transport=transport or "http", url=target[0],
                          headers={k.strip(): v.strip() for k, v in (h.split(":", 1) for h in header if ":" in h)},
                          pin_resources=pin_resources,
                          auth=auth_cmds.auth_spec(oauth_client_id, oauth_client_secret, oauth_scopes,
                                                   oauth_grant, oauth_client_metadata_url))
    else:
        envd = dict(kv.split("=", 1) for kv in env if "=" in kv)
        spec = ServerSpec(name="inspect", transport="stdio", command=target[0], args=tuple(target[1:]), env=envd,
                          cwd=os.getcwd(), pin_resources=pin_resources)
    results = _probe([spec], _options(timeout, client_name, client_version))
    r = results.get("inspect")
    if isinstance(r, ProbeError) or r is None:
        raise r or ProbeError("internal", "no result")
    if fmt == "json":
        doc = {"version": 1, "command": "inspect", "exit_code": 0, "server_info": r.server_info,
               "protocol_version": r.protocol_version, "capabilities": r.capabilities, "instructions": r.instructions,
               "tools": r.tools, "prompts": r.prompts, "resource_templates": r.resource_templates}
        if r.resources is not None:
            doc["resources"] = r.resources
        sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        return 0
    from mcplock.render.diff import render_snapshot

    output.settings().out.print(render_snapshot(r))
    return 0


def cmd_init(
    policy: str = typer.Option("all", "--policy", help="Default approval for the imported servers: all, writes, none."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Accept every tool without asking."),
    timeout: float = typer.Option(30.0, "--timeout", help=TIMEOUT_HELP),
    client_name: Optional[str] = typer.Option(None, "--client-name"),
    client_version: Optional[str] = typer.Option(None, "--client-version"),
) -> int:
    """Find the MCP host configs of this project and lock every server they name."""
    from mcplock.hosts import config_hash, discover, load_host_config
    from mcplock.lock.read import load

    if policy not in POLICIES:
        raise UsageError(f"--policy takes one of {', '.join(POLICIES)}")
    project = _lock_dir()
    found = discover(project)
    s = output.settings()
    if not found:
        raise UsageError(f"no MCP host config found in {project}",
                         hint="looked for .mcp.json, .cursor/mcp.json, .vscode/mcp.json, .codex/config.toml, .gemini/settings.json; "
                         "add servers with `mcplock add NAME -- CMD…` or `mcplock add --from FILE`")
    existing = set(load(_lockfile()).servers) if os.path.exists(_lockfile()) else set()
    specs: list[tuple[ServerSpec, str | None]] = []
    taken: dict[str, str] = {}
    for path in found:
        cfg = load_host_config(path, source=_source_path(str(path)), project_dir=project)
        rel = _source_path(str(path))
        s.err.print(Text(f"found {rel} ({cfg.host}): ").append_text(
            safe_text(", ".join(sorted(cfg.servers)) or "no servers", keep_newlines=False)))
        for w in cfg.warnings:
            s.err.print(Text("note: ", style="yellow").append_text(safe_text(f"{rel}: {w}", keep_newlines=False)))
        for name, why in sorted(cfg.skipped.items()):
            s.err.print(Text("note: ", style="yellow").append_text(safe_text(f"skipped `{name}`: {why}", keep_newlines=False)))
        for name, imp in sorted(cfg.servers.items()):
            for n in (*imp.templated, *imp.warnings):
                s.err.print(Text("note: ", style="yellow").append_text(safe_text(f"{name}: {n}", keep_newlines=False)))
            if name in existing:
                continue
            if name in taken:
                s.err.print(Text(f"note: `{name}` is also in {taken[name]}; keeping that one", style="yellow"))
                continue
            taken[name] = rel
            specs.append((imp.spec, config_hash(imp.spec)))
    if not specs:
        output.info("every server is already locked; `mcplock refresh` re-probes them")
        return 0
    return _add_specs(specs, policy, yes, _options(timeout, client_name, client_version))


def _had_dashdash() -> bool:
    from mcplock.cli import app

    return "--" in app.raw_args


def register(app: typer.Typer) -> None:
    app.command("add")(cmd_add)
    app.command("refresh")(cmd_refresh)
    app.command("diff")(cmd_diff)
    app.command("inspect")(cmd_inspect)
    app.command("init")(cmd_init)
