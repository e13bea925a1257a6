"""The command line's values for one server (``add NAME -- CMD…``, ``add NAME URL``, ``inspect``):
``--env``, ``--pass-env``, ``--header``, ``--transport`` and the command's arguments, parsed and
checked, a literal secret refused where the spec will be locked. Flags are the CLI's: nothing
below it parses them (the library API takes a :class:`~mcplock.lock.spec.ServerSpec`)."""

from __future__ import annotations

from mcplock.errors import SecretError, UsageError
from mcplock.lock.spec import TRANSPORTS, Transport
from mcplock.lock.templates import ENV_NAME, env_var_name, looks_secret


def parse_env(items: list[str], *, refuse_secrets: bool = True) -> dict[str, str]:
    """``KEY=VALUE`` items; a literal secret is refused where the spec will be locked."""
    env: dict[str, str] = {}
    for item in items:
        k, sep, v = item.partition("=")
        if not sep or not k.strip():
            raise UsageError(f"--env takes KEY=VALUE, got `{item.split('=')[0]}`")
        if refuse_secrets and looks_secret(k, v):
            raise SecretError(
                f"--env {k}=… holds a literal secret; the lock stores only ${{VAR}} templates",
                hint=f"export it and pass --env '{k}=${{{k}}}'",
            )
        env[k] = v
    return env


def parse_pass_env(names: list[str]) -> tuple[str, ...]:
    """``--pass-env NAME`` items: variable names (a value here would be a secret in the lock)."""
    for n in names:
        if not ENV_NAME.fullmatch(n):
            shown = n.partition("=")[0] if "=" in n else ("this value" if looks_secret("", n) else f"`{n}`")
            raise UsageError(
                f"--pass-env takes a variable name, not {shown}{'=…' if '=' in n else ''}",
                hint="e.g. --pass-env NODE_EXTRA_CA_CERTS (the name; the server gets its value from "
                "your environment); a value to set goes in --env KEY=VALUE",
            )
    return tuple(sorted(set(names)))


def parse_headers(items: list[str], *, refuse_secrets: bool = True) -> dict[str, str]:
    """``Name: value`` items; a literal secret is refused where the spec will be locked."""
    headers: dict[str, str] = {}
    for item in items:
        k, sep, v = item.partition(":")
        k, v = k.strip(), v.strip()
        if not sep or not k:
            raise UsageError("--header takes 'Name: value'")
        if refuse_secrets and looks_secret(k, v):
            raise _header_secret(k, v)
        headers[k] = v
    return headers


def _header_secret(k: str, v: str) -> SecretError:
    """The refusal of a header ``k`` holding a literal secret: the variable to export, and the
    header as a template of it (an Authorization header keeps its scheme)."""
    authorization = k.lower() == "authorization"
    var = "TOKEN" if authorization else env_var_name(k)
    scheme = v.split()[0] + " " if authorization and " " in v else ""
    return SecretError(
        f"--header {k}: … holds a literal secret; the lock stores only ${{VAR}} templates",
        hint=f"export it (export {var}=…) and pass --header '{k}: {scheme}${{{var}}}'",
    )


def check_args(args: list[str]) -> None:
    for a in args:
        if looks_secret("", a):
            raise SecretError(
                "an argument of the server command holds a literal secret; the lock stores only ${VAR} templates",
                hint="export it and write the argument as ${VAR}",
            )


def check_transport(transport: str | None, *, remote: bool) -> Transport:
    """``--transport``: http (the default) or sse for a URL; nothing or stdio for a command."""
    if transport is None:
        return Transport.HTTP if remote else Transport.STDIO
    if transport in TRANSPORTS and Transport(transport).remote == remote:
        return Transport(transport)
    if remote:
        raise UsageError(f"--transport {transport} is not for a URL", hint="use --transport http or --transport sse")
    raise UsageError(f"--transport {transport} needs a URL", hint="a command runs over stdio; leave --transport out")
