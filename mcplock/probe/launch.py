"""What a launched server gets: the one place that builds a stdio server's environment.

Every server mcplock starts (the probe of `add`, `init`, `diff`, `refresh`, `inspect`; the
guard and `call` go through the same function) gets a minimal environment, never mcplock's
whole one:

- the allowlist below, taken from mcplock's environment where set: what any program needs
  (PATH, HOME, USER, locale, temp dir, time zone, the platform's equivalents on Windows) and
  what npx, uvx, pipx, pip and docker need to find their caches, registries and daemons —
  names whose values are paths or switches, never credentials;
- proxy and package-index URLs (``HTTPS_PROXY``, ``UV_INDEX_URL`` …) only when they carry no
  credentials (``user:pass@``); one that does is left out like any other secret;
- exactly what the spec names: ``env`` (``${VAR}`` templates expanded from mcplock's
  environment; the server sees only the result) and ``pass-env`` (names passed through as
  they are, the per-server opt-in).

Nothing else: a CI job's ``GITHUB_TOKEN``, cloud keys and other servers' tokens stay with
mcplock. See docs/least-privilege.md.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mcplock.errors import ProbeError
from mcplock.lock.spec import ServerSpec
from mcplock.lock.templates import expand
from mcplock.model.sealed import seal

if TYPE_CHECKING:
    import subprocess

# Names passed through as they are (when set).
BASE = frozenset(
    {
        # POSIX
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "SHELL",
        "TERM",
        "COLORTERM",
        "LANG",
        "LANGUAGE",
        "TMPDIR",
        "TZ",
        "XDG_CONFIG_HOME",
        "XDG_CACHE_HOME",
        "XDG_DATA_HOME",
        "XDG_STATE_HOME",
        "XDG_RUNTIME_DIR",
        "XDG_CONFIG_DIRS",
        "XDG_DATA_DIRS",
        # Windows
        "SYSTEMROOT",
        "SYSTEMDRIVE",
        "WINDIR",
        "COMSPEC",
        "PATHEXT",
        "TEMP",
        "TMP",
        "USERNAME",
        "USERPROFILE",
        "HOMEDRIVE",
        "HOMEPATH",
        "APPDATA",
        "LOCALAPPDATA",
        "PROGRAMDATA",
        "PROGRAMFILES",
        "PROGRAMFILES(X86)",
        "PROGRAMW6432",
        "COMMONPROGRAMFILES",
        "PROCESSOR_ARCHITECTURE",
        "NUMBER_OF_PROCESSORS",
        # npm / npx / node version managers (where node and the package cache are)
        "NVM_DIR",
        "NVM_BIN",
        "VOLTA_HOME",
        "FNM_DIR",
        "FNM_MULTISHELL_PATH",
        "COREPACK_HOME",
        # uv / uvx, pipx, pip (caches, tool and interpreter directories, switches)
        "UV_CACHE_DIR",
        "UV_TOOL_DIR",
        "UV_TOOL_BIN_DIR",
        "UV_PYTHON_INSTALL_DIR",
        "UV_PYTHON",
        "UV_PYTHON_PREFERENCE",
        "UV_PYTHON_DOWNLOADS",
        "UV_NO_CACHE",
        "UV_OFFLINE",
        "UV_NATIVE_TLS",
        "UV_INDEX_STRATEGY",
        "PIPX_HOME",
        "PIPX_BIN_DIR",
        "PIPX_SHARED_LIBS",
        "PIPX_DEFAULT_PYTHON",
        "PIP_CACHE_DIR",
        "PIP_NO_CACHE_DIR",
        # docker (a common way to run a server): which daemon, which CLI config directory
        "DOCKER_HOST",
        "DOCKER_CONTEXT",
        "DOCKER_CONFIG",
    }
)
PREFIXES = ("LC_",)  # the locale categories
# npm reads `npm_config_<key>` case-insensitively; only these keys (paths and switches) pass.
# Others (`_auth`, `_authToken`, `//registry/:_authToken`, `email`, `otp` …) are credentials.
NPM_CONFIG_KEYS = frozenset(
    {
        "cache",
        "registry",
        "prefix",
        "userconfig",
        "globalconfig",
        "strict_ssl",
        "offline",
        "prefer_offline",
        "prefer_online",
        "update_notifier",
        "fund",
        "audit",
        "loglevel",
        "yes",
        "cafile",
    }
)
# URLs a package manager needs to reach its registry; passed only without credentials in them.
URL_NAMES = frozenset(
    {
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "NO_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
        "no_proxy",
        "UV_INDEX_URL",
        "UV_DEFAULT_INDEX",
        "UV_EXTRA_INDEX_URL",
        "UV_INDEX",
        "PIP_INDEX_URL",
        "PIP_EXTRA_INDEX_URL",
    }
)
_CREDENTIALS = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/@\s]+@")


def allowed(name: str, value: str) -> bool:
    """Whether a variable of mcplock's environment reaches a server without being asked for."""
    if name in BASE or name.startswith(PREFIXES):
        return True
    if name in URL_NAMES:
        return not _CREDENTIALS.search(value)
    if name.lower().startswith("npm_config_"):
        key = name[len("npm_config_") :].lower()
        return key in NPM_CONFIG_KEYS and not _CREDENTIALS.search(value)
    return False


