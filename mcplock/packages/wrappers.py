"""Commands that launch a registry package through something else: ``env X=1 npx …``,
``sh -c 'npx …'``, ``npm exec``, ``bunx``, ``yarn dlx``, ``node …/npx-cli.js``, ``python -m uv
tool run``, ``timeout 60 uvx …`` (docs/policy.md, "Launchers behind a wrapper"). No I/O.

mcplock pins what a launcher it knows runs (:mod:`mcplock.packages.launchers`); through a
wrapper, the pin cannot be applied, so the launch is **unpinned** whatever version it names.
:func:`unwrap` says what is inside, as far as it can be read — the package (for
``packages.allow-registries`` and ``servers.allow``) — or that it cannot be read (a shell
command with expansions): then it is an unpinned launch of an unknown package.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from mcplock.packages.launchers import LAUNCHERS, Launch, NoPin, _npx, _pipx, _uv, launcher_name, npm_spec

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox", "cmd", "powershell", "pwsh"})
#: commands that run the rest of their arguments as a command (options skipped as far as known)
_PREFIXES = frozenset(
    {
        "timeout",
        "nice",
        "nohup",
        "stdbuf",
        "exec",
        "command",
        "sudo",
        "doas",
        "setsid",
        "time",
        "ionice",
        "chrt",
        "taskset",
        "xargs",
        "unbuffer",
        "caffeinate",
        "firejail",
        "systemd-run",
        "flock",
        "su",
        "runuser",
        "chroot",
        "proot",
        "script",
        "watch",
        "strace",
        "ltrace",
    }
)
_SHELL_SYNTAX = re.compile(r"[;&|<>$`(){}\n*?~]")
_PYTHON = re.compile(r"^(python|py)(\d+(\.\d+)?)?$")
_NODE_SCRIPTS = {
    "npx-cli.js": "npx",
    "npx": "npx",
    "npx.js": "npx",
    "npm-cli.js": "npm",
    "npm": "npm",
    "pnpm.cjs": "pnpm",
    "pnpm.js": "pnpm",
    "pnpm.mjs": "pnpm",
    "yarn.js": "yarn",
    "yarn.cjs": "yarn",
}
_DEPTH = 6


@dataclass(frozen=True)
class Wrapped:
    """A launch behind a wrapper: ``via`` names the wrappers (``env``, ``sh -c``, ``npm exec`` …),
    ``launch`` what runs inside when it could be read (a :class:`Launch` or a :class:`NoPin`
    saying why nothing could), ``opaque`` that part of it could not be read (a shell expansion)."""

    via: str
    launch: Launch | NoPin
    opaque: bool = False

    @property
    def identity(self) -> str:
        """How `servers.allow` sees it: ``npm:NAME`` when the package is known, else ``unknown``."""
        if isinstance(self.launch, Launch) and not self.opaque:
            return f"{self.launch.registry}:{self.launch.name}"
        return "unknown"

    @property
    def reason(self) -> str:
        inside = (
            f"{self.launch.launcher} {self.launch.name}"
            if isinstance(self.launch, Launch)
            else "a command mcplock cannot read"
            if self.opaque
            else "a package"
        )
        return (
            f"no registry pin ({inside} runs through `{self.via}`, so no pin can be applied: write the "
            "launcher's own command line)"
        )


def _env(argv: Sequence[str]) -> tuple[list[str], list[str]] | None:
    """``env`` arguments -> (the command line it runs, the words of ``-S``), None when it runs none."""
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            i += 1
            break
        if a in ("-u", "--unset", "-C", "--chdir"):
            i += 2
            continue
        if a in ("-S", "--split-string") and i + 1 < len(argv):
            try:
                return [*shlex.split(argv[i + 1]), *argv[i + 2 :]], []
            except ValueError:
                return None
        if a.startswith("-S") and len(a) > 2:
            try:
                return [*shlex.split(a[2:]), *argv[i + 1 :]], []
            except ValueError:
                return None
        if a.startswith("-"):
            i += 1
            continue
        break
    while i < len(argv) and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", argv[i]):
        i += 1
    return (list(argv[i:]), []) if i < len(argv) else None


def _shell_string(name: str, argv: Sequence[str]) -> str | None:
    """The command string a shell is given (``-c STRING``, ``-lc STRING``, ``cmd /c …``,
    ``powershell -Command …``), None when it is given none (a script, or interactive)."""
    if name == "busybox":
        return _shell_string("sh", argv[1:]) if argv[:1] == ["sh"] else None
    for i, a in enumerate(argv):
        low = a.lower()
        if name == "cmd" and low in ("/c", "/k"):
            return " ".join(argv[i + 1 :])
        if name in ("powershell", "pwsh") and low in ("-command", "-c"):
            return " ".join(argv[i + 1 :])
        if re.fullmatch(r"-[a-z]*c[a-z]*", a) and name not in ("cmd", "powershell", "pwsh"):
            return argv[i + 1] if i + 1 < len(argv) else None
        if not a.startswith("-"):
            return None
    return None


def _find_launcher(words: Sequence[str], via: str, depth: int) -> Wrapped | None:
    """The first word that is a launcher (or a wrapper of one), read from there on."""
    for i, w in enumerate(words):
        name = launcher_name(w)
        if (
            name in LAUNCHERS
            or name in _PREFIXES
            or name in SHELLS
            or name == "env"
            or name in ("bunx", "bun", "yarn", "npm", "deno")
            or _PYTHON.match(name)
            or name == "node"
        ):
            inner = _read(w, list(words[i + 1 :]), depth + 1)
            if inner is not None:
                return Wrapped(f"{via} → {inner.via}" if inner.via else via, inner.launch, inner.opaque)
    return None


def _read(command: str, argv: list[str], depth: int) -> Wrapped | None:
    """``command argv`` read as a launch: a Wrapped with ``via`` empty for a launcher run directly,
    the wrappers otherwise; None for a local command that launches no package."""
    if depth > _DEPTH:
        return Wrapped("…", NoPin("no registry pin (wrappers nested too deep)"), opaque=True)
    name = launcher_name(command)
    if name in ("pnpm", "yarn") and argv[:1] == ["exec"]:
        inner = _read(argv[1], argv[2:], depth + 1) if len(argv) > 1 else None
        return _wrap(f"{name} exec", inner) or Wrapped(
            f"{name} exec",
            NoPin(
                f"no registry pin ({name} exec runs `{argv[1] if len(argv) > 1 else ''}` from the project's packages)"
            ),
            opaque=True,
        )
    if name in LAUNCHERS:
        got = LAUNCHERS[name](argv)
        if (
            isinstance(got, NoPin)
            and name in ("pnpm", "uv", "docker", "podman", "pipx")
            and got.reason.endswith("(local command)")
        ):
            return None  # `pnpm install`, `uv run …`: not a launch
        return Wrapped("", got)
    if name == "env":
        line = _env(argv)
        if line is None or not line[0]:
            return None
        return _wrap("env", _read(line[0][0], line[0][1:], depth + 1))
    if name in SHELLS:
        text = _shell_string(name, argv)
        if text is None:
            return None
        try:
            words = shlex.split(text, posix=name not in ("cmd", "powershell", "pwsh"))
        except ValueError:
            return Wrapped(f"{name} -c", NoPin("no registry pin (a shell command mcplock cannot read)"), opaque=True)
        found = _find_launcher(words, f"{name} -c", depth)
        if found is not None:
            return found if not _SHELL_SYNTAX.search(text) else Wrapped(found.via, found.launch, opaque=True)
        if _SHELL_SYNTAX.search(text):  # expansions, pipes, substitutions: what runs is not on the line
            return Wrapped(f"{name} -c", NoPin("no registry pin (a shell command mcplock cannot read)"), opaque=True)
        return None
    if name == "npm" and argv[:1] in (["exec"], ["x"]):
        return Wrapped("npm exec", _relabel(_npx(argv[1:]), "npm exec"))
    if name == "yarn" and argv[:1] == ["dlx"]:
        return Wrapped("yarn dlx", _relabel(_npx(argv[1:]), "yarn dlx"))
    if name == "bunx" or (name == "bun" and argv[:1] == ["x"]):
        return Wrapped("bunx", _relabel(_npx(argv[1:] if name == "bun" else argv), "bunx"))
    if name == "deno":
        spec = next((a[4:] for a in argv if a.startswith("npm:")), None)
        parsed = npm_spec(spec) if spec else None
        if parsed is not None:
            return Wrapped("deno run", Launch("deno", "npm", parsed[0], parsed[1]))
        return None
    if name == "node" and argv:
        script = _NODE_SCRIPTS.get(os.path.basename(argv[0].replace("\\", "/")))
        if script is None:
            return None
        inner = _read(script, argv[1:], depth + 1)
        return _wrap(
            f"node {os.path.basename(argv[0])}", inner if inner is None or inner.via else Wrapped("", inner.launch)
        )
    if _PYTHON.match(name) and len(argv) >= 2 and argv[0] == "-m" and argv[1] in ("uv", "pipx", "uvx"):
        fn = {"uv": _uv, "pipx": _pipx, "uvx": LAUNCHERS["uvx"]}[argv[1]]
        got = fn(argv[2:])
        if isinstance(got, NoPin) and got.reason.endswith("(local command)"):
            return None
        return Wrapped(f"{name} -m {argv[1]}", got)
    if name in _PREFIXES:
        return _find_launcher(argv, name, depth)
    return None


def _relabel(got: Launch | NoPin, launcher: str) -> Launch | NoPin:
    from dataclasses import replace

    return replace(got, launcher=launcher) if isinstance(got, Launch) else got


def _wrap(via: str, inner: Wrapped | None) -> Wrapped | None:
    if inner is None:
        return None
    return Wrapped(f"{via} → {inner.via}" if inner.via else via, inner.launch, inner.opaque)


def unwrap(command: str | None, args: Sequence[str]) -> Wrapped | None:
    """What ``command args`` launches through a wrapper; None when it is a launcher mcplock
    knows run directly, or a local command that launches no package."""
    if not command:
        return None
    got = _read(command, list(args), 0)
    return got if got is not None and got.via else None
