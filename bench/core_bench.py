"""Core benchmarks (`python bench/run.py core`): figures that used to be wall-clock assertions
in the test suite, where a loaded machine made them flaky and a fast one made them vacuous.

- lint: 2,000 tools through `mcplock.lint.lint_definition`, timed inside a fresh interpreter
  (target: well under 1 s; the suite used to assert < 2 s).
- concurrency: `mcplock.probe.probe_many` over 1 and 8 slow stdio fixture servers (0.4 s per
  answer): probes overlap, so 8 cost about one (target ≤ 2x; the suite used to assert it).
- word diff: `mcplock.render.words.word_diff` (the text `diff`, `show` and `accept` print) on a
  repetitive description of 26 KiB, 105 KiB and 1 MiB with 40 changed words, and on 800 KiB
  with no run in common (`a b` against `b a`): bounded on any input (difflib, the code before,
  took 81 s on the first of these texts; the issue measured 3.9 s, 156 s and > 300 s on its own).
- hostile documents: an App document's lint (`lint/apps`, `lint/app_inert`) on 128 kB and 512 kB
  of unclosed `<script ` tags, and a skill script's lint (`lint/skills.fetches_code`) on 1 and 4 MiB
  of `curl ` with no pipe: linear on any input (issue 42.6 / 42.12: the App case took 62 s at
  128 kB, the script case 9.9 s at 100 kB, before).
- giving up: how long a probe takes to fail against a server that hangs or sends garbage, with
  `timeout=1` (1.5 for garbage): the timeout is honoured, plus clean-up (the suite used to
  assert < 6 s stdio, < 5 s HTTP and SSE, < 10 s garbage).
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT / "fixtures"))  # fixtures/runner.py: the fixture servers' launcher

from runner import http_fixture, stdio_command

PY = sys.executable
SLOW_DELAY = 0.4
N_SLOW = 8

LINT_CODE = (
    "import time; import mcplock.lint as L; "
    "tools = [{'name': f't_{i}', 'description': 'Read the complete contents of a file from the file system. '"
    " * 5 + 'Größe 搜索 👍🏽', 'inputSchema': {'type': 'object', 'properties': {'path': {'type': 'string', "
    "'description': 'Absolute path of the file to read'}}, 'required': ['path']}} for i in range(2000)]; "
    "t = time.perf_counter(); [L.lint_definition('tool', d) for d in tools]; "
    "print(time.perf_counter() - t)"
)


def _lint_seconds(runs: int = 5) -> float:
    out = [
        float(subprocess.run([PY, "-c", LINT_CODE], capture_output=True, text=True, check=True).stdout)
        for _ in range(runs)
    ]
    return statistics.median(out)


def _stdio_spec(mode: str, name: str, extra: tuple[str, ...] = ()):
    from mcplock.lock.spec import ServerSpec

    cmd = stdio_command(mode=mode, extra_args=extra)
    return ServerSpec(name=name, transport="stdio", command=cmd[0], args=tuple(cmd[1:]))


def _probe_many_seconds(n: int, runs: int = 3) -> float:
    from mcplock.model.snapshot import Snapshot
    from mcplock.probe import ProbeOptions, probe_many

    times = []
    for _ in range(runs):
        specs = [_stdio_spec("slow", f"slow{i}", ("--delay", str(SLOW_DELAY))) for i in range(n)]
        t0 = time.perf_counter()
        result = probe_many(specs, ProbeOptions(timeout=20))
        times.append(time.perf_counter() - t0)
        bad = [k for k, v in result.items() if not isinstance(v, Snapshot)]
        if bad:
            raise RuntimeError(f"probe_many: {bad} failed: {result}")
    return statistics.median(times)


def _seconds_to_fail(spec, timeout: float, kind: str) -> float:
    from mcplock.errors import ProbeError
    from mcplock.probe import ProbeOptions, probe

    t0 = time.perf_counter()
    try:
        asyncio.run(probe(spec, ProbeOptions(timeout=timeout)))
    except ProbeError as e:
        if e.kind != kind:
            raise RuntimeError(f"expected a {kind} error, got {e.kind}: {e.message}") from e
        return time.perf_counter() - t0
    raise RuntimeError(f"{spec.name}: the probe did not fail")


WORDS = "Read the file at path and return its contents to the caller. "
WORD_DIFF_CODE = (
    "import random, sys, time; from mcplock.render.words import word_diff; "
    "kib = int(sys.argv[1]); r = random.Random(2); "
    f"old = ({WORDS!r} * (kib * 1024 // {len(WORDS)} + 1)).split(' '); new = list(old)\n"
    "for _ in range(40): new[r.randrange(len(new))] = 'CHANGED'\n"
    "a, b = (' '.join(old), ' '.join(new)) if kib else ('a b ' * 204800, 'b a ' * 204800)\n"
    "t = time.perf_counter(); word_diff(a, b, color=False); print(time.perf_counter() - t)"
)


def _word_diff_seconds(kib: int, runs: int = 3) -> float:
    return statistics.median(
        float(subprocess.run([PY, "-c", WORD_DIFF_CODE, str(kib)], capture_output=True, text=True, check=True).stdout)
        for _ in range(runs)
    )


def word_diff_rows() -> list[tuple[str, str, str, str]]:
    rows = []
    for kib, before in ((26, "81 s (difflib, once, load ~17)"), (105, "not measured"), (1024, "not measured")):
        secs = _word_diff_seconds(kib)
        rows.append(
            (
                f"word diff of a {kib} KiB repetitive description, 40 words changed",
                f"{secs * 1000:.0f} ms",
                "",
                f"the code before: {before}",
            )
        )
    secs = _word_diff_seconds(0)
    rows.append(
        (
            "word diff of 800 KiB `a b a b…` against `b a b a…` (no long run in common)",
            f"{secs * 1000:.0f} ms",
            "",
            "bounded: O(n log n) steps",
        )
    )
    return rows


HOSTILE_CODE = (
    "import sys, time; from mcplock.lint.apps import app_findings; from mcplock.lint.skills import fetches_code\n"
    "kind, kib = sys.argv[1], int(sys.argv[2])\n"
    "text = ('<script ' if kind == 'app' else 'curl ') * (kib * 1024 // (8 if kind == 'app' else 5))\n"
    "t = time.perf_counter()\n"
    "app_findings({'text': text}, {'text': 'x'}) if kind == 'app' else fetches_code(text)\n"
    "print(time.perf_counter() - t)"
)


def hostile_rows() -> list[tuple[str, str, str, str]]:
    rows = []
    for kind, sizes, what, before in (
        ("app", (128, 512), "unclosed `<script ` tags (App lint)", "62 s at 128 kB before"),
        ("script", (1024, 4096), "`curl ` with no pipe (skill script lint)", "9.9 s at 100 kB before"),
    ):
        for kib in sizes:
            secs = statistics.median(
                float(
                    subprocess.run(
                        [PY, "-c", HOSTILE_CODE, kind, str(kib)], capture_output=True, text=True, check=True
                    ).stdout
                )
                for _ in range(3)
            )
            rows.append((f"{kib} KiB of {what}", f"{secs * 1000:.0f} ms", "", f"linear; {before}"))
    return rows


def core_rows() -> list[tuple[str, str, str, str]]:
    from mcplock.lock.spec import ServerSpec

    rows: list[tuple[str, str, str, str]] = []
    lint = _lint_seconds()
    rows.append(
        (
            "lint 2,000 tool definitions (`lint_definition`, in a fresh interpreter)",
            f"{lint * 1000:.0f} ms",
            "",
            "target < 1 s",
        )
    )
    rows += word_diff_rows()
    rows += hostile_rows()

    one, eight = _probe_many_seconds(1), _probe_many_seconds(N_SLOW)
    rows.append(
        (
            f"`probe_many`, 1 slow stdio server ({SLOW_DELAY} s per answer), in-process",
            f"{one * 1000:.0f} ms",
            "",
            "baseline",
        )
    )
    rows.append(
        (
            f"`probe_many`, {N_SLOW} such servers",
            f"{eight * 1000:.0f} ms",
            "",
            f"{eight / one:.2f}x one server (target ≤ 2x)",
        )
    )

    hang = _seconds_to_fail(_stdio_spec("hang", "hang"), 1, "timeout")
    rows.append(
        (
            "probe of a stdio server that never answers, `timeout=1`: time to fail",
            f"{hang * 1000:.0f} ms",
            "",
            "timeout + clean-up",
        )
    )
    garbage = _seconds_to_fail(_stdio_spec("garbage", "garbage"), 1.5, "garbage")
    rows.append(
        (
            "probe of a stdio server that writes only garbage, `timeout=1.5`: time to fail",
            f"{garbage * 1000:.0f} ms",
            "",
            "≤ timeout + clean-up",
        )
    )
    for transport, path in (("http", "/mcp"), ("sse", "/sse")):
        with http_fixture(mode="hang") as base:
            secs = _seconds_to_fail(ServerSpec(name="hang", transport=transport, url=base + path), 1, "timeout")
        rows.append(
            (
                f"probe of a hanging {transport.upper()} server, `timeout=1`: time to fail",
                f"{secs * 1000:.0f} ms",
                "",
                "timeout + clean-up",
            )
        )
    return rows


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _home import isolate

    isolate()
    from run import table  # bench/run.py (this directory is on sys.path)

    print(table(core_rows()))
