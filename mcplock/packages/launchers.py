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
from dataclasses import dataclass


@dataclass(frozen=True)
class Launch:
    launcher: str  # "npx" | "pnpm dlx" | "uvx" | "pipx run" | "docker run"
    registry: str  # "npm" | "pypi" | "oci"
    name: str  # package name; an OCI image repository as written (``mcp/time``, ``ghcr.io/o/r``)
    requested: str | None = None  # version, range or tag as written (None: the newest / `latest`)
    bin: str | None = None  # the executable of the package to run (None: its default one)
    args: tuple[str, ...] = ()  # the server's own arguments
    options: tuple[str, ...] = ()  # docker run options before the image, as written
    digest: str | None = None  # oci: a digest written on the command line (``sha256:…``)


@dataclass(frozen=True)
class NoPin:
    reason: str


LOCAL = NoPin("no registry pin (local command)")

# --- shared option scanning ------------------------------------------------------------------


def _scan(argv: Sequence[str], valued: frozenset[str]) -> tuple[list[tuple[str, str | None]], int]:
    """Options up to the first positional: ``[(option, value)]`` and the positional's index.
    ``--opt=value`` and ``-o value`` (for options in ``valued``) both read; ``--`` ends options."""
    opts: list[tuple[str, str | None]] = []
    i = 0
    while i < len(argv):
        if argv[i] == "--":
            return opts, i + 1
        if not _is_option(argv[i]):
            return opts, i
        option, words = _option_at(argv, i, valued)
        opts.append(option)
        i += words
    return opts, i


def _is_option(word: str) -> bool:
    """Whether a word is an option (``-`` alone names stdin: a positional)."""
    return word.startswith("-") and word != "-"


def _option_at(argv: Sequence[str], i: int, valued: frozenset[str]) -> tuple[tuple[str, str | None], int]:
    """The option at ``argv[i]`` as ``(option, value)``, and how many words it takes."""
    a = argv[i]
    if a.startswith("--") and "=" in a:
        k, _, v = a.partition("=")
        return (k, v), 1
    if a in valued:
        return (a, argv[i + 1] if i + 1 < len(argv) else None), 2
    if _value_attached(a, valued):  # -wevil: -w evil
        return (a[:2], a[2:]), 1
    return (a, None), 1


def _value_attached(a: str, valued: frozenset[str]) -> bool:
    """Whether a word is a short valued option with its value in the same word (``-wevil``)."""
    return not a.startswith("--") and len(a) > 2 and a[:2] in valued


def _values(opts: list[tuple[str, str | None]], *names: str) -> list[str | None]:
    return [v for k, v in opts if k in names]


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


# --- OCI ---------------------------------------------------------------------------------------

