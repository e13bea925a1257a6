"""Trust before the first launch (direnv-style): nothing that came from a file runs before a
person on this machine trusted it.

A launch spec needs trust when running it hands something away: every stdio command (it runs
code), and a remote server whose URL, headers, OAuth client secret or ID token expand a
``${VAR}`` (the value is sent to that URL, an ID token to the identity provider's token
endpoint). A remote server without templates receives nothing of the user's and needs none.

The record lives outside the repository, per user: ``trust.json`` in ``$MCPLOCK_CONFIG_DIR``
when set, else the platform's user data directory (``$XDG_DATA_HOME/mcplock`` or
``~/.local/share/mcplock`` on Linux). It maps a project (the real path of the lock's
directory) to the hashes of the launch specs trusted there, so a second clone is a new
project and a pulled change to a command asks again. Written atomically, 0600 in a 0700
directory, under an advisory lock.

In CI (``CI`` set to a true value) the lock is the reviewed artefact: launch specs exactly as
the lock has them need no record. Specs from a host config still do.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from mcplock.errors import UntrustedError
from mcplock.lock.auth_spec import AuthSpec
from mcplock.lock.hashing import definition_hash
from mcplock.lock.model import ServerEntry
from mcplock.lock.spec import ServerSpec
from mcplock.lock.templates import template_names
from mcplock.model import paths
from mcplock.text.untrusted import sanitize, shell_word

FORMAT = 1
SHOWN = 4000  # characters of one command line shown before `…`


def store_path(environ: Mapping[str, str] | None = None) -> Path:
    return paths.data_dir(environ) / "trust.json"


def machine_secret(environ: Mapping[str, str] | None = None) -> bytes | None:
    """This user's machine key (:func:`mcplock.model.machine_key.machine_secret`, a leaf so that
    lower layers, the package cache, can sign with it too)."""
    from mcplock.model.machine_key import machine_secret as secret

    return secret(environ)


def project_key(lock_dir: str) -> str:
    """The project a lock belongs to: the real path of the directory that holds it (so
    ``/link/proj`` and ``/real/proj`` are one project; a lock *file* that is a link elsewhere
    belongs to the directory it was found in, not to its target's: docs/trust.md, "Symlinks")."""
    return os.path.realpath(lock_dir)


def real_cwd(cwd: str | None) -> str | None:
    """Where a stdio server really starts: an absolute ``cwd`` with every link resolved (as
    the OS resolves it, ``..`` after the link); a relative one or a template is kept as written."""
    if not cwd or not os.path.isabs(cwd) or "${" in cwd:
        return cwd
    return os.path.realpath(cwd)


def is_ci(environ: Mapping[str, str] | None = None) -> bool:
    env = os.environ if environ is None else environ
    return env.get("CI", "").strip().lower() not in ("", "0", "false", "no", "off")


# --- what a launch spec runs and hands away ---------------------------------------------------


def launch_dict(spec: ServerSpec) -> dict[str, object]:
    """The part of a spec that decides what runs and what it receives (what trust is given to)."""
    out: dict[str, object] = {"transport": spec.transport}
    if spec.stdio:
        out.update(
            command=spec.command,
            args=list(spec.args),
            cwd=real_cwd(spec.cwd),
            env=dict(sorted(spec.env.items())),
            **{"pass-env": sorted(set(spec.pass_env))},
        )
        if spec.package is not None:  # a moved pin runs other code: it asks again
            out["package"] = spec.package.stored()
    else:
        out.update(url=spec.url, headers=dict(sorted(spec.headers.items())))
        if spec.auth is not None:
            out.update(_auth_launch(spec.auth))
    return out


_ID_TOKEN_KEYS = ("id-token", "idp-token-endpoint", "idp-client-id", "idp-client-secret", "issuer")


def _auth_launch(auth: AuthSpec) -> dict[str, object]:
    """What a remote server's auth hands away: a client secret, a key it signs with (what is
    read, and where), an ID token (what is sent, and to whom)."""
    out: dict[str, object] = {}
    if auth.client_secret:
        out["client-secret"] = auth.client_secret
    if auth.client_key:
        out["client-key"] = auth.client_key
    table = auth.stored()  # a table, not the bare method, whenever any of these is set
    if auth.id_token and isinstance(table, dict):
        out.update({k: v for k, v in table.items() if k in _ID_TOKEN_KEYS})
    return out


def launch_hash(spec: ServerSpec) -> str:
    return definition_hash(launch_dict(spec), what=f"server `{spec.name}` launch spec")


def received(spec: ServerSpec) -> list[str]:
    """Names of the variables of mcplock's environment whose values the server receives."""
    texts = [spec.command or "", *spec.args, *spec.env.values(), spec.cwd or ""] if spec.stdio else _remote_texts(spec)
    names = [n for t in texts for n in template_names(t) if n != "MCPLOCK_PROJECT_DIR"]
    if spec.stdio:
        names += list(spec.pass_env)
    return list(dict.fromkeys(names))


def _remote_texts(spec: ServerSpec) -> list[str]:
    """The templates a remote server's requests carry: its URL, its headers, its OAuth secrets."""
    auth = spec.auth
    secrets = (auth.client_secret, auth.client_key, auth.id_token, auth.idp_client_secret) if auth is not None else ()
    return [spec.url or "", *spec.headers.values(), *(t for t in secrets if t)]


def needs_trust(spec: ServerSpec) -> bool:
    # a client key (even a literal path) is a private key of this machine put to use: asked first
    return spec.stdio or bool(received(spec)) or bool(spec.auth is not None and spec.auth.client_key)


def describe(spec: ServerSpec) -> str:
    """One plain line (untrusted text made safe): the command line or URL that would run, and
    the names of the variables it receives."""
    what = _command_line(spec) if spec.stdio else _remote_line(spec)
    line = f"{sanitize(spec.name, 200)}: {sanitize(what, SHOWN)}"
    return line + "".join(_warnings(spec))


def _command_line(spec: ServerSpec) -> str:
    """A stdio server's environment and command line, and where it starts (through a link:
    where it really runs, too)."""
    words = [f"{k}={v}" for k, v in sorted(spec.env.items())]
    words += [spec.command or "", *spec.args]
    what = shlex.join(words)
    if spec.cwd:
        where = real_cwd(spec.cwd) or spec.cwd
        what += f"  (in {shlex.quote(spec.cwd)}" + ("" if where == spec.cwd else f" → {shlex.quote(where)}") + ")"
    return what


def _remote_line(spec: ServerSpec) -> str:
    """A remote server's transport, URL and headers, the key it signs with, where it exchanges an
    ID token."""
    heads = "".join(f" -H {shlex.quote(f'{k}: {v}')}" for k, v in sorted(spec.headers.items()))
    what = f"{spec.transport} {spec.url}{heads}"
    auth = spec.auth
    if auth is not None and auth.client_key:
        what += f"  (signs with the key {auth.client_key})"
    if auth is not None and auth.idp_token_endpoint:
        what += f"  (exchanges an ID token at {auth.idp_token_endpoint}"
        what += f", authorization server {auth.issuer})" if auth.issuer else ")"
    return what


def _warnings(spec: ServerSpec) -> list[str]:
    """What the line adds after the command: a container that reaches the host, the package pin
    that really runs, variables that load code outside it, the variables the server receives."""
    from mcplock.packages.envcode import of_spec

    out = []
    escapes = _container_escapes(spec)
    if escapes:
        out.append(f"  — THE CONTAINER REACHES THE HOST: {sanitize(', '.join(escapes), 400)}")
    if spec.package is not None:  # what runs is the pin, whatever the command line asks for
        problem = spec.package.problem()
        out.append(
            f"  — runs the pinned {spec.package.registry} package {sanitize(spec.package.label, 200)}"
            + (f" (REFUSED: {problem})" if problem else "")
        )
    code = of_spec(spec)
    if code:
        out.append(f"  — LOADS CODE OUTSIDE THE PIN: {sanitize(', '.join(code), 400)}")
    names = received(spec)
    if names:
        out.append(f"  — receives {', '.join(names)}")
    return out


def _container_escapes(spec: ServerSpec) -> list[str]:
    """What of the host a stdio server's container is given (``docker run`` options)."""
    if not spec.stdio:
        return []
    from mcplock.packages.command_line import parse
    from mcplock.packages.launchers import Launch, host_access

    launch = parse(spec.command, spec.args)
    return host_access(launch.options) if isinstance(launch, Launch) and launch.registry == "oci" else []


# --- the record -------------------------------------------------------------------------------


class TrustStore:
    def __init__(self, environ: Mapping[str, str] | None = None, path: Path | None = None) -> None:
        self.path = path if path is not None else store_path(environ)

    def _read(self) -> dict[str, dict[str, str]]:
        from mcplock.model.machine_key import require_private

        require_private(self.path)  # a record others could write trusts nothing: it is refused, with the fix
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            return {}  # unreadable or damaged: nothing is trusted, a person is asked again
        projects = data.get("projects") if isinstance(data, dict) else None
        if not isinstance(projects, dict):
            return {}
        return {p: dict(h) for p, h in projects.items() if isinstance(h, dict)}

    def trusted(self, project: str) -> set[str]:
        return set(self._read().get(project, {}))

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.path.with_suffix(".lock"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            try:
                import fcntl

                fcntl.flock(fd, fcntl.LOCK_EX)
            except ImportError:  # pragma: no cover - not POSIX
                pass
            yield
        finally:
            os.close(fd)

    def add(self, project: str, specs: Iterable[ServerSpec]) -> None:
        new = {launch_hash(s): s.name for s in specs}
        if not new:
            return
        with self._locked():
            projects = self._read()
            projects.setdefault(project, {}).update(new)
            body = json.dumps({"version": FORMAT, "projects": projects}, indent=2, sort_keys=True) + "\n"
            fd, tmp = tempfile.mkstemp(prefix=".trust-", dir=self.path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    os.fchmod(fh.fileno(), 0o600)
                    fh.write(body)
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(tmp, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise


# --- the gate ---------------------------------------------------------------------------------


def untrusted(
    specs: Iterable[ServerSpec],
    lock_dir: str,
    *,
    reviewed: set[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> list[ServerSpec]:
    """The specs that need trust and have none in this project. ``reviewed``: launch hashes
    as the lock has them, which need none in CI."""
    need = [s for s in specs if needs_trust(s)]
    if not need:
        return []
    done = TrustStore(environ).trusted(project_key(lock_dir))
    if reviewed and is_ci(environ):
        done |= reviewed
    return [s for s in need if launch_hash(s) not in done]


def gate(
    specs: Iterable[ServerSpec],
    lock_dir: str,
    *,
    how: str,
    reviewed: set[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> None:
    """Raise :class:`UntrustedError` naming what would run unless all of it is trusted.
    ``how`` is the command that trusts it (``mcplock init --trust``); ``{names}`` in it stands
    for the names of the servers (``mcplock trust {names}``)."""
    pending = untrusted(specs, lock_dir, reviewed=reviewed, environ=environ)
    if not pending:
        return
    n = len(pending)
    how = how.replace("{names}", " ".join(shell_word(s.name) for s in pending))
    lines = "\n".join("  " + describe(s) for s in pending)
    raise UntrustedError(
        f"{'this server has' if n == 1 else f'these {n} servers have'} not been trusted to run in this project "
        f"(nothing ran):\n{lines}",
        specs=pending,
        hint=f"review {'it' if n == 1 else 'them'}, then run `{how}` (or answer the question at a terminal)",
    )


def trust_command(lockfile: str) -> str:
    """``mcplock trust {names}`` for this lock (``{names}``: filled in by :func:`gate`)."""
    default = os.environ.get("MCPLOCK_LOCKFILE") or "mcp.lock"
    opt = "" if os.path.abspath(lockfile) == os.path.abspath(default) else f" --lockfile {shlex.quote(lockfile)}"
    return f"mcplock{opt} trust {{names}}"


def reviewed(selected: Iterable[ServerEntry], lock_dir: str) -> set[str]:
    """The launch hashes of locked servers as the lock has them (what CI may run)."""

    return {launch_hash(srv.as_launched(lock_dir)) for srv in selected}


def trust(specs: Iterable[ServerSpec], lock_dir: str, environ: Mapping[str, str] | None = None) -> None:
    """Record ``specs`` as trusted in this project (runs nothing)."""
    TrustStore(environ).add(project_key(lock_dir), [s for s in specs if needs_trust(s)])
