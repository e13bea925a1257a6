"""Probe benchmarks (`python bench/run.py probe`): `mcplock diff` against live local servers.

- 1 vs 8 slow stdio fixture servers (`--mode slow --delay 0.5`): probes run concurrently, so
  8 should cost about one (target ≤ 2x).
- 20 benign stdio fixture servers: peak RSS of the `mcplock` process (target < 300 MB).
- one server with 2,000 tools (pages of 100) against `bench/bare_client.py`, a stdlib JSON-RPC
  client that parses the same lock and lists the same server (target ≤ 1.5x).

Every lock is built with the real CLI (`mcplock --lockfile X add NAME --yes -- …`) in a
temporary directory under `out_dir`, removed afterwards. Every figure is from fresh processes.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from run import measure  # bench/run.py (its directory is on sys.path)

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
FIXTURE = ROOT / "fixtures" / "mcp_fixture.py"
BARE = BENCH / "bare_client.py"
PY = sys.executable

SLOW_DELAY = 0.5
N_SLOW = 8
N_MEM = 20
N_TOOLS = 2000
PAGE = 100


def _tree_sample(pid: int) -> tuple[int, int]:
    """(own VmHWM KiB of `pid`, summed VmRSS KiB of `pid` and all its descendants) from /proc."""
    parent: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as fh:
                    stat = fh.read()
            except OSError:
                continue
            parent[int(entry.name)] = int(stat.rsplit(b")", 1)[1].split()[1])
    children: dict[int, list[int]] = {}
    for c, pp in parent.items():
        children.setdefault(pp, []).append(c)
    tree, todo = [], [pid]
    while todo:
        q = todo.pop()
        tree.append(q)
        todo.extend(children.get(q, ()))
    own = total = 0
    for q in tree:
        try:
            with open(f"/proc/{q}/status", encoding="ascii", errors="replace") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
                    elif q == pid and line.startswith("VmHWM:"):
                        own = int(line.split()[1])
        except OSError:
            continue
    return own, total


def sampled_peaks(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float, int]:
    """One fresh run, sampling /proc every ~10 ms: (own peak MiB (VmHWM, last sample),
    peak MiB of the whole process tree (sum of RSS), wait4 ru_maxrss MiB, exit code)."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    own = tree = 0
    while True:
        pid, status, usage = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        o, t = _tree_sample(p.pid)
        own, tree = max(own, o), max(tree, t)
        time.sleep(0.01)
    p.returncode = os.waitstatus_to_exitcode(status)
    return own / 1024, tree / 1024, usage.ru_maxrss / 1024, p.returncode


