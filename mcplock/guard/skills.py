"""The skills extension at run time (docs/protocol.md, "Skills"): what the guard answers for a
server whose lock holds skills (``modelcontextprotocol/ext-skills``).

- ``skills/list`` and ``skills/get`` are answered from the lock: the accepted entries, each as
  locked (an entry whose live listing differs is not served; ``skills/get`` of it is -32602, as
  the spec answers a URI that names no skill). Nothing is relayed.
- A skill's ``SKILL.md`` is served from the lock (a pinned document, :mod:`mcplock.model.documents`),
  and only while its skill's entry is accepted and unchanged: approval binds to the whole set.
- A supporting file the locked entry lists is read from the upstream and passed on only when its
  bytes have the locked size and SHA-256 digest; a file under the skill's directory that the
  entry does not list is refused without asking the upstream (an unlisted file is a change).
- A dynamic skill (``resources: "dynamic"``) offers no content integrity: its entry is served
  as locked, its files are relayed as the server sends them, and stderr says so once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from mcplock.guard.hostio import INVALID_PARAMS, error, result
from mcplock.guard.messages import read_params
from mcplock.lock.model import ServerEntry
from mcplock.model.documents import file_mismatch, is_dynamic, skill_files, skill_root
from mcplock.text.untrusted import sanitize, shell_word

if TYPE_CHECKING:
    from mcplock.guard.hostio import HostIO
    from mcplock.guard.messages import Request
    from mcplock.guard.state import HostState, Notes
    from mcplock.guard.upstream_side import UpstreamSide
    from mcplock.guard.view import Current, View

LISTED, UNLISTED, DYNAMIC = "listed", "unlisted", "dynamic"


class HostSide(Protocol):
    """The parts a skill request is answered with, as the host side holds them
    (:class:`mcplock.guard.host_requests.HostRequests` passes itself): read, never written."""

    server: ServerEntry
    views: Current
    io: HostIO
    notes: Notes
    host: HostState
    upstream: UpstreamSide


def file_of(server: ServerEntry, msg: Request) -> tuple[str, str, dict[str, Any] | None] | None:
    """(the locked skill's URI, how the lock knows the read's URI, the locked file) for a
    ``resources/read`` of a file of a locked skill; None for any other read.

    ``listed``: an entry lists it (its file given); ``unlisted``: it lies under a content-bound
    skill's directory and no entry lists it; ``dynamic``: under a dynamic skill's directory only."""
    uri = read_params(msg).get("uri")
    skills = server.items["skill"]
    if not isinstance(uri, str) or not skills:
        return None
    under: list[str] = []
    for key in sorted(skills):
        root = skill_root(key)
        if uri != key and (root is None or not uri.startswith(root + "/")):
            continue
        definition = skills[key].definition
        f = skill_files(definition).get(uri)
        if f is not None:
            return key, LISTED, f
        under.append(key)
    if not under:
        return None
    bound = [k for k in under if not is_dynamic(skills[k].definition)]
    return (bound[0], UNLISTED, None) if bound else (under[0], DYNAMIC, None)


def skill_refusal(server: ServerEntry, view: View, uri: str) -> str | None:
    """Why the ``SKILL.md`` at ``uri`` may not be served although its content is locked: its
    skill's entry (the set of files the approval binds to) is not accepted as it is now."""
    if uri not in server.items["skill"]:
        return None
    d = view.item("skill", uri)
    return None if d.allowed else d.message()


def _why(server: ServerEntry, key: str) -> str:
    return f"run `mcplock diff {shell_word(server.name)}` to see what changed"


async def get(hr: HostSide, msg: Request) -> None:
    """``skills/get``: the locked entry of an accepted skill, else -32602."""
    view = await hr.views.get()
    params = msg.get("params")
    uri = params.get("uri") if isinstance(params, dict) else None
    entry = hr.server.items["skill"].get(uri) if isinstance(uri, str) else None
    if not isinstance(uri, str) or entry is None or not isinstance(entry.definition, dict):
        shown = sanitize(uri, 200) if isinstance(uri, str) else "(no uri)"
        hr.io.send(error(msg["id"], INVALID_PARAMS, f"No skill is served at {shown}"))
        return
    d = view.item("skill", uri)
    if not d.allowed:
        hr.notes.note(f"refused:skill:{uri}", f"mcplock: refused skills/get: {d.message()}")
        hr.io.send(error(msg["id"], INVALID_PARAMS, f"mcplock refused this skill: {d.message()}"))
        return
    out: dict[str, Any] = {"skill": entry.definition}
    if hr.host.modern:
        out = {"resultType": "complete", **out, "ttlMs": 0, "cacheScope": "private"}
    hr.io.send(result(msg["id"], out))


async def read_file(hr: HostSide, msg: Request) -> None:
    """``resources/read`` of a file of a locked skill (:func:`file_of`): refused, relayed and
    verified against the locked digest and size, or (dynamic) relayed."""
    view = await hr.views.get()
    found = file_of(hr.server, msg)
    assert found is not None
    key, how, locked = found
    uri = str(read_params(msg).get("uri"))  # a str: file_of found it
    shown = sanitize(uri, 200)
    d = view.item("skill", key)
    if not d.allowed:
        _refuse(hr, msg, uri, f"{d.message()}")
        return
    if how == UNLISTED:
        _refuse(
            hr,
            msg,
            uri,
            f"`{shown}` is not a file of the locked skill `{sanitize(key, 200)}` "
            f"(an unlisted file is a change to the skill); {_why(hr.server, key)}",
        )
        return
    if how == DYNAMIC:
        hr.notes.note(
            f"dynamic:{key}",
            f"mcplock: `{sanitize(key, 200)}` is a dynamic skill: its files are "
            "generated by the server and cannot be checked against the lock",
        )
        await hr.upstream.forward(msg)
        return
    assert locked is not None

    def verified(out: dict[str, Any]) -> dict[str, Any]:
        res = out.get("result")
        if not isinstance(res, dict):
            return out  # the server's own error: passed on
        why = file_mismatch(locked, res.get("contents"))
        if why is None:
            return out
        message = f"`{shown}` does not match the locked skill `{sanitize(key, 200)}`: {why}; {_why(hr.server, key)}"
        hr.notes.note(f"refused:skill-file:{uri}", f"mcplock: refused a skill file: {message}")
        return error(out["id"], INVALID_PARAMS, f"mcplock refused this resource: {message}")

    await hr.upstream.forward(msg, rewrite=verified)


def _refuse(hr: HostSide, msg: Request, uri: str, message: str) -> None:
    hr.notes.note(f"refused:skill-file:{uri}", f"mcplock: refused a skill file: {message}")
    hr.io.send(error(msg["id"], INVALID_PARAMS, f"mcplock refused this resource: {message}"))