_DOCKER_VALUED = frozenset(
    {
        "-e",
        "--env",
        "--env-file",
        "-v",
        "--volume",
        "--name",
        "-p",
        "--publish",
        "--network",
        "--net",
        "--entrypoint",
        "-w",
        "--workdir",
        "-u",
        "--user",
        "--mount",
        "-l",
        "--label",
        "--label-file",
        "--platform",
        "--pull",
        "-m",
        "--memory",
        "--memory-swap",
        "--memory-reservation",
        "--cpus",
        "--cpu-shares",
        "-c",
        "--cpuset-cpus",
        "--add-host",
        "--cap-add",
        "--cap-drop",
        "--device",
        "--dns",
        "--dns-search",
        "--dns-option",
        "-h",
        "--hostname",
        "--ipc",
        "--pid",
        "--restart",
        "--runtime",
        "--security-opt",
        "--shm-size",
        "--tmpfs",
        "--ulimit",
        "--gpus",
        "--log-driver",
        "--log-opt",
        "--cidfile",
        "--group-add",
        "--expose",
        "--link",
        "--volumes-from",
        "--stop-signal",
        "--stop-timeout",
        "--health-cmd",
        "--health-interval",
        "--health-retries",
        "--health-timeout",
        "--attach",
        "-a",
        "--cgroupns",
        "--cgroup-parent",
        "--isolation",
        "--mac-address",
        "--ip",
        "--ip6",
        "--network-alias",
        "--pids-limit",
        "--storage-opt",
        "--sysctl",
        "--userns",
        "--uts",
        "--detach-keys",
        "--annotation",
        "--device-cgroup-rule",
        "--blkio-weight",
        "--kernel-memory",
        "--oom-score-adj",
        "--volume-driver",
        "--domainname",
        "--dns-opt",
        "--blkio-weight-device",
        "--cpu-period",
        "--cpu-quota",
        "--cpu-rt-period",
        "--cpu-rt-runtime",
        "--cpuset-mems",
        "--device-read-bps",
        "--device-read-iops",
        "--device-write-bps",
        "--device-write-iops",
        "--health-start-period",
        "--health-start-interval",
        "--link-local-ip",
        "--memory-swappiness",
        "--cpu-count",
        "--cpu-percent",
        "--io-maxbandwidth",
        "--io-maxiops",
    }
)
# docker run's options that take no value: an option in neither set leaves the image unknown, so
# the command has no pin (a valued option mcplock did not know made it pin the option's value)
_DOCKER_FLAGS = frozenset(
    {
        "-i",
        "--interactive",
        "-t",
        "--tty",
        "-d",
        "--detach",
        "--rm",
        "--init",
        "--privileged",
        "--read-only",
        "-P",
        "--publish-all",
        "-q",
        "--quiet",
        "--sig-proxy",
        "--no-healthcheck",
        "--oom-kill-disable",
        "--disable-content-trust",
        "--help",
        "--use-api-socket",
    }
)
_SHORT_FLAGS = {o[1] for o in _DOCKER_FLAGS if len(o) == 2}
_DOCKER_GLOBAL_VALUED = frozenset(
    {"-H", "--host", "--context", "-c", "--config", "-l", "--log-level", "--tlscacert", "--tlscert", "--tlskey"}
)
_SHORT_VALUED = {o[1] for o in _DOCKER_VALUED if len(o) == 2}
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")


def image_ref(ref: str) -> tuple[str, str | None, str | None] | None:
    """``repo[:tag][@sha256:…]`` → (repo, tag, digest); None when it is not an image reference."""
    named, _, digest = ref.partition("@")
    if digest and not _DIGEST.match(digest):
        return None
    repo, tag = _split_tag(named)
    if tag == "" or not _IMAGE_REPO.match(repo):
        return None
    return repo, tag, digest or None


_IMAGE_REPO = re.compile(r"^[a-z0-9]+([._:/-][a-z0-9]+)*$")


def _split_tag(named: str) -> tuple[str, str | None]:
    """``repo:tag`` → (repo, tag): the colon after the last slash (a registry's ``host:port/``
    is no tag); tag None when there is none."""
    colon = named.rfind(":")
    if colon > named.rfind("/"):
        return named[:colon], named[colon + 1 :]
    return named, None


def _docker_opts(argv: Sequence[str]) -> int | str:
    """The index of the image in ``docker run`` arguments (short flags may be bundled: ``-it``,
    ``-eK=V``, ``-ie K=V``), or the option mcplock does not know (then where the image is is
    not known either)."""
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            return i + 1
        if not _is_option(a):
            return i
        words = _long_option(a) if a.startswith("--") else _short_options(a[1:])
        if isinstance(words, str):
            return words
        i += words
    return i


def _long_option(a: str) -> int | str:
    """How many words a ``--option`` takes (its value may be the next word), or the option when
    mcplock does not know it."""
    key = a.partition("=")[0]
    if key not in _DOCKER_VALUED and key not in _DOCKER_FLAGS:
        return key
    return 2 if ("=" not in a and a in _DOCKER_VALUED) else 1


