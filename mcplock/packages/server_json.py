"""An MCP Registry entry (server.json, schema 2025-12-11) as a launch spec: pure, no I/O.

The entry's first package mcplock can pin (npm, PyPI, OCI; a stdio transport) becomes a command
line exactly as a person would type it — ``npx -y PKG@V``, ``uvx PKG==V``, ``docker run -i --rm
IMAGE:TAG`` with the entry's runtime hint and its runtime and package arguments — built as an
argument list, never a string for a shell. An entry without such a package but with a remote
becomes a URL. Values the user supplies (environment variables, arguments and headers without a
fixed value, ``{placeholders}``) become ``${VAR}`` templates: nothing secret is written, and the
required ones are named.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from mcplock.model.transports import Transport

SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
PINNABLE = ("npm", "pypi", "oci", "mcpb")
DEFAULT_HINT = {"npm": "npx", "pypi": "uvx", "oci": "docker", "mcpb": "mcpb"}
_REMOTE = {"streamable-http": Transport.HTTP, "sse": Transport.SSE}  # server.json's remote types
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


class EntryError(ValueError):
    """The entry cannot be turned into a launch mcplock can pin (the message says why)."""


@dataclass
class Launch:
    """What the entry runs: a command line or a remote, and the package it names."""

    transport: Transport
    command: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    registry_type: str | None = None  # the package's: "npm" | "pypi" | "oci" | "mcpb"
    file_sha256: str | None = None  # mcpb: the bundle's sha256, as the entry publishes it
    identifier: str | None = None  # the package's name or image, as the entry names it
    version: str | None = None  # the package's version (an image's tag)
    pass_env: list[str] = field(default_factory=list)  # optional variables: passed on when set
    required: list[str] = field(default_factory=list)  # variables the user must set
    notes: list[str] = field(default_factory=list)


def env_name(name: str) -> str:
    """A variable name for a value the user supplies: ``api-key`` -> ``API_KEY``."""
    out = re.sub(r"[^A-Za-z0-9_]+", "_", name.lstrip("-")).strip("_").upper()
    return out if out and not out[0].isdigit() else f"V_{out}"


def _templated(value: str) -> str:
    """``{var}`` placeholders in an entry's value as ``${VAR}`` templates."""
    return _PLACEHOLDER.sub(lambda m: "${" + env_name(m.group(1)) + "}", value)


def _filled(value: Any) -> TypeGuard[str]:
    """Whether an entry's field is a non-empty string."""
    return isinstance(value, str) and bool(value)


def _input(item: dict[str, Any], fallback: str, out: Launch) -> str | None:
    """The value of an input (an argument, a variable, a header): its fixed ``value`` (with
    placeholders templated), else a ``${VAR}`` template (with its ``default`` as fallback unless
    it is secret); None for an optional input with neither."""
    value = item.get("value")
    secret = bool(item.get("isSecret"))
    if _filled(value) and not secret:
        _require_placeholders(item, value, out)
        return _templated(value)
    return _template(item, env_name(fallback), secret, out)


def _template(item: dict[str, Any], var: str, secret: bool, out: Launch) -> str | None:
    """The ``${VAR}`` template for an input the user supplies (``${VAR:-default}`` when it has
    a default that is no secret); None for an optional input with no value, secret or not."""
    default = item.get("default")
    if item.get("isRequired"):
        _require(var, out)
    if _filled(default) and not secret:
        return "${" + var + ":-" + default.replace("}", "") + "}"
    if item.get("isRequired") or secret or isinstance(item.get("value"), str):
        return "${" + var + "}"
    return None


def _require_placeholders(item: dict[str, Any], value: str, out: Launch) -> None:
    """The variables of a fixed value's ``{placeholders}`` the entry marks required."""
    for m in _PLACEHOLDER.finditer(value):
        spec = (item.get("variables") or {}).get(m.group(1)) or {}
        if spec.get("isRequired"):
            _require(env_name(m.group(1)), out)


def _require(var: str, out: Launch) -> None:
    if var not in out.required:
        out.required.append(var)


def _arguments(items: Any, out: Launch) -> list[str]:
    """Runtime or package arguments: a positional one is its value; a named one is its name,
    followed by its value when it has one (``--port 8080``); a flag is its name alone."""
    argv: list[str] = []
    for a in items or []:
        if isinstance(a, dict):
            argv.extend(_named(a, out) if a.get("type") == "named" else _positional(a, out))
    return argv


