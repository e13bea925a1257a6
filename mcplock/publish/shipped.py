"""The statement a pinned package ships: ``mcp-surface.json`` (and ``mcp-surface.json.sig``)
inside the installed package, read from mcplock's verified cache entry — so the statement is
bound to the bytes that run by the package's integrity (docs/publishers.md).

- npm: at the package's root (``node_modules/NAME/mcp-surface.json``), as ``npm pack`` ships
  any file the package lists;
- PyPI: the first ``mcp-surface.json`` the distribution's ``RECORD`` lists, the shallowest first
  (a wheel ships it inside its top-level package: ``my_server/mcp-surface.json``).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcplock.publish.statement import FILENAME

SIGNATURE = FILENAME + ".sig"


@dataclass(frozen=True)
class Shipped:
    """A statement file found in a package, and its signature file when it ships one."""

    path: Path
    signature: Path | None


def _npm(root: Path, name: str) -> Path | None:
    p = root / "node_modules" / name / FILENAME
    return p if p.is_file() else None


def _pypi(root: Path, name: str) -> Path | None:
    import re

    want = re.sub(r"[-_.]+", "_", name).lower()
    for lib in sorted((root / "venv").glob("lib/python*/site-packages")):
        for info in sorted(lib.glob("*.dist-info")):
            if info.name.split("-", 1)[0].lower().replace(".", "_") != want:
                continue
            found = _in_record(info / "RECORD", lib)
            if found is not None:
                return found
    return None


def _in_record(record: Path, lib: Path) -> Path | None:
    try:
        rows = list(csv.reader(io.StringIO(record.read_text("utf-8"))))
    except (OSError, UnicodeDecodeError):
        return None
    paths = sorted((r[0] for r in rows if r and r[0].rsplit("/", 1)[-1] == FILENAME), key=lambda p: p.count("/"))
    for rel in paths:
        p = (lib / rel).resolve()
        if p.is_file() and lib.resolve() in p.parents:
            return p
    return None


def find(pin: Any, environ: Any = None) -> Shipped | None:
    """The statement the installed package of ``pin`` ships (its cache entry was verified when the
    launch was prepared), or None."""
    from mcplock.packages.cache import pin_dir

    if pin is None or pin.registry not in ("npm", "pypi"):
        return None
    root = pin_dir(pin, environ)
    path = _npm(root, pin.name) if pin.registry == "npm" else _pypi(root, pin.name)
    if path is None:
        return None
    sig = path.with_name(SIGNATURE)
    return Shipped(path, sig if sig.is_file() else None)
