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
from mcplock.model.documents import file_mismatch, is_dynamic, only_verified, skill_files, skill_root
from mcplock.text.untrusted import sanitize, shell_word

if TYPE_CHECKING:
    from mcplock.guard.hostio import HostIO
    from mcplock.guard.messages import Request
    from mcplock.guard.state import HostState, Notes
    from mcplock.guard.upstream_side import UpstreamSide
    from mcplock.guard.view import Current, View

LISTED, UNLISTED, DYNAMIC, VARIANT, UNKNOWN = "listed", "unlisted", "dynamic", "variant", "unknown"
SCHEME = "skill://"


class HostSide(Protocol):
    """The parts a skill request is answered with, as the host side holds them
    (:class:`mcplock.guard.host_requests.HostRequests` passes itself): read, never written."""

    server: ServerEntry
    views: Current
    io: HostIO
    notes: Notes
    host: HostState
    upstream: UpstreamSide


def canonical_uri(uri: str) -> str:
    """A skill URI as RFC 3986 §6.2.2 compares it: the scheme and authority in lower case,
    unreserved characters percent-decoded, empty path segments dropped (``//``) and dot segments
    resolved. Two spellings of one skill's file have one canonical form."""
    import re
    from urllib.parse import unquote

    scheme, sep, rest = uri.partition("://")
    if not sep:
        return uri
    authority, slash, path = rest.partition("/")

    def unreserved(m: re.Match[str]) -> str:
        c = unquote(m.group(0))
        return c if re.fullmatch(r"[A-Za-z0-9\-._~]", c) else m.group(0).upper()

    path = re.sub(r"%[0-9A-Fa-f]{2}", unreserved, path)
    out: list[str] = []
    for seg in path.split("/"):
        if seg in ("", "."):
            continue
        if seg == "..":
            if out:
                out.pop()
            continue
        out.append(seg)
    return f"{scheme.lower()}://{authority.lower()}{slash}{'/'.join(out)}"


def _is_skill_uri(uri: str) -> bool:
    return uri[: len(SCHEME)].lower() == SCHEME


def file_of(server: ServerEntry, msg: Request) -> tuple[str, str, list[dict[str, Any]]] | None:
    """(the locked skill's URI, how the lock knows the read's URI, the locked files) for a
    ``resources/read`` the lock's skills decide; None for any other read.

    ``listed``: one or more entries list exactly this URI (wherever it lives: a skill may list a
    file outside its own directory, and that file is verified like any other; every entry that
    lists it is given); ``variant``: another spelling (letter case of the scheme or authority,
    ``//``, dot segments, percent-encoding) of a URI the lock's skills name — refused, the host
    reads the lock's spelling; ``unlisted``: under a content-bound skill's directory and no entry
    lists it; ``dynamic``: under a dynamic skill's directory only; ``unknown``: a ``skill://`` URI
    (any letter case) the lock's skills do not name at all. A ``SKILL.md`` the lock pins is served
    from the lock before this is asked (``HostRequests._pinned_document``)."""
    uri = read_params(msg).get("uri")
    skills = server.items["skill"]
    if not isinstance(uri, str) or not skills:
        return None
    keys = sorted(skills)
    listing = [(k, f) for k in keys for u, f in skill_files(skills[k].definition).items() if u == uri]
    if listing:
        return listing[0][0], LISTED, [f for _, f in listing]
    if uri in skills:  # a SKILL.md the lock does not pin: a dynamic skill's (generated)
        return uri, (DYNAMIC if is_dynamic(skills[uri].definition) else UNLISTED), []
    canon = canonical_uri(uri)
    named = {canonical_uri(u) for k in keys for u in (k, *skill_files(skills[k].definition))}
    named.update(canonical_uri(u) for u in server.items["content"])
    if canon in named:
        return _owner(server, canon), VARIANT, []
    under: list[str] = []
    for key in keys:
        root = skill_root(key)
        if root is None or not canon.startswith(canonical_uri(root) + "/"):
            continue
        if not _spelled_under(uri, root):
            return key, VARIANT, []
        under.append(key)
    if not under:
        return (keys[0], UNKNOWN, []) if _is_skill_uri(uri) else None
    bound = [k for k in under if not is_dynamic(skills[k].definition)]
    return (bound[0], UNLISTED, []) if bound else (under[0], DYNAMIC, [])


