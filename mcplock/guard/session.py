"""A guarded client: one locked server, verified, then listed and called under the lock.

``mcplock call`` and the library's :func:`mcplock.connect` use it::

    async with mcplock.connect("docs") as s:
        tools = await s.list_tools()          # accepted definitions of enabled tools, from the lock
        res = await s.call_tool("search_docs", {"query": "x"})

A refused call raises :class:`Refused` (nothing reaches the server), arguments that do not
match the locked schema raise :class:`mcplock.InvalidArguments`, an unreachable server a
``ProbeError`` (exit 3 in the CLI).

The server's own requests are answered wherever they arrive (the call's stream, or over
Streamable HTTP the standalone GET stream, open for the life of the session): a question
(``elicitation/create``) goes to ``on_elicit`` (:mod:`mcplock.guard.elicit`; without it, or
for a form mcplock cannot read, it is declined) and the time it takes does not count against
the call's timeout; ``ping`` is answered, ``roots/list`` gets no roots, sampling is refused,
anything else is "method not found", as during a probe.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from mcplock.errors import InvalidArguments, McplockError, UsageError
from mcplock.guard import elicit, evidence
from mcplock.guard.calls import Validators, drift_signal
from mcplock.guard.messages import Request
from mcplock.guard.upstream import Upstream
from mcplock.guard.view import View, from_snapshot
from mcplock.lock.model import Entry, ServerEntry
from mcplock.lock.param_headers import problems_over as header_problems
from mcplock.text.untrusted import shell_word
from mcplock.trust.decide import Decision, Host

MAX_ROUNDS = 8  # input_required answers of one call before mcplock stops retrying


# (server, tool, arguments) -> approve? (may be async)
Approver = Callable[[str, str, Any], "bool | Awaitable[bool]"]


class Refused(McplockError):
    """The lock does not allow this call; nothing was sent to the server (exit 1)."""

    exit_code = 1
    code = "refused"

    def __init__(self, message: str, *, hint: str | None = None, reason: str = "refused") -> None:
        super().__init__(message, hint=hint)
        self.reason = reason


class CallFailed(McplockError):
    """The server answered the call with a JSON-RPC error (exit 1)."""

    exit_code = 1
    code = "call-failed"

    def __init__(self, message: str, error: dict[str, Any]) -> None:
        super().__init__(message)
        self.error = error


class GuardedSession:
    def __init__(
        self,
        server: ServerEntry,
        spec: Any,
        opts: Any,
        *,
        lockfile: str,
        approve: bool | Approver = False,
        on_elicit: elicit.Elicitor | None = None,
        org: Any = None,
    ) -> None:
        self.org = org  # the organisation's policy: the view refuses what it denies
        self.server = server
        self.lockfile = lockfile
        self.approve = approve
        self.on_elicit = on_elicit
        self.up = Upstream(spec, opts, on_message=self._from_server)
        self.view: View | None = None
        self.validators = Validators()
        self._deadline: asyncio.Timeout | None = None  # the call's, paused while a person answers
        self._asking = 0
        self._tasks: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> GuardedSession:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def open(self) -> None:
        """Connect, initialize and verify every definition against the lock (ProbeError if unreachable)."""
        try:
            snap = await self.up.open()
        except BaseException:
            await self.up.close()
            raise
        self.view = from_snapshot(self.server, snap, self.org)

    async def close(self) -> None:
        for t in list(self._tasks):
            t.cancel()
        await self.up.close()

    # --- the server's requests ----------------------------------------------------------------

    def _from_server(self, msg: Any) -> None:
        """A message from the server that answers none of ours: its requests are answered (in
        a task, in the order they come); its notifications change nothing in a one-shot call."""
        from mcplock.guard.wellformed import REQUEST, shape

        if shape(msg)[0] != REQUEST:
            return  # an answer to none of ours, a notification, or no message at all
        task = asyncio.get_running_loop().create_task(self._answer(msg))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _answer(self, msg: Request) -> None:
        from mcplock.errors import ProbeError
        from mcplock.probe.transport import answer_server_request

        if msg["method"] == "elicitation/create":
            reply = {"jsonrpc": "2.0", "id": msg["id"], "result": await self._elicit(msg.get("params"))}
        else:
            reply = answer_server_request(msg, "mcplock call has no model to sample")
        if not self.up.send_now(reply):
            with contextlib.suppress(ProbeError):  # the server is gone: the call itself says so
                await self.up.send(reply)

    async def _elicit(self, params: Any) -> dict[str, Any]:
        form = elicit.parse(params)
        if isinstance(form, str) or self.on_elicit is None:
            return dict(elicit.DECLINE)
        with self._paused():
            try:
                answer = self.on_elicit(self.server.name, params)
                if inspect.isawaitable(answer):
                    answer = await answer
            except Exception:  # a hook that fails does not answer for the person: cancelled
                return dict(elicit.CANCEL)
        return elicit.settle(form, answer)[0]

    @contextlib.contextmanager
    def _paused(self) -> Iterator[None]:
        """The call's timeout stands still while a person answers the server's question."""
        cm = self._deadline
        when = cm.when() if cm is not None else None
        if cm is None or when is None or self._asking:
            self._asking += 1
            try:
                yield
            finally:
                self._asking -= 1
            return
        loop = asyncio.get_running_loop()
        left = when - loop.time()
        self._asking += 1
        with contextlib.suppress(RuntimeError):  # the call ended (expired, done) meanwhile
            cm.reschedule(None)
        try:
            yield
        finally:
            self._asking -= 1
            with contextlib.suppress(RuntimeError):
                cm.reschedule(loop.time() + max(left, 0.0))

    async def _input_responses(self, requests: Any) -> dict[str, Any]:
        """The answers to an ``input_required`` result's ``inputRequests``: a question goes to
        ``on_elicit`` (declined without it), roots are none; sampling cannot be answered (no
        model) and is left out, which the server reads as "not given"."""
        out: dict[str, Any] = {}
        for key, req in requests.items() if isinstance(requests, dict) else ():
            method = req.get("method") if isinstance(req, dict) else None
            if method == "elicitation/create":
                out[key] = await self._elicit(req.get("params"))
            elif method == "roots/list":
                out[key] = {"roots": []}
        return out

    def _view(self) -> View:
        if self.view is None:
            raise UsageError("the session is not open", hint="use `async with mcplock.connect(NAME) as s:`")
        return self.view

    async def list_tools(self) -> list[dict[str, Any]]:
        """The accepted definitions of the enabled tools that the server still serves unchanged
        (over Streamable HTTP, not those whose x-mcp-header annotations are invalid)."""
        return [d for d in self._view().definitions("tool") if not header_problems(self.up.spec, d)]

    def instructions(self) -> str | None:
        return self._view().instructions()

    async def call_tool(self, name: str, arguments: Any = None, *, timeout: float | None = None) -> dict[str, Any]:
        """Call ``name`` under the lock; the ``tools/call`` result as the server sent it, but for
        an embedded App document, which is the locked one or is dropped (:mod:`mcplock.guard.embedded`)."""
        view = self._view()
        args = {} if arguments is None else arguments
        entry, d = self._admitted(view, name, args)
        if not d.allowed:  # approval = "always" and not approved yet
            await self._approved(name, args, d.fix)
        seconds = timeout or self.up.opts.timeout
        try:
            async with asyncio.timeout(seconds) as self._deadline:
                resp = await self._rounds(name, args)
        except TimeoutError:
            raise self.up.timed_out(seconds, "tools/call") from None
        finally:
            self._deadline = None
        return self._call_result(view, entry, name, resp)

    def _admitted(self, view: View, name: str, args: Any) -> tuple[Entry, Decision]:
        """The lock's entry of ``name`` and its decision, when the lock lets the call be made
        with ``args`` (perhaps after approval); Refused or InvalidArguments saying why not."""
        d = view.tool(name, Host(strict=True, approved=self.approve is True))
        if not d.allowed and d.code != "approval":
            raise Refused(f"mcplock refused `{self.server.name}/{name}`: {d.reason}", hint=d.fix, reason=d.code)
        entry = self.server.tools[name]
        bad = header_problems(self.up.spec, entry.definition)
        if bad:
            raise Refused(
                f"mcplock refused `{self.server.name}/{name}`: its x-mcp-header annotations are invalid "
                f"({bad[0]}), and a client must not use such a tool over Streamable HTTP",
                hint=f"ask the server's maintainers to fix the tool, or `mcplock disable {self.server.name}/{name}`",
                reason="invalid-mcp-header",
            )
        errs = self.validators.errors(entry, args)
        if errs:
            raise InvalidArguments(
                f"arguments for `{self.server.name}/{name}` do not match its locked schema: " + "; ".join(errs), errs
            )
        return entry, d

    async def _approved(self, name: str, args: Any, fix: str | None) -> None:
        """Ask the session's approver about this call; Refused unless it says yes."""
        ok = False
        if callable(self.approve):
            answer = self.approve(self.server.name, name, args)
            ok = bool(await answer) if inspect.isawaitable(answer) else bool(answer)
        if not ok:
            raise Refused(
                f"`{self.server.name}/{name}` needs approval on every call and it was not given",
                hint=fix,
                reason="approval",
            )

    async def _rounds(self, name: str, args: Any) -> dict[str, Any]:
        """The call's final answer: a multi round-trip request (2026-07-28) is answered what it
        asks, then made again (a new id, the same accepted tool and arguments) with the answers,
        at most MAX_ROUNDS times."""
        params: dict[str, Any] = {"name": name, "arguments": args}
        for _round in range(MAX_ROUNDS):
            resp = await self.up.request("tools/call", params)
            result = resp.get("result")
            if not (isinstance(result, dict) and result.get("resultType") == "input_required"):
                return resp
            params = {
                "name": name,
                "arguments": args,
                "inputResponses": await self._input_responses(result.get("inputRequests")),
            }
            if "requestState" in result:
                params["requestState"] = result["requestState"]
        raise CallFailed(
            f"`{self.server.name}/{name}` asked for input {MAX_ROUNDS} times in a row: mcplock stopped retrying",
            {"code": "input-rounds"},
        )

    def _call_result(self, view: View, entry: Entry, name: str, resp: dict[str, Any]) -> dict[str, Any]:
        """The call's result for the caller; a drift signal in the answer recorded as evidence;
        CallFailed for an error answer."""
        signal = drift_signal(resp)
        if signal is not None:
            evidence.record(self.lockfile, self.server.name, name, entry.hash, signal[0], signal[1])
        if "error" in resp:
            err = resp["error"] if isinstance(resp["error"], dict) else {"message": str(resp["error"])}
            e = CallFailed(f"`{self.server.name}/{name}` failed: error {err.get('code')}: {err.get('message')}", err)
            if signal:
                e.hint = (
                    "the call passed the locked schema, so the lock and the server differ: "
                    f"run `mcplock diff {shell_word(self.server.name)}`"
                )
            raise e
        res = resp.get("result")
        if not isinstance(res, dict):
            return {"content": [], "structuredContent": res}
        from mcplock.guard.embedded import screen

        return screen(res, self.server, view)[0]  # an embedded App document: the locked one, or dropped


