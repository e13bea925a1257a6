"""Baseline for `mcplock diff` of one stdio server: the least a client can do for the same job.

    python bench/bare_client.py LOCKFILE SERVER

Parses the lock with `tomllib`, spawns the server's command (lock env on top of ours, cwd
relative to the lock), then plain JSON-RPC over pipes: `initialize` → `notifications/initialized`
→ paginated `tools/list` (and `prompts/list` / `resources/templates/list` when the server
advertises them, as mcplock does). No comparison, no hashing, no output: stdlib only.
Exits 0 when it listed everything, 1 otherwise.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path


def main(argv: list[str]) -> int:
    lock_path, name = Path(argv[1]), argv[2]
    with open(lock_path, "rb") as fh:
        srv = tomllib.load(fh)["server"][name]
    env = dict(os.environ)
    env.update(srv.get("env", {}))
    cwd = srv.get("cwd")
    if cwd:
        cwd = str((lock_path.parent / cwd).resolve())
    proc = subprocess.Popen(
        [srv["command"], *srv.get("args", [])],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=cwd,
    )
    assert proc.stdin is not None and proc.stdout is not None
    next_id = 0

    def request(method: str, params: dict) -> dict:
        nonlocal next_id
        next_id += 1
        proc.stdin.write(
            json.dumps({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params}).encode() + b"\n"
        )
        proc.stdin.flush()
        while True:
            line = proc.stdout.readline()
            if not line:
                raise SystemExit(1)
            try:
                msg = json.loads(line)
            except ValueError:
                continue  # a banner line
            if isinstance(msg, dict) and msg.get("id") == next_id and ("result" in msg or "error" in msg):
                if "error" in msg:
                    raise SystemExit(1)
                return msg["result"]

    init = request(
        "initialize",
        {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bare-client", "version": "0"}},
    )
    proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    proc.stdin.flush()
    caps = init.get("capabilities", {})
    lists = [("tools/list", "tools")]
    if "prompts" in caps:
        lists.append(("prompts/list", "prompts"))
    if "resources" in caps:
        lists.append(("resources/templates/list", "resourceTemplates"))
    total = 0
    for method, key in lists:
        cursor = None
        while True:
            result = request(method, {"cursor": cursor} if cursor else {})
            total += len(result.get(key, []))
            cursor = result.get("nextCursor")
            if not cursor:
                break
    proc.stdin.close()
    proc.wait()
    return 0 if total else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
