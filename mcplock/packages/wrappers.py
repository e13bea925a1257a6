"""Commands that launch a registry package through something else: ``env X=1 npx …``,
``sh -c 'npx …'``, ``npm exec``, ``bunx``, ``yarn dlx``, ``node …/npx-cli.js``, ``python -m uv
tool run``, ``timeout 60 uvx …`` (docs/policy.md, "Launchers behind a wrapper"). No I/O.

mcplock pins what a launcher it knows runs (:mod:`mcplock.packages.launchers`); through a
wrapper, the pin cannot be applied, so the launch is **unpinned** whatever version it names.
:func:`unwrap` says what is inside, as far as it can be read — the package (for
``packages.allow-registries`` and ``servers.allow``) — or that it cannot be read (a shell
command with expansions): then it is an unpinned launch of an unknown package.

Each wrapper is one reader ``(name, argv, depth) -> Wrapped | None``, found by the command's name
(:data:`_BY_NAME`) or by its name and subcommand (:data:`_BY_SUBCOMMAND`): a new wrapper is one
reader and one row.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Sequence
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


def _env(argv: Sequence[str]) -> list[str] | None:
    """``env`` arguments -> the command line it runs, None when it runs none."""
    at = _env_options(argv)
    if not isinstance(at, int):
        return at
    while at < len(argv) and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", argv[at]):
        at += 1
    return list(argv[at:]) if at < len(argv) else None


def _env_options(argv: Sequence[str]) -> int | list[str] | None:
    """Where ``env``'s options end; or, when ``-S STRING`` ends them, the command line STRING
    and the rest make (None when STRING cannot be split)."""
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        a = argv[i]
        if a == "--":
            return i + 1
        given = _string_option(argv, i)
        if given is not None:
            return _split_string(*given)
        i += 2 if a in ("-u", "--unset", "-C", "--chdir") else 1
    return i


def _string_option(argv: Sequence[str], i: int) -> tuple[str, Sequence[str]] | None:
    """The string ``env -S STRING`` (``-SSTRING``) at ``argv[i]`` gives, and the words after
    it; None when the word is no such option."""
    a = argv[i]
    if a in ("-S", "--split-string") and i + 1 < len(argv):
        return argv[i + 1], argv[i + 2 :]
    if a.startswith("-S") and len(a) > 2:
        return a[2:], argv[i + 1 :]
    return None


def _split_string(text: str, rest: Sequence[str]) -> list[str] | None:
    try:
        return [*shlex.split(text), *rest]
    except ValueError:
        return None


def _shell_string(name: str, argv: Sequence[str]) -> str | None:
    """The command string a shell is given (``-c STRING``, ``-lc STRING``, ``cmd /c …``,
    ``powershell -Command …``), None when it is given none (a script, or interactive)."""
    if name == "busybox":
        return _shell_string("sh", argv[1:]) if argv[:1] == ["sh"] else None
    windows = _WINDOWS_STRING_FLAGS.get(name)
    return _posix_string(argv) if windows is None else _windows_string(argv, windows)


def _posix_string(argv: Sequence[str]) -> str | None:
    """A POSIX shell's command string: the word after ``-c`` (or ``-lc`` …), among the options."""
    for i, a in enumerate(argv):
        if re.fullmatch(r"-[a-z]*c[a-z]*", a):
            return argv[i + 1] if i + 1 < len(argv) else None
        if not a.startswith("-"):
            return None
    return None


def _windows_string(argv: Sequence[str], flags: tuple[str, ...]) -> str | None:
    """A Windows shell's command string: the rest of the line after ``/c`` (``-Command`` …)."""
    for i, a in enumerate(argv):
        if a.lower() in flags:
            return " ".join(argv[i + 1 :])
        if not a.startswith("-"):
            return None
    return None


_WINDOWS_STRING_FLAGS = {"cmd": ("/c", "/k"), "powershell": ("-command", "-c"), "pwsh": ("-command", "-c")}


def _find_launcher(words: Sequence[str], via: str, depth: int) -> Wrapped | None:
    """The first word that is a launcher (or a wrapper of one), read from there on."""
    for i, w in enumerate(words):
        if _reads(launcher_name(w)):
            inner = _read(w, list(words[i + 1 :]), depth + 1)
            if inner is not None:
                return _wrap(via, inner)
    return None


#: how one command is read: ``(its name, its arguments, the depth) -> Wrapped | None``
Reader = Callable[[str, list[str], int], Wrapped | None]


def _read(command: str, argv: list[str], depth: int) -> Wrapped | None:
    """``command argv`` read as a launch: a Wrapped with ``via`` empty for a launcher run directly,
    the wrappers otherwise; None for a local command that launches no package."""
    if depth > _DEPTH:
        return Wrapped("…", NoPin("no registry pin (wrappers nested too deep)"), opaque=True)
    name = launcher_name(command)
    reader = _reader(name, argv)
    return reader(name, argv, depth) if reader is not None else None


def _reader(name: str, argv: Sequence[str]) -> Reader | None:
    """Which reader reads ``name argv``: a subcommand's (``pnpm exec``, ``npm x``) before the
    command's own (``pnpm`` is also a launcher), then any ``python``'s."""
    sub = _BY_SUBCOMMAND.get((name, argv[0])) if argv else None
    if sub is not None:
        return sub
    if name in _BY_NAME:
        return _BY_NAME[name]
    return _python_module if _PYTHON.match(name) else None