def _add(mcplock: str, lock: Path, name: str, cmd: list[str], env: dict[str, str]) -> None:
    p = subprocess.run(
        [mcplock, "--lockfile", str(lock), "add", name, "--yes", "--timeout", "60", "--", *cmd],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    if p.returncode != 0:
        raise RuntimeError(f"mcplock add {name} exited {p.returncode}:\n{p.stdout}\n{p.stderr}")


def _diff(mcplock: str, lock: Path, env: dict[str, str], runs: int) -> tuple[float, float]:
    secs, rss, rc = measure([mcplock, "--lockfile", str(lock), "diff", "--timeout", "60"], runs=runs, env=env)
    if rc != 0:
        p = subprocess.run([mcplock, "--lockfile", str(lock), "diff"], capture_output=True, text=True, env=env)
        raise RuntimeError(f"mcplock diff on {lock} exited {rc} (expected 0, a clean lock):\n{p.stdout}\n{p.stderr}")
    return secs, rss


_VERBS = ["get", "list", "search", "create", "update", "delete", "archive", "export", "sync", "count"]
_NOUNS = [
    "issue",
    "pull_request",
    "comment",
    "repository",
    "branch",
    "release",
    "workflow_run",
    "user",
    "team",
    "project",
    "milestone",
    "label",
    "deployment",
    "secret",
    "webhook",
    "invoice",
    "customer",
    "ticket",
    "calendar_event",
    "document",
]


def _tool(i: int, rng: random.Random) -> dict:
    verb, noun = _VERBS[i % len(_VERBS)], _NOUNS[(i // len(_VERBS)) % len(_NOUNS)]
    readonly = verb in ("get", "list", "search", "export", "count")
    props: dict = {
        "workspace": {
            "type": "string",
            "description": "Workspace slug, e.g. `acme-corp`.",
            "pattern": "^[a-z0-9][a-z0-9-]{0,62}$",
        },
        f"{noun}_id": {"type": "string", "description": f"The {noun.replace('_', ' ')} identifier."},
    }
    if verb in ("list", "search", "export"):
        props["query"] = {
            "type": "string",
            "maxLength": 512,
            "description": "Free-text filter; supports `field:value`.",
        }
        props["page_size"] = {"type": "integer", "minimum": 1, "maximum": 100, "default": 25}
        props["sort"] = {"type": "string", "enum": ["created", "updated", "relevance"], "default": "updated"}
    if verb in ("create", "update"):
        props["fields"] = {"$ref": "#/$defs/fields"}
        props["notify"] = {
            "type": "boolean",
            "default": rng.random() < 0.5,
            "description": "Send notifications to watchers.",
        }
    schema: dict = {"type": "object", "properties": props, "required": ["workspace"], "additionalProperties": False}
    if verb in ("create", "update"):
        schema["$defs"] = {
            "fields": {
                "type": "object",
                "additionalProperties": {"type": ["string", "number", "null"]},
                "description": "Field values to set.",
            }
        }
    human = noun.replace("_", " ")
    return {
        "name": f"{verb}_{noun}_{i:04d}",
        "title": f"{verb.capitalize()} {human} ({i})",
        "description": (
            f"{verb.capitalize()} a {human} in the workspace (shard {i % 17}).\n\n"
            f"Returns a JSON object describing the {human}. Rate limited to {rng.randint(10, 600)} "
            "calls per minute; prefer the list endpoints for bulk reads."
        ),
        "inputSchema": schema,
        "annotations": {
            "title": f"{verb.capitalize()} {human}",
            "readOnlyHint": readonly,
            "destructiveHint": verb in ("delete", "archive"),
            "openWorldHint": True,
        },
    }


def write_big_surface(path: Path, n: int = N_TOOLS) -> None:
    rng = random.Random(2000)
    surface = {
        "serverInfo": {"name": "big-server", "version": "3.2.1"},
        "instructions": "A large SaaS API exposed as tools. Always pass `workspace`.",
        "tools": [_tool(i, rng) for i in range(n)],
    }
    path.write_text(json.dumps(surface, ensure_ascii=False, indent=1), encoding="utf-8")


def probe_rows(out_dir: Path, mcplock: str) -> list[tuple[str, str, str, str]]:
    out_dir = Path(out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, NO_COLOR="1")
    env.pop("MCPLOCK_LOCKFILE", None)
    rows: list[tuple[str, str, str, str]] = []
    with tempfile.TemporaryDirectory(prefix="probe-", dir=out_dir) as tmp:
        d = Path(tmp)
        demo = ROOT / "fixtures" / "surfaces" / "demo.json"

        # --- 1 vs 8 slow servers -------------------------------------------------------------
        slow_cmd = [PY, str(FIXTURE), "stdio", "--surface", str(demo), "--mode", "slow", "--delay", str(SLOW_DELAY)]
        one, eight = d / "slow1" / "mcp.lock", d / "slow8" / "mcp.lock"
        one.parent.mkdir()
        eight.parent.mkdir()
        _add(mcplock, one, "slow-0", slow_cmd, env)
        eight.write_bytes(one.read_bytes())
        for i in range(1, N_SLOW):
            _add(mcplock, eight, f"slow-{i}", slow_cmd, env)
        t1, m1 = _diff(mcplock, one, env, runs=3)
        t8, m8 = _diff(mcplock, eight, env, runs=3)
        rows.append(
            (
                f"`mcplock diff`, 1 slow stdio server ({SLOW_DELAY} s per response: initialize + 3 lists)",
                f"{t1 * 1000:.0f} ms",
                f"{m1:.0f} MiB",
                "baseline",
            )
        )
        rows.append(
            (
                f"`mcplock diff`, {N_SLOW} such servers",
                f"{t8 * 1000:.0f} ms",
                f"{m8:.0f} MiB",
                f"{t8 / t1:.2f}x one server (target ≤ 2x)",
            )
        )

        # --- 20 benign servers: peak RSS -----------------------------------------------------
        many = d / "many" / "mcp.lock"
        many.parent.mkdir()
        for i in range(N_MEM):
            _add(mcplock, many, f"srv-{i:02d}", [PY, str(FIXTURE), "stdio", "--surface", str(demo)], env)
        tm, mm = _diff(mcplock, many, env, runs=3)
        own, tree, _, rc = sampled_peaks([mcplock, "--lockfile", str(many), "diff", "--timeout", "60"], env)
        if rc != 0:
            raise RuntimeError(f"mcplock diff on {many} exited {rc}")
        rows.append(
            (
                f"`mcplock diff`, {N_MEM} benign stdio servers: wait4 ru_maxrss (on Linux the max of mcplock "
                "and of its largest single reaped child, not a sum)",
                f"{tm * 1000:.0f} ms",
                f"{mm:.0f} MiB",
                "target < 300 MB",
            )
        )
        rows.append(
            (
                "  same run: the mcplock process alone (its VmHWM, sampled from /proc)",
                "",
                f"{own:.0f} MiB",
                "target < 300 MB",
            )
        )
        rows.append(
            (
                f"  same run: mcplock + its {N_MEM} server processes together (summed RSS, sampled peak)",
                "",
                f"{tree:.0f} MiB",
                "for sizing a CI runner",
            )
        )

        # --- 2,000 tools vs a bare JSON-RPC client -------------------------------------------
        surface = d / "big.json"
        write_big_surface(surface)
        big = d / "big" / "mcp.lock"
        big.parent.mkdir()
        _add(mcplock, big, "big", [PY, str(FIXTURE), "stdio", "--surface", str(surface), "--page-size", str(PAGE)], env)
        n_locked = big.read_text(encoding="utf-8").count("\n[server.big.tool.")
        if n_locked != N_TOOLS:
            raise RuntimeError(f"the 2,000-tool lock has {n_locked} tools")
        tb, mb = _diff(mcplock, big, env, runs=5)
        floor, floor_mem, rc = measure([PY, str(BARE), str(big), "big"], runs=5, env=env)
        if rc != 0:
            raise RuntimeError(f"bench/bare_client.py exited {rc}")
        size = big.stat().st_size / 1024
        rows.append(
            (
                f"bare JSON-RPC client (`bench/bare_client.py`): tomllib parse of the lock ({size:.0f} KiB) + "
                f"initialize + {N_TOOLS // PAGE} pages of tools/list from one {N_TOOLS:,}-tool stdio server",
                f"{floor * 1000:.0f} ms",
                f"{floor_mem:.0f} MiB",
                "floor",
            )
        )
        rows.append(
            (
                f"`mcplock diff`, the same {N_TOOLS:,}-tool server",
                f"{tb * 1000:.0f} ms",
                f"{mb:.0f} MiB",
                f"{tb / floor:.2f}x floor (target ≤ 1.5x)",
            )
        )
    return rows


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _home import isolate

    isolate()
    from run import MCPLOCK, OUT, table

    print(table(probe_rows(OUT, MCPLOCK)))
