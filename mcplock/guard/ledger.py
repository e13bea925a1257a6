"""The guard's bookkeeping of what is in flight, with one owner (docs/architecture.md, "The guard").

Every request id the guard has to remember lives here and nowhere else: the host requests
relayed upstream (host id → the guard's upstream id), the host's calls in flight (their tool and
params), the requests the guard sent the host (its own questions and the server's relayed ones),
and the tasks that answer host requests. The guard's parts change it only through these methods,
so "what is waiting for what" can be read in one place and tested without a process.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Mapping
from typing import Any, Literal

Key = tuple[str, Any]  # a host request id as a dict key (:func:`host_key`)
# what one of the guard's requests to the host waits for: the guard's own question (its future), or a
# server request relayed to the host (the upstream's id, to answer it there)
Waiting = tuple[Literal["local"], "asyncio.Future[Mapping[str, Any]]"] | tuple[Literal["upstream"], Any]


def host_key(rid: Any) -> Key:
    """A host request id as a dict key (1 and "1" and True are different ids)."""
    return (type(rid).__name__, rid)


class Ledger:
    """What is in flight in one guard session; see the module docstring."""

    __slots__ = ("_answering", "_call_params", "_calls", "_next_id", "_tasks", "_upstream_ids", "_waiting")

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        # host request -> what answers it (a task, or the upstream's future for a call relayed at once)
        self._answering: dict[Key, asyncio.Future[Any]] = {}
        self._upstream_ids: dict[Key, int] = {}  # host request -> the id it went upstream under
        self._calls: dict[Key, str] = {}  # a tools/call in flight -> its tool
        self._call_params: dict[Key, dict[str, Any]] = {}  # -> its params (a legacy host's retry)
        self._waiting: dict[str, Waiting] = {}  # the guard's id at the host -> what waits for the answer
        self._next_id = 0

    # --- tasks ------------------------------------------------------------------------------

    def spawn(self, coro: Coroutine[Any, Any, Any], host_id: Any = None) -> asyncio.Task[Any]:
        """Run ``coro`` as a task the session waits for; with ``host_id``, as what answers that host request."""
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        if host_id is not None:
            k = host_key(host_id)
            self._answering[k] = task
            task.add_done_callback(lambda t: self._answering.pop(k) if self._answering.get(k) is t else None)
        return task

    def unanswered(self) -> list[asyncio.Future[Any]]:
        """What still answers a host request."""
        return [t for t in self._answering.values() if not t.done()]

    def everything(self) -> list[asyncio.Future[Any]]:
        """Every task and pending answer (cancelled at the session's end)."""
        return [*self._tasks, *self._answering.values()]

    # --- host requests relayed upstream ------------------------------------------------------

    def relayed(self, key: Key, uid: int, answer: asyncio.Future[Any]) -> None:
        """A host request written upstream at once (no task): ``answer`` is its upstream future."""
        self._upstream_ids[key] = uid
        self._answering[key] = answer

    def sent(self, key: Key, uid: int) -> None:
        """A host request a task relays went upstream as ``uid``."""
        self._upstream_ids[key] = uid

    def upstream_id(self, key: Key) -> int | None:
        return self._upstream_ids.get(key)

    def relay_ended(self, key: Key, answer: asyncio.Future[Any] | None = None) -> None:
        """The upstream answered (or failed, or timed out) a relayed host request."""
        self._upstream_ids.pop(key, None)
        if answer is not None and self._answering.get(key) is answer:
            del self._answering[key]

    def cancelled(self, key: Key) -> int | None:
        """The host cancelled its request: whatever answers it is cancelled; the upstream id to
        tell the server about, when it went there."""
        uid = self._upstream_ids.pop(key, None)
        pending = self._answering.pop(key, None)
        if pending is not None:
            pending.cancel()
        return uid

    # --- the host's calls in flight ------------------------------------------------------------

    def call_started(self, key: Key, name: str, params: dict[str, Any]) -> None:
        """A call of ``name`` checked under the lock, until it is answered."""
        self._calls[key] = name
        self._call_params[key] = params

    def tool_of(self, key: Key) -> str | None:
        return self._calls.get(key)

    def take_params(self, key: Key) -> dict[str, Any] | None:
        """A call's params, once (a legacy host's call the guard may retry for it)."""
        return self._call_params.pop(key, None)

    def call_answered(self, key: Key) -> None:
        self._calls.pop(key, None)
        self._call_params.pop(key, None)

    def take_latest_relayed_call(self) -> tuple[Key, str] | None:
        """The newest call the upstream has (not one awaiting approval), taken off the books: it
        is answered now, and its id is the host's again. None when there is none."""
        key = next((k for k in reversed(self._calls) if k in self._upstream_ids), None)
        if key is None:
            return None
        name = self._calls.pop(key)
        self._call_params.pop(key, None)
        self._upstream_ids.pop(key, None)
        self._answering.pop(key, None)
        return key, name

    # --- the guard's requests to the host ----------------------------------------------------

    def _new_id(self) -> str:
        self._next_id += 1
        return f"mcplock-{self._next_id}"

    def asking(self, answer: asyncio.Future[Mapping[str, Any]]) -> str:
        """A question of the guard's own to the host: its id there (``answer`` gets the reply)."""
        hid = self._new_id()
        self._waiting[hid] = ("local", answer)
        return hid

    def relaying(self, uid: Any) -> str:
        """A server request (upstream id ``uid``) relayed to the host: its id there."""
        hid = self._new_id()
        self._waiting[hid] = ("upstream", uid)
        return hid

    def answered_by_host(self, hid: Any) -> Waiting | None:
        """The host's reply to ``hid``: what waited for it, taken off the books (None: nothing did)."""
        return self._waiting.pop(hid, None) if isinstance(hid, str) else None

    def cancelled_upstream(self, uid: Any) -> list[str]:
        """The server cancelled its request ``uid``: the host ids it was relayed under, forgotten."""
        hids = [hid for hid, (who, what) in self._waiting.items() if who == "upstream" and what == uid]
        for hid in hids:
            del self._waiting[hid]
        return hids

    def host_left(self) -> list[Waiting]:
        """The host is gone: everything that waited for it, taken off the books."""
        waiting = list(self._waiting.values())
        self._waiting.clear()
        return waiting
