"""Which package a server's command line runs: one small parser per launcher, no I/O.

:func:`mcplock.packages.command_line.parse` (``parse(command, args)``: a launcher, directly or
behind a wrapper, :mod:`mcplock.packages.wrappers`) returns a :class:`Launch` (registry, package, the version or tag the
command line asks for, the executable and the server's own arguments) or a :class:`NoPin`
saying why there is nothing to pin (a local script, a git URL, extra unpinned packages…).

A new launcher is one function ``(argv after the launcher) -> Launch | NoPin`` added to
:data:`LAUNCHERS`, keyed by the executable's name.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Sequence

from mcplock.packages.launch import LOCAL, Launch, NoPin, _scan, _values
from mcplock.packages.oci import _docker, host_access, image_ref

__all__ = [
    "LAUNCHERS",
    "LOCAL",
    "Launch",
    "NoPin",
    "host_access",
    "image_ref",
    "launcher_name",
    "npm_spec",
    "pypi_spec",
]

# --- npm ---------------------------------------------------------------------------------------

_NPM_NAME = re.compile(r"^(@[a-z0-9~-][a-z0-9._~-]*/)?[a-z0-9~-][a-z0-9._~-]*$")


def npm_spec(spec: str) -> tuple[str, str | None] | None:
    """``@scope/name@1.2.3`` → (``@scope/name``, ``1.2.3``); None for what is not a registry
    package (git, GitHub shorthand, tarball URL, path, ``npm:`` alias)."""
    at = spec.find("@", 1)
    name, version = (spec, None) if at < 0 else (spec[:at], spec[at + 1 :] or None)
    if not _NPM_NAME.match(name):
        return None
    if version is not None and _names_a_place(version):
        return None
    return name, None if version in (None, "latest") else version


def _names_a_place(version: str) -> bool:
    """Whether what follows ``name@`` is a git ref, URL or path (``github:o/r``) rather than
    a version, range or tag."""
    return ":" in version or "/" in version


_NPX_VALUED = frozenset(
    {
        "--package",
        "-p",
        "--registry",
        "--cache",
        "--userconfig",
        "--prefix",
        "--loglevel",
        "--node-options",
        "--workspace",
        "-w",
        "--script-shell",
        "--call",
        "-c",
    }
)


def _npm_launch(launcher: str, argv: Sequence[str], valued: frozenset[str]) -> Launch | NoPin:
    opts, i = _scan(argv, valued)
    packages = _values(opts, "--package", "-p")
    unpinned = _npm_unpinned(opts, packages, names_one=i < len(argv))
    if unpinned:
        return NoPin(f"no registry pin ({launcher} {unpinned})")
    if packages:  # `--package SPEC BIN`: the package and the executable it runs
        what, bin_name = packages[0], argv[i]
    else:
        what, bin_name = argv[i], None
    parsed = npm_spec(what or "")
    if parsed is None:
        return NoPin(f"no registry pin ({what} is not an npm registry package)")
    return Launch(launcher, "npm", parsed[0], parsed[1], bin=bin_name, args=tuple(argv[i + 1 :]))


def _npm_unpinned(opts: list[tuple[str, str | None]], packages: list[str | None], names_one: bool) -> str | None:
    """Why an npx / pnpm dlx command line has nothing to pin, in the order it is checked
    (None: a package to read)."""
    if _values(opts, "--call", "-c", "--shell-mode"):
        return "runs a shell command"
    if _values(opts, "--registry"):
        return "names another registry"
    if not names_one:
        return "names no package"
    if len(packages) > 1:
        return "installs several packages"
    return None


def _npx(argv: Sequence[str]) -> Launch | NoPin:
    return _npm_launch("npx", argv, _NPX_VALUED)


_PNPM_VALUED = frozenset(
    {
        "--package",
        "-p",
        "--reporter",
        "--dir",
        "-C",
        "--allow-build",
        "--registry",
        "--loglevel",
        "--filter",
        "-F",
        "--workspace-root",
    }
)


def _pnpm(argv: Sequence[str]) -> Launch | NoPin:
    opts, i = _scan(argv, _PNPM_VALUED)  # global options before `dlx`
    if argv[i : i + 1] != ["dlx"]:
        return LOCAL
    return _pnpx([*_as_words(opts), *argv[i + 1 :]])


def _as_words(opts: list[tuple[str, str | None]]) -> Iterator[str]:
    """Scanned options written out again, a value as its own word."""
    for key, value in opts:
        yield key
        if value is not None:
            yield value


def _pnpx(argv: Sequence[str]) -> Launch | NoPin:
    return _npm_launch("pnpm dlx", argv, _PNPM_VALUED)


# --- PyPI --------------------------------------------------------------------------------------

_PY_NAME = r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?"
_PY_SPEC = re.compile(
    rf"^(?P<name>{_PY_NAME})(?P<extras>\[[^\]]*\])?\s*"
    r"(?:@\s*(?P<at>[^\s:/]+)|(?P<spec>(?:[=<>!~]=?|===)\s*\S+))?$"
)


def pypi_spec(spec: str) -> tuple[str, str | None] | None:
    """``name[extra]==1.2`` / ``name@1.2`` → (``name``, ``1.2``); a range stays a specifier
    (``>=1,<2``); None for a URL, path or VCS reference."""
    m = _PY_SPEC.match(spec.strip())
    if m is None:
        return None
    name = m.group("name")
    if m.group("at"):
        at = m.group("at")
        return name, None if at == "latest" else at
    s = m.group("spec")
    if not s:
        return name, None
    if _one_version(s):
        return name, s[2:].strip()
    return name, s.replace(" ", "")


def _one_version(specifier: str) -> bool:
    """Whether a specifier names exactly one version: ``==1.2``, not ``===``, a wildcard
    (``==1.*``) or a list (``==1.2,!=1.2.1``)."""
    s = specifier
    return s.startswith("==") and not s.startswith("===") and "," not in s and "*" not in s


_UVX_VALUED = frozenset(
    {
        "--from",
        "--with",
        "-w",
        "--with-editable",
        "--with-requirements",
        "--python",
        "-p",
        "--index",
        "--index-url",
        "-i",
        "--default-index",
        "--extra-index-url",
        "--find-links",
        "-f",
        "--constraints",
        "-c",
        "--build-constraints",
        "-b",
        "--overrides",
        "--env-file",
        "--directory",
        "--project",
        "--config-file",
        "--cache-dir",
        "--color",
        "--python-platform",
        "--resolution",
        "--prerelease",
        "--exclude-newer",
        "--index-strategy",
        "--keyring-provider",
        "--link-mode",
        "--refresh-package",
        "--reinstall-package",
        "--upgrade-package",
        "-P",
        "--no-binary-package",
        "--no-build-package",
        "--config-setting",
        "-C",
        "--allow-insecure-host",
        "--torch-backend",
        "--with-executables-from",
        "--python-preference",
        "--python-downloads",
        "--exclude-newer-package",
        "--build-constraint",
        "--override",
        "--constraint",
        "--group",
        "--extra",
        "--config-settings-package",
    }
)
_UNPINNED_UV = (
    "--with",
    "-w",
    "--with-editable",
    "--with-requirements",
    "--with-executables-from",
    "--index",
    "--index-url",
    "-i",
    "--default-index",
    "--extra-index-url",
    "--find-links",
    "-f",
)


def _pypi_launch(launcher: str, pkg: str | None, app: str, rest: Sequence[str]) -> Launch | NoPin:
    parsed = pypi_spec(pkg if pkg is not None else app)
    if parsed is None:
        return NoPin(f"no registry pin ({pkg or app} is not a PyPI package)")
    name, requested = parsed
    bin_name = app if pkg is not None else name
    return Launch(launcher, "pypi", name, requested, bin=bin_name, args=tuple(rest))


def _uvx(argv: Sequence[str]) -> Launch | NoPin:
    opts, i = _scan(argv, _UVX_VALUED)
    extra = [k for k, _ in opts if k in _UNPINNED_UV]
    if extra:
        return NoPin(f"no registry pin (uvx {extra[0]} adds packages or indexes mcplock does not pin)")
    if i >= len(argv):
        return NoPin("no registry pin (uvx names no package)")
    frm = _values(opts, "--from")
    return _pypi_launch("uvx", frm[-1] if frm else None, argv[i], argv[i + 1 :])


def _uv(argv: Sequence[str]) -> Launch | NoPin:
    if len(argv) >= 2 and argv[0] == "tool" and argv[1] == "run":
        return _uvx(argv[2:])
    return LOCAL


_PIPX_VALUED = frozenset({"--spec", "--python", "--pip-args", "--index-url", "-i", "--backend", "--fetch-python"})


def _pipx(argv: Sequence[str]) -> Launch | NoPin:
    opts, i = _scan(argv, frozenset())
    if i >= len(argv) or argv[i] != "run":
        return LOCAL
    argv = argv[i + 1 :]
    opts, i = _scan(argv, _PIPX_VALUED)
    if _values(opts, "--index-url", "-i", "--pip-args"):
        return NoPin("no registry pin (pipx run names another index or pip options)")
    if i >= len(argv):
        return NoPin("no registry pin (pipx run names no package)")
    spec = _values(opts, "--spec")
    return _pypi_launch("pipx run", spec[-1] if spec else None, argv[i], argv[i + 1 :])


def _mcpb(argv: Sequence[str]) -> Launch | NoPin:
    """``mcpb URL [ARGS]``: the MCPB bundle at URL, as a server added from the MCP Registry
    records it (only its pin runs it: mcplock/packages/mcpb.py)."""
    if not argv or not re.match(r"https?://", argv[0]):
        return NoPin("no registry pin (`mcpb` names no bundle URL)")
    return Launch("mcpb", "mcpb", argv[0], args=tuple(argv[1:]))


LAUNCHERS: dict[str, Callable[[Sequence[str]], Launch | NoPin]] = {
    "npx": _npx,
    "pnpx": _pnpx,
    "pnpm": _pnpm,
    "uvx": _uvx,
    "uv": _uv,
    "pipx": _pipx,
    "docker": _docker,
    "podman": _docker,
    "mcpb": _mcpb,
}


def launcher_name(command: str) -> str:
    base = os.path.basename(command.replace("\\", "/"))
    for suffix in (".cmd", ".exe", ".bat"):
        if base.lower().endswith(suffix):
            return base[: -len(suffix)]
    return base
