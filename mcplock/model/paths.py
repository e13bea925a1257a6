"""Where mcplock keeps files outside the repository: the one resolver of its per-user directories.

=========  ==========================================  ===============================  ==========================
kind       holds                                       override                         Linux default
=========  ==========================================  ===============================  ==========================
cache      what may be thrown away, one directory per  ``$MCPLOCK_CACHE_DIR/<kind>``    ``$XDG_CACHE_HOME/mcplock/``
           kind: ``packages``, ``lint``, ``locks``                                      ``<kind>`` (``~/.cache``)
config     OAuth tokens                                ``$MCPLOCK_CONFIG_DIR``          ``$XDG_CONFIG_HOME/mcplock``
data       the trust record, the machine key           ``$MCPLOCK_CONFIG_DIR``          ``$XDG_DATA_HOME/mcplock``
state      the guard's drift evidence                  ``$MCPLOCK_STATE_DIR``           ``$XDG_STATE_HOME/mcplock``
=========  ==========================================  ===============================  ==========================

An ``XDG_*`` variable counts only when it is an absolute path (the XDG rule); without it the
home's ``~/.cache``, ``~/.config``, ``~/.local/share``, ``~/.local/state``. On Linux no import
beyond the standard library (platformdirs costs ~7 ms); elsewhere platformdirs says where.
A cache kind may have a switch that turns it off (``MCPLOCK_LINT_CACHE=0``, ``MCPLOCK_LOCK_CACHE=0``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

Env = Mapping[str, str] | None

_XDG = {  # kind → (variable, default under the home, platformdirs function)
    "cache": ("XDG_CACHE_HOME", "~/.cache", "user_cache_dir"),
    "config": ("XDG_CONFIG_HOME", "~/.config", "user_config_dir"),
    "data": ("XDG_DATA_HOME", "~/.local/share", "user_data_dir"),
    "state": ("XDG_STATE_HOME", "~/.local/state", "user_state_dir"),
}


def _user_dir(kind: str, env: Mapping[str, str]) -> Path:
    var, default, platform_fn = _XDG[kind]
    if sys.platform.startswith("linux"):
        base = env.get(var, "").strip()
        if not os.path.isabs(base):
            home = env.get("HOME") or os.path.expanduser("~")
            base = os.path.join(home, default.removeprefix("~/"))
        return Path(base) / "mcplock"
    import platformdirs

    return Path(getattr(platformdirs, platform_fn)("mcplock", appauthor=False))


def _env(environ: Env) -> Mapping[str, str]:
    return os.environ if environ is None else environ


def cache_dir(kind: str, switch: str | None = None, environ: Env = None) -> Path | None:
    """``kind``'s cache directory, or None when ``switch`` is set to 0."""
    env = _env(environ)
    if switch is not None and env.get(switch, "1") == "0":
        return None
    if env.get("MCPLOCK_CACHE_DIR"):
        return Path(env["MCPLOCK_CACHE_DIR"]) / kind
    return _user_dir("cache", env) / kind


def config_dir(environ: Env = None) -> Path:
    """The OAuth token store's directory."""
    env = _env(environ)
    if env.get("MCPLOCK_CONFIG_DIR"):
        return Path(env["MCPLOCK_CONFIG_DIR"])
    return _user_dir("config", env)


def data_dir(environ: Env = None) -> Path:
    """The trust record's directory (``MCPLOCK_CONFIG_DIR`` moves it with the tokens)."""
    env = _env(environ)
    if env.get("MCPLOCK_CONFIG_DIR"):
        return Path(env["MCPLOCK_CONFIG_DIR"])
    return _user_dir("data", env)


def state_dir(environ: Env = None) -> Path:
    """The guard's drift evidence."""
    env = _env(environ)
    if env.get("MCPLOCK_STATE_DIR"):
        return Path(env["MCPLOCK_STATE_DIR"])
    return _user_dir("state", env)