def _reads(name: str) -> bool:
    """Whether a command of this name may launch a package (with some arguments)."""
    return name in _BY_NAME or name in _SUBCOMMAND_OF or _PYTHON.match(name) is not None


def _project_exec(name: str, argv: list[str], depth: int) -> Wrapped | None:
    """``pnpm exec``/``yarn exec CMD``: CMD read, else a command from the project's packages."""
    inner = _read(argv[1], argv[2:], depth + 1) if len(argv) > 1 else None
    return _wrap(f"{name} exec", inner) or Wrapped(
        f"{name} exec",
        NoPin(f"no registry pin ({name} exec runs `{argv[1] if len(argv) > 1 else ''}` from the project's packages)"),
        opaque=True,
    )


def _launcher(name: str, argv: list[str], depth: int) -> Wrapped | None:
    """A launcher mcplock pins, run directly (``via`` empty); None when it launches nothing."""
    got = LAUNCHERS[name](argv)
    if isinstance(got, NoPin) and name in ("pnpm", "uv", "docker", "podman", "pipx") and got.reason.endswith(_LOCAL):
        return None  # `pnpm install`, `uv run …`: not a launch
    return Wrapped("", got)


def _env_command(name: str, argv: list[str], depth: int) -> Wrapped | None:
    """``env [-opts] [X=1 …] CMD`` (or ``env -S 'CMD …'``): CMD read."""
    line = _env(argv)
    if not line:
        return None
    return _wrap("env", _read(line[0], line[1:], depth + 1))


def _shell(name: str, argv: list[str], depth: int) -> Wrapped | None:
    """A shell given a command string: the launcher in it, opaque when the string has shell
    syntax (what runs is then not on the line); None for a script or an interactive shell."""
    text = _shell_string(name, argv)
    if text is None:
        return None
    unreadable = Wrapped(f"{name} -c", NoPin("no registry pin (a shell command mcplock cannot read)"), opaque=True)
    try:
        words = shlex.split(text, posix=name not in ("cmd", "powershell", "pwsh"))
    except ValueError:
        return unreadable
    found = _find_launcher(words, f"{name} -c", depth)
    syntax = _SHELL_SYNTAX.search(text) is not None  # expansions, pipes, substitutions
    if found is not None:
        return Wrapped(found.via, found.launch, opaque=True) if syntax else found
    return unreadable if syntax else None


def _npx_like(via: str, skip: int) -> Reader:
    """A package manager's own ``npx`` (``npm exec``, ``yarn dlx``, ``bunx``): npx's arguments
    after the first ``skip`` words, the launch relabelled ``via``."""

    def read(name: str, argv: list[str], depth: int) -> Wrapped | None:
        return Wrapped(via, _relabel(_npx(argv[skip:]), via))

    return read


def _deno(name: str, argv: list[str], depth: int) -> Wrapped | None:
    """``deno run … npm:PKG``: the npm package it names; None for any other module."""
    spec = next((a[4:] for a in argv if a.startswith("npm:")), None)
    parsed = npm_spec(spec) if spec else None
    return Wrapped("deno run", Launch("deno", "npm", parsed[0], parsed[1])) if parsed is not None else None


def _node_script(name: str, argv: list[str], depth: int) -> Wrapped | None:
    """``node …/npx-cli.js …`` (npm's, pnpm's, yarn's own scripts): read as that command."""
    script = _NODE_SCRIPTS.get(os.path.basename(argv[0].replace("\\", "/"))) if argv else None
    if script is None:
        return None
    return _wrap(f"node {os.path.basename(argv[0])}", _read(script, argv[1:], depth + 1))


def _python_module(name: str, argv: list[str], depth: int) -> Wrapped | None:
    """``python -m uv|uvx|pipx …``: that launcher's arguments read; None for any other module."""
    if len(argv) < 2 or argv[0] != "-m" or argv[1] not in _PYTHON_LAUNCHERS:
        return None
    got = _PYTHON_LAUNCHERS[argv[1]](argv[2:])
    if isinstance(got, NoPin) and got.reason.endswith(_LOCAL):
        return None
    return Wrapped(f"{name} -m {argv[1]}", got)


def _prefix(name: str, argv: list[str], depth: int) -> Wrapped | None:
    """``timeout 60 CMD``, ``sudo CMD`` …: the first launcher among its arguments."""
    return _find_launcher(argv, name, depth)


_LOCAL = "(local command)"
_PYTHON_LAUNCHERS = {"uv": _uv, "pipx": _pipx, "uvx": LAUNCHERS["uvx"]}
_BY_SUBCOMMAND: dict[tuple[str, str], Reader] = {
    ("pnpm", "exec"): _project_exec,
    ("yarn", "exec"): _project_exec,
    ("npm", "exec"): _npx_like("npm exec", 1),
    ("npm", "x"): _npx_like("npm exec", 1),
    ("yarn", "dlx"): _npx_like("yarn dlx", 1),
    ("bun", "x"): _npx_like("bunx", 1),
}
_SUBCOMMAND_OF = frozenset(name for name, _ in _BY_SUBCOMMAND)
#: a launcher's name is read as that launcher, whatever else shares it
_BY_NAME: dict[str, Reader] = {
    **dict.fromkeys(_PREFIXES, _prefix),
    **dict.fromkeys(SHELLS, _shell),
    "env": _env_command,
    "bunx": _npx_like("bunx", 0),
    "deno": _deno,
    "node": _node_script,
    **dict.fromkeys(LAUNCHERS, _launcher),
}


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