def base_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The minimal environment every launched server gets."""
    return {k: v for k, v in environ.items() if allowed(k, v)}


def server_env(spec: ServerSpec, environ: Mapping[str, str]) -> dict[str, str]:
    """The whole environment of a stdio server: the minimal one, its ``pass-env`` names (when
    set), and its ``env`` with ``${VAR}`` expanded from ``environ`` (and the spec's secrets)."""
    env = base_env(environ)
    for name in spec.pass_env:
        if name in environ:
            env[name] = environ[name]
    for k, v in spec.env.items():
        env[k] = expand(v, environ, spec.secrets)
    return env


@dataclass(frozen=True)
class Launch:
    """What starting a stdio server runs: ``${VAR}`` expanded, the environment built."""

    command: str
    args: list[str]
    env: dict[str, str]
    cwd: str | None


def stdio_launch(spec: ServerSpec, environ: Mapping[str, str]) -> Launch:
    """The launch of a stdio server; ProbeError when its spec cannot start anything."""
    if not spec.command:
        raise ProbeError("config", f"server `{spec.name}` has no command to run")
    cwd = expand(spec.cwd, environ, spec.secrets) if spec.cwd else None
    seal()  # before anything starts: mcplock's own environment is not the server's to read
    if cwd is not None and not os.path.isdir(cwd):
        raise ProbeError(
            "cwd-not-found",
            f"working directory `{spec.cwd}` of server `{spec.name}` does not exist",
            hint="fix `cwd` in the server's configuration",
        )
    launch = Launch(
        expand(spec.command, environ, spec.secrets),
        [expand(a, environ, spec.secrets) for a in spec.args],
        server_env(spec, environ),
        cwd,
    )
    _script_exists(spec.name, launch)
    return launch


#: interpreters whose first argument that is not an option is the script they run
_INTERPRETER = re.compile(r"(python[0-9.]*|node|nodejs|bun|ruby|perl|php|bash|sh|zsh|dash|lua|Rscript)(\.exe)?")
_SCRIPT = re.compile(r".+\.(py|pyw|js|mjs|cjs|ts|mts|cts|rb|pl|php|sh|bash|zsh|lua|R)")


def _script_exists(name: str, launch: Launch) -> None:
    """An interpreter started on a script that is not there is a server that cannot start,
    named as such (exit 2), not an outage (exit 3) after the interpreter has said so."""
    if not _INTERPRETER.fullmatch(os.path.basename(launch.command)):
        return
    script = next((a for a in launch.args if not a.startswith("-")), None)
    if launch.args[:1] and launch.args[0] in ("-m", "-c", "-e", "-p"):
        return  # a module or inline code, no script file
    if script is None or not _SCRIPT.fullmatch(script):
        return
    path = script if os.path.isabs(script) else os.path.join(launch.cwd or os.getcwd(), script)
    if not os.path.exists(path):
        raise ProbeError(
            "script-not-found",
            f"server `{name}`: `{os.path.basename(launch.command)}` would run `{script}`, which does not exist"
            + (f" in `{launch.cwd}`" if launch.cwd else ""),
            hint="fix the path in the server's configuration (a relative path is read from the directory the "
            "server starts in: the lock's directory, or its `cwd`)",
        )


def start_early(spec: ServerSpec, environ: Mapping[str, str]) -> subprocess.Popen[bytes] | None:
    """Start a stdio server now, before mcplock's event loop exists, in its own session (the
    process group every cleanup kills), all three pipes. The guard does this once the lock,
    the trust record and the pin have let the server run, so the server's own start-up
    overlaps mcplock's (docs/performance.md, "The guard's start"); the probe transport
    adopts the process later. None where the start fails: the ordinary start then fails the
    same way and reports it where the host sees it."""
    import subprocess

    if spec.remote:
        return None
    try:
        launch = stdio_launch(spec, environ)
        return subprocess.Popen(
            [launch.command, *launch.args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=launch.env,
            cwd=launch.cwd,
            start_new_session=True,
        )
    except (OSError, ProbeError, ValueError):
        return None


def stop_unadopted(started: subprocess.Popen[bytes] | None) -> None:
    """Kill the process group of a server :func:`start_early` started that no transport
    adopted (the host left first); nothing for one that was adopted (its transport closed it)."""
    if started is None or started.returncode is not None:
        return
    import contextlib
    import signal

    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        os.killpg(started.pid, signal.SIGKILL)
    started.wait()
