"""Read ``mcp.lock`` with :mod:`tomllib` (fast path) into the model, validating as it goes.

Every problem is a :class:`LockfileError` with the file, a line number and the fix:
conflict markers, TOML syntax errors and duplicate keys (found on the raw text by
:mod:`mcplock.lock.text`), wrong types, unknown keys, a ``version`` newer than this mcplock.
Hash mismatches are not raised here: ``check`` reports them as findings.
"""

from __future__ import annotations

import os
import re
from typing import Any

from mcplock.errors import LockfileError
from mcplock.lock.auth_spec import AuthSpec
from mcplock.lock.hashing import is_hash
from mcplock.lock.headers import header_lines
from mcplock.lock.model import (
    ITEM_KINDS,
    LOCK_VERSION,
    POLICIES,
    Lock,
    Publisher,
    ServerEntry,
)
from mcplock.lock.read_items import Items
from mcplock.lock.spec import TRANSPORTS, ClientCapabilities, ClientIdentity, ServerSpec, Transport
from mcplock.lock.tables import shown_key
from mcplock.lock.templates import ENV_NAME
from mcplock.lock.text import parse_toml, read_text
from mcplock.packages.pin import PIN_KEYS, REGISTRIES, REGISTRY_KEYS, PackagePin, RegistryRef

__all__ = ["header_lines", "load", "loads", "read_text"]


SERVER_KEYS = {
    "transport",
    "command",
    "args",
    "env",
    "pass-env",
    "cwd",
    "url",
    "headers",
    "source",
    "config-hash",
    "auth",
    "policy",
    "pin-resources",
    "client",
    "client-capabilities",
    "server-info",
    "protocol-version",
    "instructions",
    "instructions-hash",
    "instructions-rejected-hash",
    "instructions-pending",
    "package",
    "registry",
    "publisher",
    *ITEM_KINDS,
}
_SHA256 = re.compile(r"^sha256:[0-9a-f]{64}$")
_INTEGRITY = {"npm": re.compile(r"^sha512-[A-Za-z0-9+/]{86}==$"), "pypi": _SHA256, "oci": _SHA256, "mcpb": _SHA256}
_INTEGRITY_WORDS = {
    "npm": "an npm `sha512-…` integrity",
    "pypi": "a `sha256:` + 64 hex digits file hash (or a list)",
    "oci": "an image digest `sha256:` + 64 hex digits",
    "mcpb": "the bundle's `sha256:` + 64 hex digits",
}
AUTH_KEYS = (
    "method",
    "client-id",
    "client-secret",
    "client-key",
    "signing-alg",
    "client-metadata-url",
    "scopes",
    "id-token",
    "idp-token-endpoint",
    "idp-client-id",
    "idp-client-secret",
    "issuer",
)


