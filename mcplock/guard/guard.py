"""The guard: a stdio MCP server for the host that enforces the lock on one upstream.

Every host message waits until the upstream is initialized, every page of its lists is read
and each live definition's hash is compared with the lock. The host then sees only what
:mod:`mcplock.trust.decide` allows, as the lock holds it; a refused call never reaches the
upstream. Everything else an MCP session carries is relayed both ways, ids remapped where
the guard itself talks to the host. Asyncio, no MCP SDK.

This module holds the session's life (start, ``initialize`` or ``server/discover`` after
verification, the end) and composes the rest, each part given only the collaborators it uses:
:mod:`mcplock.guard.host_requests` (what the host asks), :mod:`mcplock.guard.upstream_side` (the
way to the upstream and back), :mod:`mcplock.guard.modern` (a 2026-07-28 host), with the
:class:`~mcplock.guard.ledger.Ledger` of what is in flight as the one owner of request ids.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from mcplock.errors import ProbeError
from mcplock.guard.answers import for_host
from mcplock.guard.discover import capabilities
from mcplock.guard.freshness import Freshness
from mcplock.guard.host_requests import HostRequests
from mcplock.guard.hostio import INVALID_REQUEST, SERVER_ERROR, HostIO, error, result
from mcplock.guard.ledger import Ledger
from mcplock.guard.modern import ModernHost
from mcplock.guard.modern_wire import is_discover, opens_modern
from mcplock.guard.state import HostState, Notes
from mcplock.guard.upstream import Upstream
from mcplock.guard.upstream_side import UpstreamSide, send_up
from mcplock.guard.view import Current, from_snapshot
from mcplock.guard.wellformed import member
from mcplock.lock.model import ServerEntry
from mcplock.probe import era
from mcplock.trust.decide import Host

if TYPE_CHECKING:
    import subprocess

    from mcplock.guard.messages import Request
    from mcplock.lock.spec import ServerSpec
    from mcplock.model.snapshot import Snapshot
    from mcplock.probe import ProbeOptions
    from mcplock.probe.transport import Connection
    from mcplock.trust.org_policy import OrgPolicy

SUPPORTED_VERSIONS = era.LEGACY_VERSIONS  # what a legacy host may ask for in `initialize`


class Guard:
    """One ``mcplock run`` session: the host on one side, the upstream on the other. It holds what
    the parts share and only it writes — what the host said (:attr:`host`, a
    :class:`~mcplock.guard.state.HostState`), the view (:attr:`views`) — and the
    :class:`~mcplock.guard.ledger.Ledger` of what is in flight, and it composes the parts, each
    given only the collaborators it uses: :attr:`modern`
    (:class:`~mcplock.guard.modern.ModernHost`: the 2026-07-28 host), :attr:`upstream`
    (:class:`~mcplock.guard.upstream_side.UpstreamSide`: relayed requests and their answers, what
    the server sends, re-verification), :attr:`freshness` and :attr:`requests`
    (:class:`~mcplock.guard.host_requests.HostRequests`: what the host asks, decided under the lock).

    ``connection``: the upstream's :class:`~mcplock.probe.transport.Connection` when it is not the
    one ``spec`` names (an in-memory server: :class:`mcplock.probe.memory.MemoryConnection`)."""

    def __init__(
        self,
        server: ServerEntry,
        spec: ServerSpec,
        opts: ProbeOptions,
        *,
        lockfile: str,
        strict: bool = False,
        request_timeout: float | None = 120.0,
        say: Callable[[str], None] = lambda _: None,
        io: HostIO | None = None,
        started: subprocess.Popen[bytes] | None = None,
        org: OrgPolicy | None = None,
        early: tuple[bytes, bool] = (b"", False),
        connection: Connection | None = None,
    ) -> None:
        self.server = server
        self.org = org  # the organisation's policy: the view refuses what it denies
        self.strict = strict
        self.request_timeout = request_timeout
        self.notes = Notes(say)
        self.io = io or HostIO(limit=opts.max_response_bytes)
        self.host = HostState(Host(strict=strict))
        self.views = Current()
        self.ledger = ledger = Ledger()
        self.started = False
        self.opening: asyncio.Task[Any] | None = None  # start, verification and the answer to `initialize`
        self.held: list[dict[str, Any]] = []  # host messages before verification
        self.exit_code = 0
        self.done: asyncio.Event | None = None
        self.preread, discover_early = early  # what guard.discover.answer_early read and answered
        self.up = up = Upstream(
            spec,
            opts,
            on_message=self._from_upstream,
            on_lost=self.upstream_lost,
            started=started,
            connection=connection,
        )
        io, host = self.io, self.host
        self.modern = ModernHost(
            up,
            partial(send_up, up, ledger),
            server=server,
            io=io,
            ledger=ledger,
            host=host,
            ask=self.ask_host,
            request_timeout=request_timeout,
            discover_early=discover_early,
            views=self.views,
            notes=self.notes,
        )
        self.upstream = UpstreamSide(
            up,
            server=server,
            io=io,
            ledger=ledger,
            host=host,
            views=self.views,
            notes=self.notes,
            modern=self.modern,
            request_timeout=request_timeout,
        )
        self.freshness = Freshness(self.upstream, self.modern.notify_host)
        self.requests = HostRequests(
            self.upstream,
            self.modern,
            self.freshness,
            server=server,
            io=io,
            ledger=ledger,
            host=host,
            views=self.views,
            notes=self.notes,
            ask=self.ask_host,
            lockfile=lockfile,
        )

    # --- the session ----------------------------------------------------------------------

    async def run(self) -> int:
        """Serve the host until it closes stdin or the upstream is gone; the exit code."""
        self.done = asyncio.Event()
        try:
            await self.io.start(self._on_host, self._host_closed, self.preread, on_drop=self._dropped)
            await self.done.wait()
        finally:
            pending = self.ledger.everything()
            for t in pending:
                t.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.gather(*pending, return_exceptions=True)
            await self.up.close()
            self.io.close()
        return self.exit_code

    def _dropped(self, why: str) -> None:
        self.notes.note(f"unsendable:{why}", f"mcplock: {self.server.name}: dropped a message from the server ({why})")

    def _from_upstream(self, msg: dict[str, Any] | list[Any]) -> None:
        self.upstream.from_upstream(msg)

    # --- host → guard: the opening, then the host requests ------------------------------

    def _on_host(self, msg: Any) -> None:
        """One message from the host, in the order it came (one that wellformed.shape passed: a
        Request, a Notification or a Response of guard/messages.py, told apart by their fields;
        ``Any`` for the reason HostRequests.dispatch gives)."""
        if msg.get("method") == "initialize" and "id" in msg:
            if self.started:
                self.io.send(error(msg["id"], INVALID_REQUEST, "the session is already initialized"))
            else:
                self.started = True
                self.opening = self.ledger.spawn(self._initialize(msg))
        elif is_discover(msg):  # answered at once from the lock, whatever the upstream is doing
            self.modern.answer_discover(msg)
            if not self.started:
                self.started = True
                self.opening = self.ledger.spawn(self._open_modern(msg))
        elif not self.started and opens_modern(msg):  # a modern host that skips discover
            self.started = True
            self.held.append(msg)
            self.opening = self.ledger.spawn(self._open_modern(msg))
        elif not self.host.ready:
            self.held.append(msg)  # nothing reaches an unverified upstream
        else:
            self.requests.dispatch(msg)

    # --- the guard's own requests to the host ----------------------------------------------

    async def ask_host(self, method: str, params: Any) -> Mapping[str, Any] | None:
        """One request of the guard's own to the host: its answer, or None when the host is gone
        or does not answer within the request timeout."""
        if self.host.gone:
            return None
        fut: asyncio.Future[Mapping[str, Any]] = asyncio.get_running_loop().create_future()
        hid = self.ledger.asking(fut)
        self.io.send({"jsonrpc": "2.0", "id": hid, "method": method, **({"params": params} if params else {})})
        try:
            return await asyncio.wait_for(fut, self.request_timeout)
        except TimeoutError:
            return None
        finally:
            self.ledger.answered_by_host(hid)

    # --- initialize: verify first, answer then ---------------------------------------------

    def _host_said(self, caps: Any) -> dict[str, Any]:
        """The host's capabilities (``initialize``'s, or a modern request's envelope): what the
        guard may do with the host, and what it relays to the upstream."""
        caps = caps if isinstance(caps, dict) else {}
        self.host.caps = caps
        from mcplock.model.client_capabilities import chosen

        locked_as = chosen(None, self.server.client_capabilities)  # what the lock's probe declared
        self.host.policy = Host(
            elicitation=era.advertised(caps, "elicitation"),
            strict=self.strict,
            lacks=tuple(c for c in locked_as if not era.advertised(caps, c)),
        )
        return {k: caps[k] for k in ("sampling", "elicitation", "roots") if k in caps}

    async def _open_upstream(
        self, relayed: dict[str, Any], wanted: str | None, first: list[Request]
    ) -> Snapshot | None:
        """Start and verify the upstream; the snapshot, or None when it could not be reached
        (every request held, ``first`` among them, then has its error and the session ends)."""
        try:
            snap = await self.up.open(relayed, wanted)
        except ProbeError as e:
            text = f"mcplock: server `{self.server.name}` could not be reached: {e.message}"
            self.notes.say(text + (f"\nhint: {e.hint}" if e.hint else ""))
            for m in [*first, *self.held]:
                if "id" in m and "method" in m:
                    self.io.send(
                        self.modern.to_host(
                            error(m["id"], SERVER_ERROR, for_host(text), {"kind": e.kind, "hint": e.hint})
                        )
                    )
            self.exit_code = 3
            assert self.done is not None
            self.done.set()
            return None
        view = from_snapshot(self.server, snap, self.org, self.host.policy.lacks)
        self.views.set(view)
        if (report := view.hidden_report()) is not None:
            self.notes.say(report)
        self.freshness.opened(snap.protocol_version, snap.capabilities)
        if era.is_modern(snap.protocol_version):  # its change notifications come only this way
            self.ledger.spawn(self.up.listen_for_changes(snap.capabilities))
        return snap

    def _now_ready(self) -> None:
        self.host.ready = True
        held, self.held = self.held, []
        for m in held:  # in the order they came, with no await in between
            self.requests.dispatch(m)
        self.upstream.release_held()

    async def _open_modern(self, msg: Request) -> None:
        """A modern host (server/discover, or a request with the envelope): verify, then serve what was held."""
        self.host.era = "modern"
        meta = member(msg, "params").get("_meta")
        caps = meta.get(era.CAPABILITIES_KEY) if isinstance(meta, dict) else None
        if await self._open_upstream(self._host_said(caps), None, []) is not None:
            self._now_ready()

    async def _initialize(self, msg: Request) -> None:
        rid = msg["id"]
        self.host.era = "legacy"
        params = member(msg, "params")
        relayed = self._host_said(params.get("capabilities"))
        wanted = params.get("protocolVersion")
        snap = await self._open_upstream(relayed, wanted if wanted in SUPPORTED_VERSIONS else None, [msg])
        if snap is None:
            return
        # a legacy host is served at a legacy version whatever the upstream speaks
        version = snap.protocol_version if snap.protocol_version in SUPPORTED_VERSIONS else SUPPORTED_VERSIONS[-1]
        info = self.server.server_info or snap.server_info or {"name": self.server.name, "version": "0"}
        answer: dict[str, Any] = {
            "protocolVersion": version,
            "capabilities": capabilities(snap.capabilities, skills=bool(self.server.items["skill"])),
            "serverInfo": info,
        }
        instructions = view.instructions() if (view := self.views.view) is not None else None
        if instructions is not None:
            answer["instructions"] = instructions
        self.io.send(result(rid, answer))
        self._now_ready()

    # --- the end ----------------------------------------------------------------------------

    def _host_closed(self) -> None:
        """stdin closed (the host's way to end a stdio session): what it asked before is still
        answered, each request within its own timeout, then the session ends. Nobody is left to
        answer what was asked of the host: the guard's own question counts as cancelled (its
        call is refused), a server's request gets an error, now and from now on."""
        self.host.gone = True
        for kind, what in self.ledger.host_left():
            if kind == "local":
                if not what.done():
                    what.set_result({"result": {"action": "cancel"}})
            else:
                self.upstream.send_up(error(what, SERVER_ERROR, "the host closed the session"))
        self.ledger.spawn(self._finish())

    async def _finish(self) -> None:
        if self.opening is not None:
            await asyncio.wait([self.opening])  # the requests held meanwhile are dispatched at its end
        while pending := self.ledger.unanswered():
            await asyncio.wait(pending)  # answering one may start the next (held until verified)
        assert self.done is not None
        self.done.set()

    def upstream_lost(self, err: ProbeError) -> None:
        self.notes.say(f"mcplock: server `{self.server.name}` is gone: {err.message}")
        self.exit_code = 3
        self.ledger.spawn(self._wind_down())

    async def _wind_down(self) -> None:
        """Let the pending host requests get their errors, then end the session."""
        pending = self.ledger.unanswered()
        if pending:
            await asyncio.wait(pending, timeout=2.0)
        assert self.done is not None
        self.done.set()
