"""Environment variables that make a launcher load other code (docs/pins.md, "Variables that
load code"): ``NODE_OPTIONS=--import=…``, ``LD_PRELOAD``, ``PYTHONPATH``, ``BASH_ENV`` … run code
the package pin does not cover, inside a pinned server. Such a variable is code: ``check`` and
``list`` name it (``env-loads-code``, critical), the trust question shows it, a bulk trust
(``mcplock trust`` without names, ``add --from … --trust``) never covers it, and a registry
entry that sets one is refused unless the user names it (``add --allow-code-env NAME``).

The class, not the examples: the dynamic loaders' (``LD_PRELOAD``, ``LD_LIBRARY_PATH``,
``LD_AUDIT`` and the other ``LD_`` paths, every ``DYLD_``), the runtimes' option and path
variables (Node, Python, the JVM, Perl, Ruby, PHP, Lua, Tcl, R, .NET), the shells' start-up files
(``BASH_ENV``, ``ENV``, ``ZDOTDIR``, ``PROMPT_COMMAND``), git's programs and configuration
(``GIT_SSH_COMMAND``, ``GIT_CONFIG_*`` …), npm's options that run code, glibc's module paths
(``GCONV_PATH``), ``ELECTRON_RUN_AS_NODE``. ``PATH`` is not among them: it picks the runtime
(``node``), which no pin covers anyway, and a lock that sets it is ordinary. Names compare in any
letter case: Windows reads environment names case-insensitively (``node_options`` is
``NODE_OPTIONS`` there), and npm folds the case of its ``npm_config_*``. Pure, stdlib only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from mcplock.model.transports import Transport

EXACT = frozenset(
    {
        # the dynamic loader (glibc, musl) and glibc's modules
        "LD_PRELOAD",
        "LD_LIBRARY_PATH",
        "LD_AUDIT",
        "LD_ORIGIN_PATH",
        "LD_PROFILE",
        "GCONV_PATH",
        "GETCONF_DIR",
        # Node.js, Bun, Electron
        "NODE_OPTIONS",
        "NODE_PATH",
        "NODE_REPL_EXTERNAL_MODULE",
        "ELECTRON_RUN_AS_NODE",
        "BUN_OPTIONS",
        "BUN_PRELOAD",
        # Python
        "PYTHONPATH",
        "PYTHONSTARTUP",
        "PYTHONHOME",
        "PYTHONUSERBASE",
        "PYTHONPLATLIBDIR",
        "PYTHONEXECUTABLE",
        "PYTHONBREAKPOINT",
        # the JVM
        "JAVA_TOOL_OPTIONS",
        "_JAVA_OPTIONS",
        "JDK_JAVA_OPTIONS",
        "JAVA_OPTIONS",
        "CLASSPATH",
        # shells' start-up files and hooks
        "BASH_ENV",
        "ENV",
        "ZDOTDIR",
        "PROMPT_COMMAND",
        # Perl, Ruby, PHP, Lua, Tcl, R, .NET
        "PERL5OPT",
        "PERL5LIB",
        "PERLLIB",
        "PERL5DB",
        "RUBYOPT",
        "RUBYLIB",
        "PHPRC",
        "PHP_INI_SCAN_DIR",
        "LUA_INIT",
        "LUA_PATH",
        "LUA_CPATH",
        "TCLLIBPATH",
        "R_PROFILE",
        "R_PROFILE_USER",
        "R_ENVIRON",
        "R_ENVIRON_USER",
        "DOTNET_STARTUP_HOOKS",
        "DOTNET_ADDITIONAL_DEPS",
        "CORECLR_PROFILER_PATH",
        # git: the programs it runs and the configuration that names more
        "GIT_SSH",
        "GIT_SSH_COMMAND",
        "GIT_ASKPASS",
        "SSH_ASKPASS",
        "GIT_EDITOR",
        "GIT_SEQUENCE_EDITOR",
        "GIT_PAGER",
        "GIT_EXTERNAL_DIFF",
        "GIT_EXEC_PATH",
        "GIT_TEMPLATE_DIR",
        "GIT_PROXY_COMMAND",
        "GIT_CONFIG",
        "GIT_CONFIG_GLOBAL",
        "GIT_CONFIG_SYSTEM",
        "GIT_CONFIG_PARAMETERS",
        "GIT_CONFIG_COUNT",
    }
)
PREFIXES = ("DYLD_", "LD_AUDIT", "GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_", "CORECLR_PROFILER")
#: npm's configuration that runs code (``node-options``, ``script-shell``) or names another
#: configuration file, any letter case, ``-`` or ``_``
_NPM = re.compile(
    r"^npm_config_(node[-_]options|script[-_]shell|userconfig|globalconfig|onload[-_]script|"
    r"init[-_]module)$",
    re.IGNORECASE,
)
_ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=")
_NAME = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)$")
#: the option before a shell's command string: ``-c``, ``-lc``, ``cmd /c``, ``powershell -Command``
_SHELL_STRING_FLAG = re.compile(r"-[a-z]*c[a-z]*|/c|-command", re.IGNORECASE)


def loads_code(name: str) -> bool:
    """Whether the variable ``name`` makes a launcher (or the program it starts) load other code."""
    up = name.upper()  # Windows reads environment names case-insensitively: `node_options` is NODE_OPTIONS there
    return up in EXACT or up.startswith(PREFIXES) or _NPM.match(name) is not None


def _assigned(words: Sequence[str], depth: int = 0) -> list[str]:
    """Variables a command line sets for what it runs: ``env [-opts] X=1 …``, ``docker run -e X=1``
    (or ``-e X``, ``--env=X=1``), npx's ``--node-options`` (``NODE_OPTIONS``), and the same inside
    a shell string (``sh -c 'X=1 npx …'``)."""
    return [name for i in range(len(words)) for name in _set_by(words, i, depth)]


def _set_by(words: Sequence[str], i: int, depth: int) -> list[str]:
    """The variables the word ``words[i]`` sets, read by what it is."""
    import os

    w = words[i]
    if os.path.basename(w.replace("\\", "/")) == "env":
        return _env_assignments(words[i + 1 :])
    if w == "--node-options" or w.startswith("--node-options="):  # npx's own NODE_OPTIONS
        return ["NODE_OPTIONS"]
    docker = _docker_env(words, i)
    if docker is not None:
        return docker
    if _shell_string_at(words, i, depth):
        return _shell_assignments(w, depth)
    return []


def _docker_env(words: Sequence[str], i: int) -> list[str] | None:
    """The variable ``docker run -e X=1`` (``--env X``, ``--env=X=1``) at ``words[i]`` sets
    (``[]``: its value names none); None when the word is no such option."""
    w = words[i]
    if w in ("-e", "--env") and i + 1 < len(words):
        return _variable(words[i + 1])
    if w.startswith("--env=") and (named := _variable(w[len("--env=") :])):
        return named
    return None


def _shell_string_at(words: Sequence[str], i: int, depth: int) -> bool:
    """Whether ``words[i]`` is the command string a shell's ``-c`` runs (read three deep at most)."""
    return i > 0 and _SHELL_STRING_FLAG.fullmatch(words[i - 1]) is not None and depth < 3


