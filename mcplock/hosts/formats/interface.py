"""What one host's config format is to the importer (:class:`Importer`), and the rules several
hosts share. One module per host implements it; :mod:`mcplock.hosts.formats` registers them."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from mcplock.hosts.importers import Entry, Skip, dig, explicit_type, guess_remote, servers_map
from mcplock.hosts.interpolate import host_name
from mcplock.hosts.parse import Where
from mcplock.lock.spec import Transport

Convert = Callable[[str], str]  # a value in the host's variable syntax → mcplock's ${VAR}
Found = tuple[str, Entry, list[str]]  # (server name, its entry, notes about it from the file)


class Importer:
    """One host's config format: where its servers are, which transport an entry means, the
    fields a server's spec is made of. The defaults are the common shape (``mcpServers``,
    ``command``/``args``/``env`` or ``url``/``headers``)."""

    host: ClassVar[str]
    servers_key: ClassVar[tuple[str, ...]] = ("mcpServers",)
    reads_cwd: ClassVar[bool] = False  # the host documents a stdio server's `cwd`

    def by_name(self, path: Path, data: dict[str, Any]) -> bool:
        """Whether a file of this name (and, where the name says little, this shape) is this host's."""
        return False

    def is_toml(self, path: Path) -> bool:
        """Whether a file of this host named ``path`` (its format forced) is TOML; a ``.toml`` name always is."""
        return False

    # --- the servers of a file ------------------------------------------------------------

    def keys(self, data: dict[str, Any]) -> tuple[str, ...] | None:
        """Where the servers object is (None: nowhere this host would look)."""
        return self.servers_key

    def missing(self, data: dict[str, Any]) -> str:
        """The note for a file without the servers object."""
        return f"no `{'.'.join(self.keys(data) or self.servers_key)}` in this file: nothing to import"

    def servers(
        self, where: Where, data: dict[str, Any], project_dir: str | os.PathLike[str] | None, warnings: list[str]
    ) -> list[Found]:
        """Every server entry of the file, in its order, with what the file says of each."""
        keys = self.keys(data)
        if keys is None or dig(data, keys) is None:
            warnings.append(self.missing(data))
            return []
        found: list[Found] = [(n, e, []) for n, e in servers_map(where, data, keys)]
        self.annotate(data, found)
        return found

    def annotate(self, data: dict[str, Any], found: list[Found]) -> None:
        """Notes from elsewhere in the file (a server the host would not start)."""

    # --- one server -------------------------------------------------------------------------

    def route(self, e: Entry, warnings: list[str]) -> tuple[Transport, str | None]:
        """(transport, url): the fields every host reads type-checked first (a wrong type is an
        error whichever the host goes by), then :meth:`transport`."""
        self.check_fields(e)
        transport, url = self.transport(e, warnings)
        return Transport(transport), url

    def check_fields(self, e: Entry) -> None:
        e.string("command")
        e.string("url")

    def transport(self, e: Entry, warnings: list[str]) -> tuple[Transport, str | None]:
        """(transport, url) of an entry, by this host's rules; raises Skip."""
        raise NotImplementedError

    def stdio(self, e: Entry, conv: Convert, warnings: list[str]) -> dict[str, Any]:
        """The spec fields of a stdio entry (command, args, env, cwd, pass_env)."""
        command = _command(e)
        args = e.str_list("args")
        env = e.str_map("env")
        cwd = self._cwd(e, warnings)
        if e.has("envFile"):
            warnings.append("envFile is not read by mcplock: set those variables in the environment")
        return {
            "command": conv(command),
            "args": [conv(a) for a in args],
            "env": {k: conv(v) for k, v in env.items()},
            "cwd": conv(cwd) if cwd is not None else None,
            "pass_env": self.pass_env(e, env),
        }

    def _cwd(self, e: Entry, warnings: list[str]) -> str | None:
        """The entry's ``cwd`` when this host reads one (else it is ignored, with a warning)."""
        cwd = e.string("cwd")
        if cwd is not None and not self.reads_cwd:
            warnings.append(f"cwd is not a {host_name(self.host)} setting: ignored")
            return None
        return cwd

    def pass_env(self, e: Entry, env: dict[str, str]) -> tuple[str, ...]:
        """Variables the host forwards from its own environment (names only)."""
        return ()

    def headers(self, e: Entry, warnings: list[str]) -> dict[str, str]:
        """A remote entry's headers."""
        return e.str_map("headers")


def _command(e: Entry) -> str:
    """A stdio entry's command; an entry without one (or a blank one) is skipped."""
    command = e.string("command")
    if not command or not command.strip():
        raise Skip('type "stdio" without a command' if e.has("type") else "empty command")
    return command


def editor_transport(
    e: Entry, host: str, url: str | None, warnings: list[str], *, both: str | None = None
) -> tuple[Transport, str | None]:
    """The editors' rule (Cursor, Windsurf, VS Code): an explicit ``type`` wins; else ``command``
    is stdio, ``url`` remote. Both without a type: ``both`` is the host's choice (VS Code starts
    the command), else skipped as ambiguous."""
    t = explicit_type(e)
    if t is not None:
        return t, url
    command = e.string("command")
    if command is not None and url is not None:
        return _both_given(both, warnings)
    if command is not None:
        return Transport.STDIO, None
    if url is not None:
        return guess_remote(url, host, warnings), url
    raise Skip("neither command nor url" + (" (nor serverUrl)" if host == "windsurf" else ""))


def _both_given(both: str | None, warnings: list[str]) -> tuple[Transport, str | None]:
    """An entry with both a command and a URL and no type: stdio where the host starts the
    command (``both`` says so, as a warning), else skipped as ambiguous."""
    if both is None:
        raise Skip("both command and url without a type: ambiguous")
    warnings.append(both)
    return Transport.STDIO, None