def _short_options(letters: str) -> int | str:
    """How many words ``-abc`` takes: flags, the first valued letter taking the rest of the word
    or the next word; or the letter mcplock does not know."""
    for j, ch in enumerate(letters):
        if ch in _SHORT_VALUED:
            return 1 if j + 1 < len(letters) else 2
        if ch not in _SHORT_FLAGS:
            return f"-{ch}"
    return 1


_HOST_NAMESPACES = ("--pid", "--network", "--net", "--ipc", "--uts", "--userns", "--cgroupns")
_SOCKETS = ("/var/run/docker.sock", "/run/docker.sock", "/run/podman/podman.sock", "/var/run/podman/podman.sock")


def host_access(options: Sequence[str]) -> list[str]:
    """The ``docker run`` options (as written) that let the container out to the host: it then
    runs as the host would, whatever image the pin names (``--privileged``, a host namespace,
    the host's root or the docker socket mounted, every capability or a device)."""
    return [shown for key, value, shown in _valued_options(options) if _reaches_host(key, value)]


def _valued_options(options: Sequence[str]) -> Iterator[tuple[str, str, str]]:
    """Each option with its value, as ``(option, value, as written)``: ``--opt=V``, ``--opt V``
    (for an option that takes one), ``-vV``; a flag's value is empty."""
    i = 0
    while i < len(options):
        key, value, shown, words = _valued_option_at(options, i)
        yield key, value, shown
        i += words


def _valued_option_at(options: Sequence[str], i: int) -> tuple[str, str, str, int]:
    """The option at ``options[i]`` as ``(option, value, as written)``, and how many words it takes."""
    a = options[i]
    key, eq, value = a.partition("=")
    if not eq and key in _DOCKER_VALUED and i + 1 < len(options):
        return key, options[i + 1], f"{a} {options[i + 1]}", 2
    if not eq and len(a) > 2 and a.startswith("-v"):  # -v/src:/dst
        return a[:2], a[2:], a, 1
    return key, value, a, 1


def _reaches_host(key: str, value: str) -> bool:
    """Whether one ``docker run`` option hands the container the host."""
    src = _mount_source(key, value)
    return (
        key in ("--privileged", "--device")
        or (key in _HOST_NAMESPACES and value == "host")
        or bool(src and _host_path(src))
        or (key == "--cap-add" and value.upper() in ("ALL", "SYS_ADMIN", "SYS_PTRACE", "SYS_MODULE"))
    )


def _host_path(src: str) -> bool:
    """Whether mounting this host path hands the container the host: the docker socket, the
    root or one of its system directories."""
    return src in _SOCKETS or src.rstrip("/") in ("", "/etc", "/root", "/home", "/proc", "/sys")


def _mount_source(key: str, value: str) -> str | None:
    """The host path a ``-v``/``--volume``/``--mount`` option mounts (None for any other option)."""
    if key in ("-v", "--volume"):
        return value.split(":", 1)[0]
    if key == "--mount":
        return next((p.split("=", 1)[1] for p in value.split(",") if p.startswith(("source=", "src="))), "")
    return None


def _docker(argv: Sequence[str]) -> Launch | NoPin:
    _, i = _scan(argv, _DOCKER_GLOBAL_VALUED)
    rest = _run_arguments(argv[i:])
    if rest is None:
        return LOCAL
    at = _docker_opts(rest)
    if isinstance(at, str):
        return NoPin(f"no registry pin (docker run option {at} is not one mcplock knows, so neither is the image)")
    if at >= len(rest):
        return NoPin("no registry pin (docker run names no image)")
    ref = image_ref(rest[at])
    if ref is None:
        return NoPin(f"no registry pin ({rest[at]} is not an image reference)")
    repo, tag, digest = ref
    return Launch("docker run", "oci", repo, tag, args=tuple(rest[at + 1 :]), options=tuple(rest[:at]), digest=digest)


def _run_arguments(command: Sequence[str]) -> Sequence[str] | None:
    """What follows ``run`` / ``container run`` in a docker command (None: another command)."""
    for sub in (["run"], ["container", "run"]):
        if command[: len(sub)] == sub:
            return command[len(sub) :]
    return None


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
