"""Which command lines provably run the project's own code, and nothing fetched at launch
(docs/policy.md, "What a server runs"). No I/O.

An allow list of forms, never a list of wrappers to catch: what is not one of these forms is not
provably local, whatever it is called (``volta run``, ``mise exec``, ``NPX``, ``node -e``, ``nix
run`` and tomorrow's launcher alike):

- an interpreter running a script file: ``node [safe options] FILE``, ``python [safe options]
  FILE``, ``deno run [permissions] FILE``, ``bun [run] FILE.js|ts``, ``uv run [safe options]
  FILE.py``, ``ruby|perl|php FILE``. No inline code (``-e``, ``-c``, ``-p``, ``-r``), no module
  from the environment (``python -m``), no preloading (``--require``, ``--import``), no URL or
  registry specifier (``jsr:``, ``npm:``, ``https:``) as the script;
- an executable given as a relative path inside the project (``./server``, ``dist/server``)
  that is not itself a launcher;
- one of those behind a transparent prefix: ``env [VAR=V…]``, ``sh -c 'CMD'`` (a command string
  with no shell syntax: no expansion, substitution, pipe or list), ``nice``, ``nohup``, ``exec``,
  ``timeout DURATION``, ``stdbuf``, ``setsid``, ``time``.

An interpreter is known by its name however it is written (``/usr/bin/node``, ``NODE.EXE``): a
case variant of ``node`` still runs the script named. A launcher is never local.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Sequence

_DEPTH = 6
_SCRIPT_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")  # npm:, jsr:, https:, file: (a drive `C:\` is not)
_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")
_SHELL_SYNTAX = re.compile(r"[;&|<>$`(){}\n*?~\\!#]|\beval\b")
_PYTHON = re.compile(r"^(python|py)(\d+(\.\d+)*)?$")
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash"})

_NODE_FLAGS = frozenset(
    {
        "--no-warnings",
        "--enable-source-maps",
        "--trace-warnings",
        "--no-deprecation",
        "--trace-deprecation",
        "--inspect",
        "--inspect-brk",
        "--experimental-strip-types",
        "--no-experimental-strip-types",
    }
)
_NODE_VALUED_PREFIXES = ("--max-old-space-size=", "--stack-size=", "--inspect=", "--inspect-brk=")
_PYTHON_FLAGS = frozenset({"-u", "-B", "-E", "-I", "-O", "-OO", "-s", "-S", "-q", "-P", "-bb", "-b"})
_PYTHON_VALUED = frozenset({"-W", "-X"})
_UV_RUN_FLAGS = frozenset({"--frozen", "--locked", "--no-sync", "--offline", "-q", "--quiet", "--no-dev", "--isolated"})
_DENO_FLAGS = re.compile(
    r"^(-A|--allow-all|--allow-[a-z-]+(=\S*)?|-q|--quiet|--no-check|--check|--unstable(-[a-z-]+)?)$"
)
_BUN_SCRIPT = re.compile(r"\.(m?[jt]sx?|c[jt]s)$", re.IGNORECASE)
_PREFIX_VALUED = {
    "nice": frozenset({"-n", "--adjustment"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
}
_PREFIXES = frozenset({"nice", "nohup", "exec", "stdbuf", "setsid", "time", "timeout"})


def name_of(command: str) -> str:
    """The executable's name as the system finds it: the basename, without a Windows suffix,
    lower-cased (``NPX.CMD`` is ``npx``: Windows and macOS file systems ignore case)."""
    base = os.path.basename(command.replace("\\", "/")).lower()
    for suffix in (".cmd", ".exe", ".bat", ".ps1"):
        if base.endswith(suffix):
            return base[: -len(suffix)]
    return base


def interpreter(command: str) -> bool:
    """Whether ``command`` names an interpreter whose script forms :func:`is_local` reads."""
    name = name_of(command)
    return name in _INTERPRETERS or _PYTHON.match(name) is not None


def is_local(command: str | None, args: Sequence[str], depth: int = 0) -> bool:
    """Whether ``command args`` provably runs a file of the project with a known interpreter (or
    the file itself), possibly behind a transparent prefix (see the module's docstring)."""
    if not command or depth > _DEPTH:
        return False
    name = name_of(command)
    reader = _INTERPRETERS.get(name) or (_python if _PYTHON.match(name) else None)
    if reader is not None:
        return reader(list(args))
    if name in _SHELLS:
        return _shell(list(args), depth)
    if name == "env":
        return _env(list(args), depth)
    if name in _PREFIXES:
        return _prefix(name, list(args), depth)
    return _project_executable(command)


def _script(word: str) -> bool:
    """A script file named on a command line: not an option, not stdin, no URL or specifier."""
    if not word or word.startswith("-") or word == "-":
        return False
    return _DRIVE.match(word) is not None or _SCRIPT_SCHEME.match(word) is None


def _project_executable(command: str) -> bool:
    """``./server``, ``dist/server``: a relative path inside the project, not a launcher's name."""
    from mcplock.packages.launchers import LAUNCHERS

    path = command.replace("\\", "/")
    if "/" not in path or path.startswith("/") or _DRIVE.match(command) or _SCRIPT_SCHEME.match(path):
        return False
    if ".." in path.split("/"):
        return False
    return name_of(command) not in LAUNCHERS and name_of(command) not in _KNOWN_NOT_LOCAL


#: names that are never a project's own executable, even as ``./name`` (launchers, wrappers,
#: version managers, package managers)
_KNOWN_NOT_LOCAL = frozenset(
    {"npm", "yarn", "bunx", "corepack", "volta", "fnm", "nvm", "mise", "asdf", "rtx", "nix", "deno", "bun", "env"}
)


def _node(argv: list[str]) -> bool:
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        a = argv[i]
        if a not in _NODE_FLAGS and not a.startswith(_NODE_VALUED_PREFIXES):
            return False  # -e, -p, -r, --import, --loader, an option not known to be harmless
        i += 1
    return i < len(argv) and _script(argv[i])


def _python(argv: list[str]) -> bool:
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        a = argv[i]
        if a in _PYTHON_VALUED:
            i += 2
            continue
        if a not in _PYTHON_FLAGS:
            return False  # -c, -m, anything not known to be harmless
        i += 1
    return i < len(argv) and _script(argv[i])


def _deno(argv: list[str]) -> bool:
    if argv[:1] != ["run"]:
        return False
    rest = argv[1:]
    i = 0
    while i < len(rest) and rest[i].startswith("-"):
        if not _DENO_FLAGS.match(rest[i]):
            return False
        i += 1
    return i < len(rest) and _script(rest[i])


def _bun(argv: list[str]) -> bool:
    rest = argv[1:] if argv[:1] == ["run"] else argv
    return bool(rest) and _script(rest[0]) and _BUN_SCRIPT.search(rest[0]) is not None


def _uv(argv: list[str]) -> bool:
    if argv[:1] != ["run"]:
        return False
    rest = argv[1:]
    i = 0
    while i < len(rest) and rest[i].startswith("-"):
        if rest[i] not in _UV_RUN_FLAGS:
            return False  # --with, --from, --index … fetch what no lock of the project pins
        i += 1
    return i < len(rest) and _script(rest[i]) and rest[i].endswith(".py")


def _plain(argv: list[str]) -> bool:
    """``ruby FILE``, ``perl FILE``, ``php FILE``: no option at all (``-e``, ``-r`` run code)."""
    return bool(argv) and _script(argv[0])


_INTERPRETERS: dict[str, Callable[[list[str]], bool]] = {
    "node": _node,
    "nodejs": _node,
    "deno": _deno,
    "bun": _bun,
    "uv": _uv,
    "ruby": _plain,
    "perl": _plain,
    "php": _plain,
}


def _shell(argv: list[str], depth: int) -> bool:
    """``sh -c 'CMD'`` (``-lc`` …) with a plain command string that is itself local."""
    if len(argv) != 2 or not re.fullmatch(r"-[a-z]*c[a-z]*", argv[0]):
        return False
    text = argv[1]
    if _SHELL_SYNTAX.search(text):
        return False
    try:
        words = shlex.split(text)
    except ValueError:
        return False
    return bool(words) and is_local(words[0], words[1:], depth + 1)


def _env(argv: list[str], depth: int) -> bool:
    """``env [-i] [-u VAR] [VAR=V …] CMD …`` with CMD local."""
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        if argv[i] in ("-i", "--ignore-environment", "-0", "--null"):
            i += 1
        elif argv[i] in ("-u", "--unset"):
            i += 2
        else:
            return False  # -S, -C and the rest: read no further
    while i < len(argv) and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", argv[i]):
        i += 1
    return i < len(argv) and is_local(argv[i], argv[i + 1 :], depth + 1)


def _prefix(name: str, argv: list[str], depth: int) -> bool:
    """``nice [-n N] CMD``, ``timeout [opts] DURATION CMD`` …: CMD local."""
    valued = _PREFIX_VALUED.get(name, frozenset())
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        i += 2 if argv[i] in valued else 1
    if name == "timeout":
        if i >= len(argv) or not re.fullmatch(r"\d+(\.\d+)?[smhd]?", argv[i]):
            return False
        i += 1
    return i < len(argv) and is_local(argv[i], argv[i + 1 :], depth + 1)
