"""Where mcplock keeps what it may throw away: one directory per kind under
``$MCPLOCK_CACHE_DIR``, else the user cache directory (``~/.cache/mcplock`` on Linux), each
with a switch that turns it off (``MCPLOCK_LINT_CACHE=0``, ``MCPLOCK_LOCK_CACHE=0``)."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path


def cache_dir(kind: str, switch: str, environ: Mapping[str, str] | None = None) -> Path | None:
    """``kind``'s directory, or None when ``switch`` is set to 0."""
    env = os.environ if environ is None else environ
    if env.get(switch, "1") == "0":
        return None
    if env.get("MCPLOCK_CACHE_DIR"):
        return Path(env["MCPLOCK_CACHE_DIR"]) / kind
    if sys.platform.startswith("linux"):  # what platformdirs says there, without its import (~7 ms)
        base = env.get("XDG_CACHE_HOME", "").strip()
        return Path(base if os.path.isabs(base) else os.path.expanduser("~/.cache")) / "mcplock" / kind
    import platformdirs

    return Path(platformdirs.user_cache_dir("mcplock")) / kind
