"""The guard's host side: what the host asks, decided under the lock (:class:`HostRequests`).

Lists are answered from the lock (never upstream text); ``tools/call`` and ``prompts/get`` are
decided by :mod:`mcplock.trust.decide` against the current view, a call's arguments are validated
against the locked schema, and only then does the request go on (:mod:`mcplock.guard.upstream_side`).
When the view is current and nobody has to be asked, all of it happens in the read callback
that brought the message; otherwise in a task that waits for the view or the person.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from mcplock.guard import approve, evidence, skills
from mcplock.guard.calls import Validators, drift_signal, elicitation_params, refused_result
from mcplock.guard.hostio import INVALID_PARAMS, SERVER_ERROR, error, result
from mcplock.guard.ledger import host_key
from mcplock.guard.messages import Notification, Request, Response, call_params
from mcplock.guard.reads import pinned_document, template_refusal, ui_listing
from mcplock.guard.view import View
from mcplock.guard.wellformed import is_id, member, rebuilt
from mcplock.lock.model import Entry
from mcplock.lock.param_headers import problems_over as header_problems
from mcplock.lock.targets import format_target
from mcplock.model.documents import read_result
from mcplock.text.untrusted import shell_word
from mcplock.trust.decide import Decision

if TYPE_CHECKING:
    from mcplock.guard.freshness import Freshness
    from mcplock.guard.hostio import HostIO
    from mcplock.guard.ledger import Ledger
    from mcplock.guard.modern import AskHost, ModernHost
    from mcplock.guard.state import HostState, Notes
    from mcplock.guard.upstream_side import UpstreamSide
    from mcplock.guard.view import Current
    from mcplock.lock.model import ServerEntry

RESULT_FIELD = {
    "tool": "tools",
    "prompt": "prompts",
    "resource-template": "resourceTemplates",
    "skill": "skills",
    "resource": "resources",
}
_LIST_KIND = {
    "tools/list": "tool",
    "prompts/list": "prompt",
    "resources/templates/list": "resource-template",
    "skills/list": "skill",
}


class HostRequests:
    """What the host asks, once the upstream is verified: lists from the lock, prompts, pinned
    documents, calls decided under the lock (the person asked where the lock says so), the rest
    relayed. Its collaborators: the upstream side (relay, re-verify), the modern host side, the
    tools' freshness, the ledger (the calls in flight), the host's state and the view (read)."""

    def __init__(
        self,
        upstream: UpstreamSide,
        modern: ModernHost,
        freshness: Freshness,
        *,
        server: ServerEntry,
        io: HostIO,
        ledger: Ledger,
        host: HostState,
        views: Current,
        notes: Notes,
        ask: AskHost,
        lockfile: str,
    ) -> None:
        self.upstream = upstream
        self.modern = modern
        self.freshness = freshness
        self.server = server
        self.io = io
        self.ledger = ledger
        self.host = host
        self.views = views
        self.notes = notes
        self.ask_host = ask
        self.lockfile = lockfile
        self.spec = upstream.up.spec  # the spec as launched (its transport: x-mcp-header rules)
        self.validators = Validators()
        self.lists_served = 0

    # --- host → guard -----------------------------------------------------------------------

    def dispatch(self, msg: Any) -> None:
        """One host message that :func:`~mcplock.guard.wellformed.shape` passed, to the handler
        of its kind: a response (no method), a notification (no id), a request. ``msg`` is
        ``Any`` here only: mypy cannot tell a union of TypedDicts apart by two ``in`` tests in
        a row, and a cast or a second function would cost a call per message; each handler
        takes its kind's type (:mod:`mcplock.guard.messages`), and mypy checks what it reads."""
        if "method" not in msg:
            self._host_response(msg)
            return
        if "id" not in msg:
            self._host_notification(msg)
            return
        # a request, by its method: answered from the lock, decided under it, or relayed
        method = msg["method"]
        if method == "tools/call":
            self._call(msg)
        elif method == "subscriptions/listen" and self.host.modern:
            self.modern.listen(msg)
        elif method in _LIST_KIND:
            self.ledger.spawn(self._serve_list(_LIST_KIND[method], msg["id"]), msg["id"])
        elif method == "resources/list" and self.server.spec.pin_resources:  # pinned: the lock's listing
            self.ledger.spawn(self._serve_list("resource", msg["id"]), msg["id"])
        elif method == "resources/list" and self.server.items["ui"]:  # App documents: as locked
            self.ledger.spawn(
                self.upstream.forward(msg, rewrite=partial(ui_listing, self.server, self.views)), msg["id"]
            )
        elif method == "prompts/get":
            self._get_prompt(msg)
        elif method == "resources/read" and pinned_document(self.server, msg) is not None:
            self._read_document(msg)
        elif method == "resources/read" and skills.file_of(self.server, msg) is not None:
            self.ledger.spawn(skills.read_file(self, msg), msg["id"])  # a skill's file (guard/skills.py)
        elif method == "skills/get" and self.server.items["skill"]:
            self.ledger.spawn(skills.get(self, msg), msg["id"])  # the locked entry, never relayed
        elif method == "resources/read" and self.server.spec.pin_resources:
            self._read_unpinned(msg)
        else:
            self.upstream.relay(msg)

    def _host_response(self, msg: Response) -> None:
        w = self.ledger.answered_by_host(msg.get("id"))
        if w is None:
            return
        kind, target = w
        if kind == "local":
            if not target.done():
                target.set_result(msg)
        else:
            reply = {k: v for k, v in msg.items() if k in ("jsonrpc", "result", "error")}
            self.upstream.send_up({**reply, "id": target})

    def _host_notification(self, msg: Notification) -> None:
        method = msg.get("method")
        if method == "notifications/initialized":
            return  # the guard told the upstream itself, before verifying
        if method == "notifications/cancelled":
            params = msg.get("params") or {}
            if not is_id(params.get("requestId")):
                return
            if self.modern.end_listen(params.get("requestId")):
                return
            uid = self.ledger.cancelled(host_key(params.get("requestId")))
            if uid is not None:
                self.upstream.send_up({"jsonrpc": "2.0", "method": method, "params": {**params, "requestId": uid}})
            return
        self.upstream.send_up(rebuilt(msg))

    # --- what the guard answers itself -----------------------------------------------------

    async def _serve_list(self, kind: str, rid: Any) -> None:
        if kind == "tool":
            self.lists_served += 1
            if self.lists_served > 1:  # a re-sent list: look again, never pass new text through
                await self.upstream.reverify(["tool"])
        view = await self.views.get()
        items = view.definitions(kind)
        if kind == "tool":  # over Streamable HTTP a tool with invalid x-mcp-header is not usable
            items = [d for d in items if not header_problems(self.spec, d)]
        self.io.send(result(rid, self.modern.list_result(RESULT_FIELD[kind], items)))

    def _get_prompt(self, msg: Request) -> None:
        if (view := self.views.now()) is not None:
            if self._prompt_allowed(msg, view):
                self.upstream.relay(msg)
        else:
            self.ledger.spawn(self._get_prompt_later(msg), msg["id"])

    async def _get_prompt_later(self, msg: Request) -> None:
        if self._prompt_allowed(msg, await self.views.get()):
            await self.upstream.forward(msg)

    def _prompt_allowed(self, msg: Request, view: View) -> bool:
        """Whether the prompt may be got; the host has its refusal when not."""
        params = member(msg, "params")
        name = params.get("name")
        d = view.item("prompt", name) if isinstance(name, str) else Decision("refuse", "unknown", "no prompt name")
        if not d.allowed:
            self.io.send(error(msg["id"], INVALID_PARAMS, f"mcplock refused this prompt: {d.message()}"))
        return d.allowed

    # --- resources/read of a document the lock pins -----------------------------------------

    def _read_unpinned(self, msg: Request) -> None:
        """A server that pins its resources: a read of a URI the lock neither pins nor reaches
        through an accepted template is refused (:mod:`mcplock.guard.resource_reads`)."""
        if (view := self.views.now()) is not None:
            if self._templated(msg, view):
                self.upstream.relay(msg)
        else:
            self.ledger.spawn(self._read_unpinned_later(msg), msg["id"])

    async def _read_unpinned_later(self, msg: Request) -> None:
        if self._templated(msg, await self.views.get()):
            await self.upstream.forward(msg)

    def _templated(self, msg: Request, view: View) -> bool:
        """Whether the read matches an accepted template; the host has its refusal when not."""
        why = template_refusal(self.server, view, msg)
        if why is None:
            return True
        shown = why[0]
        self.notes.note(f"refused:read:{shown}", f"mcplock: refused a read: {why[1]}")
        self.io.send(
            error(
                msg["id"],
                INVALID_PARAMS,
                f"mcplock refused this resource: {why[1]}; see "
                f"`mcplock show {shell_word(self.server.name)}` for what is locked",
            )
        )
        return False

    def _read_document(self, msg: Request) -> None:
        if (view := self.views.now()) is not None:
            self._serve_document(msg, view)
        else:
            self.ledger.spawn(self._read_document_later(msg), msg["id"])

    async def _read_document_later(self, msg: Request) -> None:
        self._serve_document(msg, await self.views.get())

    def _serve_document(self, msg: Request, view: View) -> None:
        """The locked document, byte-exact from the lock, or a refusal: never the upstream's."""
        which = pinned_document(self.server, msg)
        assert which is not None
        kind, uri = which
        d = view.item(kind, uri)
        skill = skills.skill_refusal(self.server, view, uri) if d.allowed and kind == "content" else None
        if skill is not None:  # a SKILL.md whose skill's set of files is not the accepted one
            d = Decision("refuse", "changed", skill)
        if not d.allowed:
            self.notes.note(f"refused:{kind}:{uri}", f"mcplock: refused a read: {d.message()}")
            self.io.send(error(msg["id"], INVALID_PARAMS, f"mcplock refused this resource: {d.message()}"))
            return
        self.io.send(self.modern.to_host(result(msg["id"], read_result(self.server.items[kind][uri].definition))))

    # --- tools/call -------------------------------------------------------------------------

    def _call(self, msg: Request) -> None:
        if self.freshness.stale():  # (guard/freshness.py)
            self.ledger.spawn(self._relist_then_call(msg), msg["id"])
            return
        view = self.views.now()
        if view is None:
            self.ledger.spawn(self._call_later(msg), msg["id"])
            return
        checked = self._check_call(msg, view)
        if checked is None:
            return
        d, entry = checked
        if d.verdict == "ask":
            self.ledger.spawn(self._ask_then_call(msg, entry), msg["id"])
            return
        self.upstream.relay(msg, self._call_sent(d, entry))

    async def _relist_then_call(self, msg: Request) -> None:
        await self.freshness.relist()
        await self._call_later(msg)

    async def _call_later(self, msg: Request) -> None:
        """A call that came while the view was being rebuilt: decided on the new view."""
        checked = self._check_call(msg, await self.views.get())
        if checked is None:
            return
        d, entry = checked
        if d.verdict == "ask":
            await self._ask_then_call(msg, entry)
        else:
            await self.upstream.forward(msg, self._call_sent(d, entry))

    def _check_call(self, msg: Request, view: View) -> tuple[Decision, Entry] | None:
        """The decision and the lock entry of a call that may go on (after asking when the
        verdict is ``ask``); None when the host has its refusal or error already."""
        rid = msg["id"]
        params = msg.get("params")
        if not isinstance(params, dict) or not isinstance(params.get("name"), str):
            self.io.send(error(rid, INVALID_PARAMS, "tools/call needs params with a string `name`"))
            return None
        name = params["name"]
        args = params.get("arguments", {})
        if self.modern.retry_refused(rid, params):
            return None
        d = view.tool(name, self.host.policy)
        if d.allowed and header_problems(self.spec, self.server.tools[name].definition):
            d = Decision(
                "refuse",
                "invalid-mcp-header",
                f"`{self.server.name}/{name}` has invalid x-mcp-header "
                "annotations: a client must not use it over Streamable HTTP",
                f"disable it: `mcplock disable {shell_word(format_target(self.server.name, 'tool', name))}`",
            )
        if not d.allowed:
            self.notes.note(f"refused:{name}:{d.code}", f"mcplock: refused a call: {d.message()}")
            self.io.send(self.modern.to_host(result(rid, refused_result(d))))
            return None
        entry = self.server.tools[name]
        errs = self.validators.errors(entry, {} if args is None else args)
        if errs:
            self.io.send(
                error(
                    rid,
                    INVALID_PARAMS,
                    f"arguments for `{name}` do not match its locked schema: " + "; ".join(errs),
                    {"errors": errs},
                )
            )
            return None
        if self.modern.resumed(rid, params):
            return None  # the retry of a call its legacy server asked about: answered from that call
        self.ledger.call_started(host_key(rid), name, params)  # until answered (a requestState, a legacy retry)
        return d, entry

    async def _ask_then_call(self, msg: Request, entry: Entry) -> None:
        params = call_params(msg)  # checked by _check_call: its `name` is the entry's key
        if self.host.modern:  # asked as input_required, answered by the retry (guard/approve.py)
            ok = self.modern.approval_answered(params)
            if ok is None:
                self.modern.ask_approval(msg["id"], entry.key, params.get("arguments", {}))
                return
            msg = approve.for_upstream(msg)
        else:
            ok = await self._ask(entry.key, params.get("arguments", {}))
        if not ok:
            no = Decision("refuse", "declined", f"the person declined the call of `{self.server.name}/{entry.key}`")
            self.io.send(self.modern.to_host(result(msg["id"], refused_result(no))))
            return
        await self.upstream.forward(msg, partial(self._after_call, entry))

    def _call_sent(self, d: Decision, entry: Entry) -> Callable[[dict[str, Any]], None]:
        """What follows the answer of a call about to be sent (its note said first)."""
        if d.code == "host-prompt":
            self.notes.note("host-prompt", f"mcplock: {d.reason} (use --strict to refuse such calls instead)")
        return partial(self._after_call, entry)

    def _after_call(self, entry: Entry, out: dict[str, Any]) -> None:
        """An answer that says the server's tool is not the locked one is drift evidence."""
        signal = drift_signal(out) if "id" in out else None
        if signal is not None and (out.get("error") or {}).get("code") != SERVER_ERROR:
            name = entry.key
            evidence.record(self.lockfile, self.server.name, name, entry.hash, signal[0], signal[1])
            self.notes.note(
                f"drift:{name}",
                f"mcplock: `{self.server.name}/{name}` passed the locked schema but the "
                "server refused it: the lock and the server differ; run "
                f"`mcplock diff {shell_word(self.server.name)}`",
            )

    async def _ask(self, name: str, args: Any) -> bool:
        """Ask the person through the host's elicitation; True only on an explicit accept."""
        resp = await self.ask_host("elicitation/create", elicitation_params(self.server.name, name, args))
        return resp is not None and member(resp, "result").get("action") == "accept"