def _env_assignments(rest: Sequence[str]) -> list[str]:
    """``env``'s ``X=1`` words after its options."""
    j = 0
    while j < len(rest) and rest[j].startswith("-"):
        j += 2 if rest[j] in ("-u", "--unset", "-C", "--chdir") else 1
    return _leading_assignments(rest[j:])


def _leading_assignments(words: Sequence[str]) -> list[str]:
    """The variables the ``X=1`` words at the start of ``words`` set."""
    names = []
    for w in words:
        m = _ASSIGN.match(w)
        if m is None:
            break
        names.append(m.group(1))
    return names


def _variable(option_value: str) -> list[str]:
    """The variable ``-e X=1`` or ``-e X`` (docker passes X on) names."""
    m = _ASSIGN.match(option_value) or _NAME.match(option_value)
    return [m.group(1)] if m else []


def _shell_assignments(text: str, depth: int) -> list[str]:
    """A shell string's leading ``X=1 cmd`` (set for cmd) and what its command line assigns."""
    import shlex

    try:
        inner = shlex.split(text)
    except ValueError:
        return []
    return _leading_assignments(inner) + _assigned(inner, depth + 1)


def code_variables(
    env: Iterable[str], pass_env: Iterable[str] = (), command: str | None = None, args: Sequence[str] = ()
) -> list[str]:
    """The variables among a launch's ``env`` keys, the ones it passes on, and those its command
    line assigns, that load code; in order, each once."""
    found = [n for n in (*env, *pass_env, *_assigned([command or "", *args])) if loads_code(n)]
    return list(dict.fromkeys(found))


def of_spec(spec: object) -> list[str]:
    """:func:`code_variables` of a :class:`mcplock.lock.spec.ServerSpec` (a stdio one; a remote has none)."""
    if getattr(spec, "transport", None) != Transport.STDIO:  # a StrEnum: the name "stdio" is equal too
        return []
    return code_variables(
        getattr(spec, "env", {}) or {},
        getattr(spec, "pass_env", ()) or (),
        getattr(spec, "command", None),
        tuple(getattr(spec, "args", ()) or ()),
    )
