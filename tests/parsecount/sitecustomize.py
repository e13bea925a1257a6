"""Counts, in an mcplock process started with this directory on PYTHONPATH, how much host-file
text mcplock's host code parses (tests/test_export_scale.py): every call of the JSONC
blanking, ``tomllib.loads`` and ``tomlkit.parse`` made from ``mcplock.hosts`` (the lock's own
reading is not counted), and every opencode wildcard match. At exit the totals go to the
file named by ``MCPLOCK_TEST_PARSE_COUNT`` as JSON."""

from __future__ import annotations

import atexit
import json
import os
import sys

OUT = os.environ.get("MCPLOCK_TEST_PARSE_COUNT")
COUNTS = {"calls": 0, "chars": 0, "matches": 0}


def _from_hosts() -> bool:
    frame = sys._getframe(2)
    return str(frame.f_globals.get("__name__", "")).startswith("mcplock.hosts")


def _counted(fn):
    def wrapper(text, *args, **kwargs):
        if _from_hosts():
            COUNTS["calls"] += 1
            COUNTS["chars"] += len(text)
        return fn(text, *args, **kwargs)

    return wrapper


def _install() -> None:
    import tomllib

    import tomlkit

    import mcplock.hosts.jsonc as jsonc

    jsonc.to_json = _counted(jsonc.to_json)  # before any module binds it by name
    tomllib.loads = _counted(tomllib.loads)
    tomlkit.parse = _counted(tomlkit.parse)

    import mcplock.hosts.export.opencode as opencode

    plain = opencode.matches

    def matches(pattern: str, name: str) -> bool:
        COUNTS["matches"] += 1
        return plain(pattern, name)

    opencode.matches = matches

    @atexit.register
    def _dump() -> None:
        with open(OUT, "w", encoding="utf-8") as fh:  # type: ignore[arg-type]
            json.dump(COUNTS, fh)


if OUT:
    _install()
