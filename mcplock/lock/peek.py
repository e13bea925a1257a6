"""The early read of ``mcp.lock``: the servers' connection tables only, each parsed from its own
lines, so that probing can start while the whole lock is still being read and checked
(:func:`mcplock.core.probing.load_and_probe`). Every table goes through the same validating
reader as the full read (:mod:`mcplock.lock.read`); anything out of the ordinary gives ``None``,
and the full read decides."""

from __future__ import annotations

import tomllib

from mcplock.errors import LockfileError
from mcplock.lock.model import ITEM_KINDS, ServerEntry
from mcplock.lock.read import Reader
from mcplock.lock.text import HEADER


def peek_servers(text: str, path: str = "mcp.lock") -> dict[str, ServerEntry] | None:
    """The servers' connection tables only, parsed from their own lines: enough to start
    probing while the whole lock is still being read. ``None`` when the file does not have
    the layout mcplock writes (then read it whole first); errors are left to :func:`loads`.
    """
    lines = text.splitlines(keepends=True)
    out: dict[str, ServerEntry] = {}
    reader = Reader(text, path)
    i = 0
    try:
        while i < len(lines):
            line = lines[i]
            if line.startswith("[server.") and not line.startswith("[["):
                m = HEADER.match(line.rstrip("\r\n"))
                if m is None:
                    return None
                parsed = tomllib.loads(f"[{m.group(1)}]\n")
                node = parsed.get("server")
                if not isinstance(node, dict) or len(node) != 1:
                    return None
                name, rest = next(iter(node.items()))
                if rest == {}:  # [server.NAME]: its keys run to the next table header
                    j = i + 1
                    while j < len(lines) and not lines[j].startswith("["):
                        j += 1
                    body = tomllib.loads("".join(lines[i + 1 : j]))
                    if name in out:
                        return None
                    k = j
                    # its own sub-tables follow it ([server.NAME.instructions-pending], [server.NAME.package]
                    # in either order), before its items ([server.NAME.tool.X])
                    while k < len(lines) and lines[k].startswith("[server."):
                        sub = HEADER.match(lines[k].rstrip("\r\n"))
                        node = tomllib.loads(f"[{sub.group(1)}]\n").get("server") if sub is not None else None
                        own = node.get(name) if isinstance(node, dict) and len(node) == 1 else None
                        if not isinstance(own, dict) or len(own) != 1:
                            break
                        key, value = next(iter(own.items()))
                        if key in ITEM_KINDS or value != {} or key in body:
                            break
                        e = k + 1
                        while e < len(lines) and not lines[e].startswith("["):
                            e += 1
                        body[key] = tomllib.loads("".join(lines[k + 1 : e]))
                        k = e
                    out[name] = reader.server(name, body)
                    i = k
                    continue
            i += 1
    except (tomllib.TOMLDecodeError, LockfileError, ValueError):
        return None
    return out
