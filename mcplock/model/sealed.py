"""mcplock's own process, closed to what it launches (docs/updates.md, "What a probed release can reach").

A server mcplock starts gets a minimal environment (:mod:`mcplock.probe.launch`), but on Linux
any process of the same user may read another's ``/proc/PID/environ`` and memory: a launched
release could read mcplock's whole environment (a CI job's tokens) from its parent. :func:`seal`
makes this process not dumpable (``prctl(PR_SET_DUMPABLE, 0)``), so that only a process with
``CAP_SYS_PTRACE`` can read it; a program it starts is dumpable again after ``exec`` (the flag is
the process's own), so nothing else changes. Called before the first launch; idempotent.

:func:`reap_leftovers` is for the process that holds a write token after a probe ran: made a
child subreaper first (:func:`adopt_orphans`), it ends every descendant still alive once its
probing child has exited — a server that left a process behind cannot wait there for the push.
Elsewhere than Linux both are no-ops.
"""

from __future__ import annotations

import os
import sys

PR_SET_DUMPABLE = 4
PR_GET_DUMPABLE = 3
PR_SET_CHILD_SUBREAPER = 36

_sealed = False


def _prctl(option: int, value: int = 0) -> int:
    """``prctl(option, value)`` through libc; -1 where it is not available."""
    if not sys.platform.startswith("linux"):
        return -1
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(option, value, 0, 0, 0))
    except (OSError, AttributeError):
        return -1


def seal() -> bool:
    """Make this process unreadable to the processes it starts (not dumpable). True when it is."""
    global _sealed
    if not _sealed:
        _sealed = _prctl(PR_SET_DUMPABLE, 0) == 0
    return _sealed


def dumpable() -> bool:
    """Whether this process is dumpable (readable through /proc by the same user); True off Linux."""
    return _prctl(PR_GET_DUMPABLE) != 0


def adopt_orphans() -> bool:
    """Become the child subreaper: a descendant whose parent exits becomes this process's child."""
    return _prctl(PR_SET_CHILD_SUBREAPER, 1) == 0


def _children(pid: int) -> list[int]:
    """The children of ``pid`` (Linux' ``/proc/PID/task/*/children``)."""
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", encoding="ascii") as fh:
                out += [int(p) for p in fh.read().split()]
        except (OSError, ValueError):
            continue
    return out


def reap_leftovers() -> int:
    """Kill every descendant of this process that is still alive, and reap them; how many."""
    import signal

    if not sys.platform.startswith("linux"):
        return 0
    killed = 0
    for _ in range(5):  # a process that forks while being killed: look again
        found: list[int] = []
        todo = _children(os.getpid())
        while todo:
            pid = todo.pop()
            found.append(pid)
            todo += _children(pid)
        if not found:
            break
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except OSError:
                pass
        for pid in found:
            try:
                os.waitpid(pid, 0)
            except OSError:
                pass
    return killed
