"""The guard: a stdio MCP server for the host that enforces the lock on one upstream.

Every host message waits until the upstream is initialized, every page of its lists is read
and each live definition's hash is compared with the lock. The host then sees only what
:mod:`mcplock.policy` allows, as the lock holds it; a refused call never reaches the
upstream. Everything else an MCP session carries is relayed both ways, ids remapped where
the guard itself talks to the host. Asyncio, no MCP SDK.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from mcplock.errors import ProbeError
from mcplock.guard import evidence
from mcplock.guard.calls import Validators, drift_signal, elicitation_params, refused_result
from mcplock.guard.hostio import INVALID_PARAMS, INVALID_REQUEST, SERVER_ERROR, HostIO, error, result
from mcplock.guard.upstream import Upstream
from mcplock.guard.view import KINDS, View, from_snapshot, live_hashes
from mcplock.lock.model import ServerEntry
from mcplock.policy import Decision, Host

SUPPORTED_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
# kind -> (the probe's list name, the host's list method, the list_changed notification)
LISTS = {"tool": ("tools", "tools/list", "notifications/tools/list_changed"),
         "prompt": ("prompts", "prompts/list", "notifications/prompts/list_changed"),
         "resource-template": ("templates", "resources/templates/list", "notifications/resources/list_changed")}
RESULT_FIELD = {"tool": "tools", "prompt": "prompts", "resource-template": "resourceTemplates"}
_CHANGED = {v[2]: k for k, v in LISTS.items()}


def _advertised(caps: dict[str, Any], name: str) -> bool:
    return caps.get(name) not in (None, False)


def _key(rid: Any) -> tuple[str, Any]:
    return (type(rid).__name__, rid)


class Guard:
    def __init__(self, server: ServerEntry, spec: Any, opts: Any, *, lockfile: str, strict: bool = False,
                 request_timeout: float | None = 120.0, say: Callable[[str], None] = lambda _: None,
                 io: HostIO | None = None) -> None:
        self.server = server
        self.lockfile = lockfile
        self.strict = strict
        self.request_timeout = request_timeout
        self.say = say
        self.io = io or HostIO(limit=opts.max_response_bytes)
        self.up = Upstream(spec, opts, on_message=self._from_upstream, on_lost=self._upstream_lost)
        self.view: View | None = None
        self.validators = Validators()
        self.host_caps: dict[str, Any] = {}
        self.ready = False
        self.started = False
        self.held: list[dict[str, Any]] = []  # host messages before verification
        self.up_held: list[dict[str, Any]] = []  # upstream messages before the host is initialized
        self.forwarded: dict[tuple[str, Any], int] = {}  # host request id -> upstream request id
        self.by_host_id: dict[tuple[str, Any], asyncio.Task[Any]] = {}
        self.waiting: dict[str, tuple[str, Any]] = {}  # our id at the host -> ("local", future) | ("upstream", id)
        self.tasks: set[asyncio.Task[Any]] = set()
        self.next_id = 0
        self.lists_served = 0
        self.said: set[str] = set()
        self.exit_code = 0
        self.fresh: asyncio.Event | None = None
        self.reverifying: asyncio.Lock | None = None
        self.done: asyncio.Event | None = None

    # --- the session ----------------------------------------------------------------------

    async def run(self) -> int:
        """Serve the host until it closes stdin or the upstream is gone; the exit code."""
        self.fresh, self.reverifying, self.done = asyncio.Event(), asyncio.Lock(), asyncio.Event()
        self.fresh.set()
        reader = asyncio.create_task(self._read_host())
        stop = asyncio.create_task(self.done.wait())
        try:
            await asyncio.wait({reader, stop}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for t in (reader, stop, *self.tasks):
                t.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.gather(reader, stop, *self.tasks, return_exceptions=True)
            await self.up.close()
            self.io.close()
        return self.exit_code

    async def _read_host(self) -> None:
        async for msg, bad in self.io.messages():
            if bad is not None:
                self.io.send(bad)
            elif msg.get("method") == "initialize" and "id" in msg:
                if self.started:
                    self.io.send(error(msg["id"], INVALID_REQUEST, "the session is already initialized"))
                else:
                    self.started = True
                    self._spawn(self._initialize(msg))
            elif not self.ready:
                self.held.append(msg)  # nothing reaches an unverified upstream
            else:
                self._dispatch(msg)

    def _spawn(self, coro: Any, host_id: Any = None) -> asyncio.Task[Any]:
        task = asyncio.create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        if host_id is not None:
            k = _key(host_id)
            self.by_host_id[k] = task
            task.add_done_callback(lambda _t: self.by_host_id.pop(k, None))
        return task

    def _note(self, key: str, text: str) -> None:
        if key not in self.said:
            self.said.add(key)
            self.say(text)

    # --- initialize: verify first, answer then ---------------------------------------------

    async def _initialize(self, msg: dict[str, Any]) -> None:
        rid = msg["id"]
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        caps = params.get("capabilities") if isinstance(params.get("capabilities"), dict) else {}
        self.host_caps = caps
        relayed = {k: caps[k] for k in ("sampling", "elicitation", "roots") if k in caps}
        wanted = params.get("protocolVersion")
        try:
            snap = await self.up.open(relayed, wanted if wanted in SUPPORTED_VERSIONS else None)
        except ProbeError as e:
            text = f"mcplock: server `{self.server.name}` could not be reached: {e.message}"
            self.say(text + (f"\nhint: {e.hint}" if e.hint else ""))
            for m in [msg, *self.held]:
                if "id" in m and "method" in m:
                    self.io.send(error(m["id"], SERVER_ERROR, text, {"kind": e.kind, "hint": e.hint}))
            self.exit_code = 3
            assert self.done is not None
            self.done.set()
            return
        self.view = from_snapshot(self.server, snap)
        self._report_hidden()
        version = snap.protocol_version if snap.protocol_version in SUPPORTED_VERSIONS else SUPPORTED_VERSIONS[-1]
        info = self.server.server_info or snap.server_info or {"name": self.server.name, "version": "0"}
        answer: dict[str, Any] = {"protocolVersion": version, "capabilities": self._capabilities(snap.capabilities),
                                  "serverInfo": info}
        instructions = self.view.instructions()
        if instructions is not None:
            answer["instructions"] = instructions
        self.io.send(result(rid, answer))
        self.ready = True
        held, self.held = self.held, []
        for m in held:  # in the order they came, with no await in between
            self._dispatch(m)
        early, self.up_held = self.up_held, []
        for m in early:
            self._from_upstream(m)

    def _capabilities(self, up: dict[str, Any]) -> dict[str, Any]:
        caps: dict[str, Any] = {}
        if _advertised(up, "tools"):
            caps["tools"] = {"listChanged": True}
        if _advertised(up, "prompts"):
            caps["prompts"] = {"listChanged": True}
        if _advertised(up, "resources"):
            res = up["resources"] if isinstance(up["resources"], dict) else {}
            caps["resources"] = {**res, "listChanged": True}
        for k in ("logging", "completions"):
            if _advertised(up, k):
                caps[k] = up[k]
        return caps

    def _report_hidden(self) -> None:
        assert self.view is not None
        hidden = self.view.hidden()
        if not hidden:
            return
        lines = [f"mcplock: {self.server.name}: {len(hidden)} item(s) not served:"]
        lines += [f"  {d.message()}" for d in hidden[:20]]
        if len(hidden) > 20:
            lines.append(f"  … and {len(hidden) - 20} more (see `mcplock diff {self.server.name}`)")
        self.say("\n".join(lines))

    # --- host → guard -----------------------------------------------------------------------

    def _dispatch(self, msg: dict[str, Any]) -> None:
        method = msg.get("method")
        if method is None:
            self._host_response(msg)
        elif "id" not in msg:
            self._host_notification(msg)
        elif method == "tools/list":
            self._spawn(self._serve_list("tool", msg["id"]), msg["id"])
        elif method in ("prompts/list", "resources/templates/list"):
            self._spawn(self._serve_list("prompt" if method == "prompts/list" else "resource-template", msg["id"]),
                        msg["id"])
        elif method == "tools/call":
            self._spawn(self._call(msg), msg["id"])
        elif method == "prompts/get":
            self._spawn(self._get_prompt(msg), msg["id"])
        else:
            self._spawn(self._forward(msg), msg["id"])

    def _host_response(self, msg: dict[str, Any]) -> None:
        rid = msg.get("id")
        w = self.waiting.pop(rid, None) if isinstance(rid, str) else None
        if w is None:
            return
        kind, target = w
        if kind == "local":
            if not target.done():
                target.set_result(msg)
        else:
            reply = {k: v for k, v in msg.items() if k in ("jsonrpc", "result", "error")}
            self._spawn(self._send_up({**reply, "id": target}))

    def _host_notification(self, msg: dict[str, Any]) -> None:
        method = msg.get("method")
        if method == "notifications/initialized":
            return  # the guard told the upstream itself, before verifying
        if method == "notifications/cancelled":
            params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
            k = _key(params.get("requestId"))
            uid = self.forwarded.pop(k, None)
            task = self.by_host_id.pop(k, None)
            if uid is not None:
                self._spawn(self._send_up({**msg, "params": {**params, "requestId": uid}}))
            if task is not None:
                task.cancel()
            return
        self._spawn(self._send_up(msg))

    async def _send_up(self, msg: dict[str, Any]) -> None:
        with contextlib.suppress(ProbeError):
            await self.up.send(msg)

    async def _forward(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Relay one host request; the host gets the upstream's answer or a prompt error."""
        rid, method = msg["id"], msg["method"]
        k = _key(rid)
        try:
            resp = await self.up.request(method, msg.get("params"), timeout=self.request_timeout,
                                         on_id=lambda uid: self.forwarded.__setitem__(k, uid))
        except ProbeError as e:
            uid = self.forwarded.get(k)
            if e.kind == "timeout" and uid is not None:
                self._spawn(self._send_up({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                           "params": {"requestId": uid, "reason": "timed out in mcplock"}}))
            out = error(rid, SERVER_ERROR, f"mcplock: {e.message}", {"kind": e.kind, "hint": e.hint})
            self.io.send(out)
            return out
        finally:
            self.forwarded.pop(k, None)
        out = {"jsonrpc": "2.0", "id": rid, **{f: resp[f] for f in ("result", "error") if f in resp}}
        if "result" not in out and "error" not in out:
            out = error(rid, SERVER_ERROR, "mcplock: the upstream answer had neither result nor error")
        self.io.send(out)
        return out

    # --- what the guard answers itself -----------------------------------------------------

    async def _current(self) -> View:
        assert self.fresh is not None and self.view is not None
        await self.fresh.wait()
        return self.view

    async def _serve_list(self, kind: str, rid: Any) -> None:
        if kind == "tool":
            self.lists_served += 1
            if self.lists_served > 1:  # a re-sent list: look again, never pass new text through
                await self._reverify(["tool"])
        view = await self._current()
        self.io.send(result(rid, {RESULT_FIELD[kind]: view.definitions(kind)}))

    async def _get_prompt(self, msg: dict[str, Any]) -> None:
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        name = params.get("name")
        view = await self._current()
        d = view.item("prompt", name) if isinstance(name, str) else Decision("refuse", "unknown", "no prompt name")
        if not d.allowed:
            self.io.send(error(msg["id"], INVALID_PARAMS, f"mcplock refused this prompt: {d.message()}"))
            return
        await self._forward(msg)

    async def _call(self, msg: dict[str, Any]) -> None:
        rid = msg["id"]
        params = msg.get("params")
        if not isinstance(params, dict) or not isinstance(params.get("name"), str):
            self.io.send(error(rid, INVALID_PARAMS, "tools/call needs params with a string `name`"))
            return
        name = params["name"]
        args = params.get("arguments", {})
        view = await self._current()
        host = Host(elicitation=_advertised(self.host_caps, "elicitation"), strict=self.strict)
        d = view.tool(name, host)
        if not d.allowed:
            self._note(f"refused:{name}:{d.code}", f"mcplock: refused a call: {d.message()}")
            self.io.send(result(rid, refused_result(d)))
            return
        entry = self.server.tools[name]
        errs = self.validators.errors(entry, {} if args is None else args)
        if errs:
            self.io.send(error(rid, INVALID_PARAMS,
                               f"arguments for `{name}` do not match its locked schema: " + "; ".join(errs),
                               {"errors": errs}))
            return
        if d.verdict == "ask" and not await self._ask(name, args):
            no = Decision("refuse", "declined", f"the person declined the call of `{self.server.name}/{name}`")
            self.io.send(result(rid, refused_result(no)))
            return
        if d.code == "host-prompt":
            self._note("host-prompt", f"mcplock: {d.reason} (use --strict to refuse such calls instead)")
        out = await self._forward(msg)
        signal = drift_signal(out) if "id" in out else None
        if signal is not None and (out.get("error") or {}).get("code") != SERVER_ERROR:
            evidence.record(self.lockfile, self.server.name, name, entry.hash, signal[0], signal[1])
            self._note(f"drift:{name}", f"mcplock: `{self.server.name}/{name}` passed the locked schema but the "
                       f"server refused it: the lock and the server differ; run `mcplock diff {self.server.name}`")

    async def _ask(self, name: str, args: Any) -> bool:
        """Ask the person through the host's elicitation; True only on an explicit accept."""
        hid = self._host_id()
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[hid] = ("local", fut)
        self.io.send({"jsonrpc": "2.0", "id": hid, "method": "elicitation/create",
                      "params": elicitation_params(self.server.name, name, args)})
        try:
            resp = await asyncio.wait_for(fut, self.request_timeout)
        except TimeoutError:
            return False
        finally:
            self.waiting.pop(hid, None)
        res = resp.get("result")
        return isinstance(res, dict) and res.get("action") == "accept"

    def _host_id(self) -> str:
        self.next_id += 1
        return f"mcplock-{self.next_id}"

    # --- upstream → guard -------------------------------------------------------------------

    def _from_upstream(self, msg: dict[str, Any]) -> None:
        if not self.ready:
            self.up_held.append(msg)
            return
        method = msg.get("method")
        if "id" in msg and method is not None:  # a server request (sampling, elicitation, roots, ping)
            hid = self._host_id()
            self.waiting[hid] = ("upstream", msg["id"])
            self.io.send({**msg, "id": hid})
            return
        if method in _CHANGED:
            self._spawn(self._list_changed(_CHANGED[method]))
            if method != "notifications/resources/list_changed":
                return  # resources are data: their own list_changed goes on to the host too
        if method == "notifications/cancelled":
            params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
            for hid, (kind, uid) in list(self.waiting.items()):
                if kind == "upstream" and uid == params.get("requestId"):
                    self.waiting.pop(hid, None)
                    self.io.send({**msg, "params": {**params, "requestId": hid}})
            return
        self.io.send(msg)

    async def _list_changed(self, kind: str) -> None:
        if await self._reverify([kind]):
            self.io.send({"jsonrpc": "2.0", "method": LISTS[kind][2]})

    async def _reverify(self, kinds: list[str]) -> list[str]:
        """List ``kinds`` again and rebuild the view; the kinds whose visible part changed."""
        assert self.reverifying is not None and self.fresh is not None and self.view is not None
        async with self.reverifying:
            self.fresh.clear()
            try:
                old = self.view
                live = dict(old.live)
                for kind in kinds:
                    try:
                        live[kind] = live_hashes(kind, await self.up.list_again(LISTS[kind][0]))
                    except ProbeError as e:
                        live[kind] = {}  # fail closed: nothing of this kind until it lists again
                        self.say(f"mcplock: {self.server.name}: listing again failed, hiding its {kind}s: {e.message}")
                self.view = View(self.server, live, old.live_instructions, old.offered)
                changed = [k for k in KINDS if old.fingerprint(k) != self.view.fingerprint(k)]
                if changed:
                    self._report_hidden()
                return changed
            finally:
                self.fresh.set()

    def _upstream_lost(self, err: ProbeError) -> None:
        self.say(f"mcplock: server `{self.server.name}` is gone: {err.message}")
        self.exit_code = 3
        self._spawn(self._wind_down())

    async def _wind_down(self) -> None:
        """Let the pending host requests get their errors, then end the session."""
        pending = [t for t in self.by_host_id.values() if not t.done()]
        if pending:
            await asyncio.wait(pending, timeout=2.0)
        assert self.done is not None
        self.done.set()
