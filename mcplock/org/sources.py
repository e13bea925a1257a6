"""What ``mcplock fleet PATH…`` reads: each path a lock file, an inventory (mcplock's JSON or
its CycloneDX BOM) or a directory of them (checkouts, CI artifacts), each turned into one
project's inventory. Every input is untrusted: anything that is not a lock or an inventory, or
is one that does not read, is *set aside* with the reason, never a crash.

In a directory, the inputs are every ``mcp.lock`` and every ``*.json`` whose first bytes name an
inventory (``"mcplock-inventory"`` or a CycloneDX BOM); other files there are not inputs.
``.git``, ``node_modules`` and virtual environments are not walked.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcplock.org import inventory

if TYPE_CHECKING:
    from mcplock.lint.cache import LintCache
    from mcplock.trust.org_policy import OrgPolicy

LOCK_NAME = "mcp.lock"
MAX_BYTES = 32 * 1024 * 1024  # an inventory larger than this is set aside, not read
_SNIFF = 4096
_SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".hg", ".svn"})


@dataclass
class Project:
    name: str
    path: str  # the file, as found
    kind: str  # "lock" | "inventory" | "cyclonedx"
    inventory: dict[str, Any]


@dataclass
class Inputs:
    projects: list[Project] = field(default_factory=list)
    set_aside: list[dict[str, str]] = field(default_factory=list)  # {"path", "reason"}


def _looks_like_inventory(path: str) -> bool:
    """Whether a regular file's first bytes name an inventory (a FIFO, device or directory never
    is, and is never opened)."""
    try:
        if not os.path.isfile(path) or os.path.getsize(path) > MAX_BYTES:
            return False
        with open(path, "rb") as fh:
            head = fh.read(_SNIFF)
    except OSError:
        return False
    return b'"mcplock-inventory"' in head or b'"CycloneDX"' in head


def candidates(root: str, inputs: Inputs) -> list[str]:
    """The files a path stands for: itself, or the inputs found under a directory (sorted)."""
    if not os.path.isdir(root):
        if os.path.lexists(root):
            return [root]  # whatever it is: read as a file (a FIFO or device is refused unread)
        inputs.set_aside.append({"path": root, "reason": "no such file or directory"})
        return []
    found: list[str] = []
    for here, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        for f in sorted(files):
            p = os.path.join(here, f)
            if f == LOCK_NAME or (f.endswith(".json") and _looks_like_inventory(p)):
                found.append(p)
    return found


def _project_name(path: str, root: str) -> str:
    """A lock's project: its directory relative to the path given (the directory's own name when
    the lock is the path given or sits at its top)."""
    lock_dir = os.path.dirname(os.path.abspath(path))
    base = os.path.abspath(root) if os.path.isdir(root) else os.path.dirname(os.path.abspath(root))
    rel = os.path.relpath(lock_dir, base)
    if rel == "." or rel.startswith(".."):
        return os.path.basename(lock_dir) or lock_dir
    return rel.replace(os.sep, "/")


def check(doc: Any) -> str | None:
    """Why ``doc`` is not an mcplock inventory of a version this mcplock reads (None: it is one)."""
    from mcplock.org.shape import problem

    if not isinstance(doc, dict) or doc.get("format") != inventory.FORMAT:
        return "not an mcplock inventory"
    if doc.get("version") != inventory.VERSION:
        return f"an mcplock inventory of version {json.dumps(doc.get('version'))[:20]}; this mcplock reads version 1"
    where = problem(doc)
    return None if where is None else f"an mcplock inventory that does not follow its schema at {where[:160]}"


def _read_json(path: str) -> tuple[Any, str]:
    """(the document, "inventory" | "cyclonedx")."""
    from mcplock.model.files import read_bounded
    from mcplock.org.cyclonedx_read import NotAnInventory
    from mcplock.org.cyclonedx_read import inventory as from_bom

    try:
        data = read_bounded(path, MAX_BYTES)
    except OSError as e:
        raise NotAnInventory(f"not read: {e.strerror or e}") from None
    doc = json.loads(data.decode("utf-8"))
    if isinstance(doc, dict) and doc.get("bomFormat") == "CycloneDX":
        return from_bom(doc), "cyclonedx"
    return doc, "inventory"


def _one(path: str, root: str, policy: OrgPolicy | None, cache: LintCache | None) -> Project:
    from mcplock.org.cyclonedx_read import NotAnInventory

    if os.path.basename(path) == LOCK_NAME or path.endswith(".lock"):
        name = _project_name(path, root)
        return Project(name, path, "lock", inventory.project(path, name=name, policy=policy, cache=cache))
    try:
        doc, kind = _read_json(path)
    except UnicodeDecodeError:
        raise NotAnInventory("not UTF-8 text") from None
    except json.JSONDecodeError as e:
        raise NotAnInventory(f"not JSON ({e.msg}, line {e.lineno})") from None
    why = check(doc)
    if why is not None:
        raise NotAnInventory(why)
    return Project(doc["project"], path, kind, doc)


def load(paths: list[str], *, policy: OrgPolicy | None = None) -> Inputs:
    """Every project the paths hold; the rest set aside, each with its reason."""
    from mcplock.errors import McplockError
    from mcplock.lint.cache import LintCache
    from mcplock.org.cyclonedx_read import NotAnInventory

    out = Inputs()
    cache = LintCache.open()
    for root in paths:
        for path in candidates(root, out):
            try:
                out.projects.append(_one(path, root, policy, cache))
            except McplockError as e:
                out.set_aside.append({"path": path, "reason": e.message})
            except NotAnInventory as e:
                out.set_aside.append({"path": path, "reason": str(e)})
            except (OSError, ValueError, RecursionError) as e:
                out.set_aside.append({"path": path, "reason": f"not read ({type(e).__name__})"})
    if cache is not None:
        cache.save()
    return out