class Reader(Items):
    """The whole lock: its version, each server's own keys (launch, auth, pin, client), then its items."""

    # -- the document ---------------------------------------------------------------------
    def read(self) -> Lock:
        data = parse_toml(self.text, self.path)
        version = self.version(data)
        self.check_keys(data, (), {"version", "server"})
        servers_t = self.get(data, (), "server", dict, {})
        lock = Lock(version=version, path=self.path)
        for name, st in servers_t.items():
            lock.servers[name] = self.server(name, st)
        lock.notes = self.notes
        return lock

    def version(self, data: dict[str, Any]) -> int:
        """The lock's `version`: an integer from 1 up to the one this mcplock writes."""
        version = data.get("version")
        if version is None:
            raise self.fail((), "missing `version`", hint="is this an mcp.lock? the first key must be `version = 1`")
        if not isinstance(version, int) or isinstance(version, bool):
            raise self.fail((), "`version` must be an integer")
        if version > LOCK_VERSION:
            raise LockfileError(
                f"written by a newer mcplock (lock version {version}; this mcplock reads version {LOCK_VERSION})",
                path=self.path,
                # never `pip install -U mcplock`: on PyPI that name is another project (README, "Install")
                hint="upgrade mcplock the way it was installed: `git pull` in its clone, then `pipx install --force .` "
                '(or `pip install .` into its venv); see the README, "Install"',
                code="too-new",
            )
        if version < 1:
            raise self.fail((), f"unsupported lock version {version}")
        return version

    def server(self, name: str, st: Any) -> ServerEntry:
        table = ("server", name)
        if not isinstance(st, dict):
            raise self.fail(("server",), f"`server.{shown_key(name)}` must be a table")
        self.check_keys(st, table, SERVER_KEYS)
        transport = self.transport(st, table)
        args = self.args(st, table)
        policy = self.policy(st, table)
        pass_env = self.pass_env(st, table)
        info = self.get(st, table, "server-info", dict)
        auth = self.auth(st, table)
        spec = ServerSpec(
            name=name,
            transport=transport,
            command=self.get(st, table, "command", str),
            args=tuple(args),
            env=self.str_map(st, table, "env"),
            pass_env=tuple(pass_env),
            cwd=self.get(st, table, "cwd", str),
            url=self.get(st, table, "url", str),
            headers=self.str_map(st, table, "headers"),
            source=self.get(st, table, "source", str),
            pin_resources=self.get(st, table, "pin-resources", bool, False),
            auth=AuthSpec.from_stored(auth) if auth is not None else None,
            package=self.package(table, st),
            registry=self.registry(table, st),
        )
        srv = ServerEntry(
            name=name,
            spec=spec,
            config_hash=self.hash_value(st, table, "config-hash"),
            policy=policy,
            client=self.client(st, table),
            client_capabilities=self.client_capabilities(st, table),
            server_info=dict(info) if info is not None else None,
            protocol_version=self.get(st, table, "protocol-version", str),
            publisher=self.publisher(st, table),
        )
        self.check_reachable(spec, table)
        srv.instructions = self.instructions(table, st)
        for kind in ITEM_KINDS:
            self.items(srv, kind, st, table)
        return srv

    def args(self, st: dict[str, Any], table: tuple[str, ...]) -> list[str]:
        args = self.get(st, table, "args", list, [])
        if not all(isinstance(a, str) for a in args):
            raise self.fail(table, f"`args` in {self._where(table)} must be a list of strings")
        return list(args)

    def policy(self, st: dict[str, Any], table: tuple[str, ...]) -> str:
        policy = self.get(st, table, "policy", str, "all")
        if policy not in POLICIES:
            raise self.fail(table, f"`policy` in {self._where(table)} must be one of {', '.join(POLICIES)}")
        return str(policy)

    def transport(self, st: dict[str, Any], table: tuple[str, ...]) -> Transport:
        transport = self.get(st, table, "transport", str)
        if transport not in TRANSPORTS:
            names = ", ".join(f'"{t}"' for t in TRANSPORTS[:-1]) + f' or "{TRANSPORTS[-1]}"'
            raise self.fail(table, f"`transport` in {self._where(table)} must be {names}, not {transport!r}")
        return Transport(transport)

    def pass_env(self, st: dict[str, Any], table: tuple[str, ...]) -> list[str]:
        """`pass-env`: the names of the variables a launched server gets from the environment."""
        pass_env = self.get(st, table, "pass-env", list, [])
        if not all(isinstance(n, str) and ENV_NAME.fullmatch(n) for n in pass_env):
            raise self.fail(table, f"`pass-env` in {self._where(table)} must be a list of environment variable names")
        return list(pass_env)

    def check_reachable(self, spec: ServerSpec, table: tuple[str, ...]) -> None:
        """A stdio server has a command to run, a remote one a URL."""
        if spec.stdio and not spec.command:
            raise self.fail(table, f"a stdio server needs `command` in {self._where(table)}")
        if spec.remote and not spec.url:
            raise self.fail(table, f"an {spec.transport} server needs `url` in {self._where(table)}")

    def auth(self, st: dict[str, Any], table: tuple[str, ...]) -> str | dict[str, str] | None:
        """`auth = "oauth"` or
        `{method = …, client-id = …, client-secret = "${VAR}", client-key = …, signing-alg = …,
        client-metadata-url = …, scopes = …}`; identity-assertion adds `id-token = "${VAR}"`,
        `idp-token-endpoint`, `idp-client-id`, `idp-client-secret = "${VAR}"`, `issuer`."""
        from mcplock.lock.auth_spec import AUTH_METHODS, auth_table_problem

        v = self.get(st, table, "auth", (str, dict))
        if v is None:
            return None
        method = v if isinstance(v, str) else v.get("method")
        if method not in AUTH_METHODS:
            raise self.fail(table, f"`auth` in {self._where(table)} must name a method: {', '.join(AUTH_METHODS)}")
        if isinstance(v, str):
            return v
        self.check_auth_keys(v, table)
        problem = auth_table_problem(v)
        if problem is not None:
            key, what, hint = problem
            raise self.fail(table, f"`auth.{key}` in {self._where(table)} {what}", hint=hint)
        return dict(v)

    def check_auth_keys(self, v: dict[str, Any], table: tuple[str, ...]) -> None:
        """An `auth` table's keys are ones it may have, each a string."""
        for k, x in v.items():
            if k not in AUTH_KEYS:
                raise self.fail(table, f"unknown key `auth.{k}` in {self._where(table)}")
            if not isinstance(x, str):
                raise self.fail(table, f"`auth.{k}` in {self._where(table)} must be a string")

    def registry(self, table: tuple[str, ...], st: dict[str, Any]) -> RegistryRef | None:
        """`[server.NAME.registry]`: the MCP Registry entry the server was added from (name,
        version, url, repository): plain data, read by `outdated`/`update`."""
        rt = self.get(st, table, "registry", dict)
        if rt is None:
            return None
        rtable = (*table, "registry")
        self.check_keys(rt, rtable, set(REGISTRY_KEYS))
        for key in REGISTRY_KEYS:
            v = self.get(rt, rtable, key, str)
            if not v and key != "repository":
                raise self.fail(rtable, f"missing `{key}` in {self._where(rtable)}")
        return RegistryRef.from_stored(rt)

    def package(self, table: tuple[str, ...], st: dict[str, Any]) -> PackagePin | None:
        """`[server.NAME.package]`: registry, name, version, integrity (a string, or a list for
        PyPI), tree-integrity. Hand edits are legal; what runs is checked against them."""
        pt = self.get(st, table, "package", dict)
        if pt is None:
            return None
        ptable = (*table, "package")
        self.check_keys(pt, ptable, set(PIN_KEYS))
        registry = self.get(pt, ptable, "registry", str)
        if registry not in REGISTRIES:
            raise self.fail(ptable, f"`registry` in {self._where(ptable)} must be one of {', '.join(REGISTRIES)}")
        for key in ("name", "version"):
            if not self.get(pt, ptable, key, str):
                raise self.fail(ptable, f"missing `{key}` in {self._where(ptable)}")
        self.check_integrity(pt, ptable, registry)
        return PackagePin.from_stored(pt)

    def check_integrity(self, pt: dict[str, Any], ptable: tuple[str, ...], registry: str) -> None:
        """A pin's `integrity` (a string, or a list for PyPI) in its registry's form, and its
        `tree-integrity` a `sha256:` hash."""
        integ = self.get(pt, ptable, "integrity", (str, list))
        for v in _listed(integ):
            if not _integrity_of(registry, v):
                raise self.fail(ptable, f"`integrity` in {self._where(ptable)} is not {_INTEGRITY_WORDS[registry]}")
        tree = self.get(pt, ptable, "tree-integrity", str)
        if tree is not None and not is_hash(tree):
            raise self.fail(ptable, f"`tree-integrity` in {self._where(ptable)} is not a `sha256:` + 64 hex digits")

    def publisher(self, st: dict[str, Any], table: tuple[str, ...]) -> Publisher | None:
        """`publisher` in `[server.NAME]`: key, statement, signed-at (docs/publishers.md)."""
        if "publisher" not in st:
            return None
        pt = self.str_map(st, table, "publisher")
        if set(pt) != {"key", "statement", "signed-at"}:
            raise self.fail(table, f"`publisher` in {self._where(table)} must be {{key, statement, signed-at}}")
        return Publisher(pt["key"], pt["statement"], pt["signed-at"])

    def client_capabilities(self, st: dict[str, Any], table: tuple[str, ...]) -> ClientCapabilities | None:
        from mcplock.model.client_capabilities import KNOWN

        caps = self.get(st, table, "client-capabilities", list)
        if caps is not None and not all(isinstance(c, str) and c in KNOWN for c in caps):
            raise self.fail(
                table, f"`client-capabilities` in {self._where(table)} must be a list of {', '.join(KNOWN)}"
            )
        return tuple(caps) if caps is not None else None

    def client(self, st: dict[str, Any], table: tuple[str, ...]) -> ClientIdentity | None:
        c = self.str_map(st, table, "client") if "client" in st else None
        if c is None:
            return None
        if set(c) - {"name", "version"} or "name" not in c:
            raise self.fail(table, f'`client` in {self._where(table)} must be {{name = "…", version = "…"}}')
        return ClientIdentity(c["name"], c.get("version"))


def _listed(value: Any) -> list[Any]:
    """A value that is a list, or one item (None: no item)."""
    if isinstance(value, list):
        return value
    return [] if value is None else [value]


def _integrity_of(registry: str, v: Any) -> bool:
    """Whether ``v`` is an integrity in ``registry``'s form."""
    return isinstance(v, str) and _INTEGRITY[registry].match(v) is not None


def loads(text: str, path: str = "mcp.lock") -> Lock:
    return Reader(text, path).read()


def load(path: str | os.PathLike[str]) -> Lock:
    p = os.fspath(path)
    return loads(read_text(p), p)