def _positional(a: dict[str, Any], out: Launch) -> list[str]:
    """A positional argument's words: its value, none for an optional one nobody set."""
    value = _input(a, str(a.get("valueHint") or a.get("name") or "arg"), out)
    return [] if value is None else [value]


def _named(a: dict[str, Any], out: Launch) -> list[str]:
    """A named argument's words: ``[name, value]``, ``[name]`` for a flag, none for an optional
    option nobody set (or one without a name)."""
    name = a.get("name")
    if not _filled(name):
        return []
    has_value = _takes_value(a)
    value = _input(a, name, out) if has_value or a.get("isRequired") else None
    if value is None:
        return [] if has_value else [name]
    return [name, value]


def _takes_value(a: dict[str, Any]) -> bool:
    """Whether a named argument takes a value (it gives one, a default or a hint for one);
    one that does not is a flag."""
    return "value" in a or "default" in a or "valueHint" in a


def pick_package(server: dict[str, Any]) -> dict[str, Any] | None:
    """The first package mcplock can pin and run over stdio; a package registry's before an MCPB
    bundle (a download from anywhere, pinned only by the entry's hash)."""
    usable = [p for p in server.get("packages") or [] if _pinnable_stdio(p)]
    return next((p for p in usable if p["registryType"] != "mcpb"), usable[0] if usable else None)


def _pinnable_stdio(p: Any) -> bool:
    """Whether an entry's package is of a kind mcplock pins and runs over stdio (the transport
    an entry does not name)."""
    return (
        isinstance(p, dict)
        and p.get("registryType") in PINNABLE
        and ((p.get("transport") or {}).get("type") or "stdio") == "stdio"  # server.json's name, not ours
    )


def image_ref(identifier: str, version: str | None) -> tuple[str, str | None]:
    """An OCI identifier (``docker.io/mcp/time:1.0``, or a name with ``version`` as its tag) as
    (reference to run, tag)."""
    if "@sha256:" in identifier:
        return identifier, None
    last = identifier.rsplit("/", 1)[-1]
    if ":" in last:
        return identifier, last.split(":", 1)[1]
    return (f"{identifier}:{version}" if version else identifier), version


def launch_of(server: dict[str, Any]) -> Launch:
    """The launch the entry describes; :class:`EntryError` when there is none mcplock can pin."""
    pkg = pick_package(server)
    if pkg is not None:
        return _package(pkg)
    remote = next((r for r in server.get("remotes") or [] if _usable_remote(r)), None)
    if remote is not None:
        return _remote(remote)
    raise _nothing_to_run(server)


def _nothing_to_run(server: dict[str, Any]) -> EntryError:
    """The error for an entry with neither a package mcplock runs nor a remote: the kinds of
    package it has, if any."""
    kinds = sorted({str(p.get("registryType")) for p in server.get("packages") or [] if isinstance(p, dict)})
    return EntryError(
        "it has no npm, PyPI, OCI or MCPB package run over stdio, and no remote"
        + (f" (its packages: {', '.join(kinds)})" if kinds else "")
    )


def _usable_remote(r: Any) -> bool:
    """Whether an entry's remote has a transport mcplock connects with and a URL."""
    return isinstance(r, dict) and r.get("type") in _REMOTE and isinstance(r.get("url"), str)


def _remote(r: dict[str, Any]) -> Launch:
    """A remote as a URL (templated in its path only) and its headers' values or templates."""
    out = Launch(transport=_REMOTE[r["type"]])
    _check_remote_url(r["url"])
    out.url = _templated(r["url"])
    for h in r.get("headers") or []:
        if isinstance(h, dict) and isinstance(h.get("name"), str):
            value = _input(h, h["name"], out)
            if value is not None:
                out.headers[h["name"]] = value
    return out