def open_session(
    name: str,
    lockfile: str = "mcp.lock",
    *,
    approve: bool | Approver = False,
    timeout: float = 30.0,
    client_name: str | None = None,
    client_version: str | None = None,
    environ: Any = None,
    login: Callable[[str], None] | None = None,
    on_elicit: elicit.Elicitor | None = None,
    policy: str | None = None,
) -> GuardedSession:
    """A :class:`GuardedSession` on the locked server ``name`` (not yet connected).

    ``on_elicit``: asked when the server asks the user a question (see the module docstring);
    without it every question is declined.

    ``login``: an OAuth login in the browser may happen inside a request (a first login, or a
    scope step-up on ``403 insufficient_scope``); it shows the authorization URL. Without it a
    request that needs one fails with the command that logs in.

    Raises :class:`~mcplock.errors.UntrustedError` when this machine has not trusted the
    server's launch spec in this project (`mcplock trust NAME`; in CI the lock is the
    reviewed artefact).

    ``policy``: the organisation's policy file (default ``$MCPLOCK_POLICY``); a broken one is an
    error before anything starts."""
    from mcplock.core.running import serving

    ready = serving(
        lockfile,
        name,
        timeout=timeout,
        client_name=client_name,
        client_version=client_version,
        environ=environ,
        policy=policy,
        login=login,
    )
    srv, spec, opts, org = ready.server, ready.spec, ready.opts, ready.org
    return GuardedSession(srv, spec, opts, lockfile=lockfile, approve=approve, on_elicit=on_elicit, org=org)