def _spelled_under(uri: str, root: str) -> bool:
    """Whether ``uri`` is spelled as a path under the locked ``root`` (no ``//``, no dot segment,
    no percent-encoded unreserved character in what follows it)."""
    if not uri.startswith(root + "/"):
        return False
    rest = uri[len(root) + 1 :]
    return canonical_uri("x://a/" + rest) == "x://a/" + rest


def _owner(server: ServerEntry, canon: str) -> str:
    """The locked skill a canonical URI belongs to (the first that names it; else the first skill)."""
    skills = server.items["skill"]
    for key in sorted(skills):
        root = skill_root(key)
        if canon == canonical_uri(key) or any(canonical_uri(u) == canon for u in skill_files(skills[key].definition)):
            return key
        if root is not None and canon.startswith(canonical_uri(root) + "/"):
            return key
    return sorted(skills)[0]


def listing_skills(server: ServerEntry, uri: str) -> list[str]:
    """Every locked skill whose entry is ``uri`` or lists it as one of its files."""
    skills = server.items["skill"]
    return [k for k in sorted(skills) if k == uri or uri in skill_files(skills[k].definition)]


def skill_refusal(server: ServerEntry, view: View, uri: str) -> str | None:
    """Why the pinned document at ``uri`` (a ``SKILL.md``, or a file a skill lists) may not be
    served although its content is locked: a skill that is it or lists it (the set of files the
    approval binds to) is not accepted as it is now."""
    for key in listing_skills(server, uri):
        d = view.item("skill", key)
        if not d.allowed:
            return d.message()
    return None


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
    """``resources/read`` of a file the lock's skills decide (:func:`file_of`): refused, relayed
    and verified against the locked digest and size of every entry that lists it, or (dynamic)
    relayed."""
    view = await hr.views.get()
    found = file_of(hr.server, msg)
    assert found is not None
    key, how, locked = found
    uri = str(read_params(msg).get("uri"))  # a str: file_of found it
    shown = sanitize(uri, 200)
    if how == UNKNOWN:
        _refuse(hr, msg, uri, f"`{shown}` names no skill or file the lock holds; {_why(hr.server, key)}")
        return
    if how == VARIANT:
        _refuse(
            hr,
            msg,
            uri,
            f"`{shown}` is another spelling of `{sanitize(canonical_uri(uri), 200)}`, which the lock's skills "
            "name: read it as `skills/list` spells it",
        )
        return
    for owner in listing_skills(hr.server, locked[0]["uri"]) if how == LISTED else [key]:
        d = view.item("skill", owner)
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

    def verified(out: dict[str, Any]) -> dict[str, Any]:
        res = out.get("result")
        if not isinstance(res, dict):
            return out  # the server's own error: passed on
        why = next((w for f in locked if (w := file_mismatch(f, res.get("contents"))) is not None), None)
        if why is None:
            return {**out, "result": {"contents": [only_verified(res["contents"][0])]}}
        message = f"`{shown}` does not match the locked skill `{sanitize(key, 200)}`: {why}; {_why(hr.server, key)}"
        hr.notes.note(f"refused:skill-file:{uri}", f"mcplock: refused a skill file: {message}")
        return error(out["id"], INVALID_PARAMS, f"mcplock refused this resource: {message}")

    await hr.upstream.forward(msg, rewrite=verified)


def _refuse(hr: HostSide, msg: Request, uri: str, message: str) -> None:
    hr.notes.note(f"refused:skill-file:{uri}", f"mcplock: refused a skill file: {message}")
    hr.io.send(error(msg["id"], INVALID_PARAMS, f"mcplock refused this resource: {message}"))