def _check_remote_url(url: str) -> None:
    """A remote's URL may template its path (``/{tenant}/mcp``), never its host or its query: a
    variable there chooses where the request goes, or puts a value in every log on the way
    (``?key={GITHUB_TOKEN}``); such an entry is refused (docs/pins.md, "The MCP Registry")."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        raise EntryError(f"its remote's URL `{url[:200]}` is not a URL") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise EntryError(f"its remote's URL `{url[:200]}` is not an http(s) URL")
    for where, text in (("host", parts.netloc), ("query", parts.query), ("fragment", parts.fragment)):
        if _has_template(text):
            raise EntryError(
                f"its remote's URL `{url[:200]}` has a template in its {where}: a variable must "
                "not choose where the request goes nor ride in its query"
            )


def _has_template(text: str) -> bool:
    """Whether part of a URL holds a template (``{var}``, ``${VAR}``) or a piece of one."""
    return "{" in text or "$" in text or "}" in text


def _package(pkg: dict[str, Any]) -> Launch:
    """The command line that runs the entry's package, with its runtime hint's launcher."""
    kind = str(pkg["registryType"])
    ident = pkg.get("identifier")
    if not _filled(ident) or ident.startswith("-"):
        raise EntryError(f"its {kind} package has no identifier")
    version = pkg.get("version") if isinstance(pkg.get("version"), str) else None
    hint = _runtime_hint(pkg, kind)
    out = Launch(transport=Transport.STDIO, registry_type=kind, identifier=ident, version=version)
    runtime = _arguments(pkg.get("runtimeArguments"), out)
    package = _arguments(pkg.get("packageArguments"), out)
    _COMMAND_LINE[kind](out, pkg, hint, runtime, package)
    _environment(pkg.get("environmentVariables"), out)
    return out


def _runtime_hint(pkg: dict[str, Any], kind: str) -> Any:
    """The launcher the package asks for (its kind's default when it names none); one that
    cannot run the package as mcplock pins it is refused."""
    hint = pkg.get("runtimeHint") or DEFAULT_HINT[kind]
    if hint not in _HINTS[kind]:
        raise EntryError(f"its runtime hint `{hint}` cannot run a {kind} package that mcplock pins")
    return hint


def _npm_line(out: Launch, pkg: dict[str, Any], hint: str, runtime: list[str], package: list[str]) -> None:
    ref = f"{out.identifier}@{out.version}" if out.version else str(out.identifier)
    if hint == "pnpm":
        out.command, out.args = "pnpm", ["dlx", *runtime, ref, *package]
    else:
        yes = [] if "-y" in runtime or "--yes" in runtime else ["-y"]
        out.command, out.args = hint, [*yes, *runtime, ref, *package]


def _pypi_line(out: Launch, pkg: dict[str, Any], hint: str, runtime: list[str], package: list[str]) -> None:
    ref = f"{out.identifier}=={out.version}" if out.version else str(out.identifier)
    if hint == "pipx":
        out.command, out.args = "pipx", ["run", *runtime, ref, *package]
    else:
        out.command, out.args = "uvx", [*runtime, ref, *package]


def _mcpb_line(out: Launch, pkg: dict[str, Any], hint: str, runtime: list[str], package: list[str]) -> None:
    ident, sha = str(out.identifier), pkg.get("fileSha256")
    if not re.match(r"https?://", ident) or not isinstance(sha, str) or not re.fullmatch(r"[0-9a-f]{64}", sha):
        raise EntryError("its MCPB package needs an http(s) URL and its fileSha256")
    out.file_sha256 = sha
    out.command, out.args = "mcpb", [ident, *package]


def _oci_line(out: Launch, pkg: dict[str, Any], hint: str, runtime: list[str], package: list[str]) -> None:
    ref, out.version = image_ref(str(out.identifier), out.version)
    out.command, out.args = "docker", ["run", *(runtime or ["-i", "--rm"]), ref, *package]


#: the runtime hints that run each kind of package as mcplock pins it (the default one first)
_HINTS = {"npm": ("npx", "pnpm", "pnpx"), "pypi": ("uvx", "pipx"), "oci": ("docker",), "mcpb": ("mcpb",)}
_COMMAND_LINE = {"npm": _npm_line, "pypi": _pypi_line, "mcpb": _mcpb_line, "oci": _oci_line}


def _environment(variables: Any, out: Launch) -> None:
    """The package's environment variables: a value (or a ``${VAR}`` template) in ``env``; an
    optional one nobody set passed on as it is when the user has it set."""
    for v in variables or []:
        if _named_variable(v):
            value = _input(v, v["name"], out)
            if value is None:
                out.pass_env.append(v["name"])
            else:
                out.env[v["name"]] = value


def _named_variable(v: Any) -> bool:
    """Whether an entry's environment variable has a name a shell could set."""
    return isinstance(v, dict) and isinstance(v.get("name"), str) and bool(_VAR_NAME.fullmatch(v["name"]))


_VAR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def repository(server: dict[str, Any]) -> str | None:
    repo = server.get("repository")
    url = repo.get("url") if isinstance(repo, dict) else None
    return url if _filled(url) else None
