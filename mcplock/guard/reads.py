"""The ``resources/read`` the lock answers itself, and how a relayed ``resources/list`` shows App
documents (docs/guard.md, "Documents come from the lock"): any ``ui://`` document, a pinned
resource's or a skill's content is served from the lock (:func:`pinned_document`); a relayed
listing shows each App document as locked, or not at all (:func:`ui_listing`); under
``pin-resources`` a read of another URI goes on only when an accepted template names it
(:func:`template_refusal`, :mod:`mcplock.guard.resource_reads`). Pure: the host side sends."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcplock.guard.wellformed import member
from mcplock.model.documents import LISTED, is_ui_uri

if TYPE_CHECKING:
    from mcplock.guard.messages import Request
    from mcplock.guard.view import Current, View
    from mcplock.lock.model import ServerEntry


def pinned_document(server: ServerEntry, msg: Request) -> tuple[str, str] | None:
    """(kind, URI) of a read the lock answers: any ``ui://`` document, a pinned resource's
    or a skill's content; None for a read that goes on upstream (resources are data)."""
    params = msg.get("params")
    uri = params.get("uri") if isinstance(params, dict) else None
    if not isinstance(uri, str):
        return None
    if is_ui_uri(uri) or uri in server.items["ui"]:
        return "ui", uri
    if uri in server.items["content"] or (server.spec.pin_resources and uri in server.items["resource"]):
        return "content", uri
    return None


def template_refusal(server: ServerEntry, view: View, msg: Request) -> tuple[str, str] | None:
    """None when the read matches an accepted resource template (the path not walking out of it);
    else (the URI as shown, why it is refused)."""
    from mcplock.guard.resource_reads import matches, walks_out
    from mcplock.text.untrusted import name_text

    uri = member(msg, "params").get("uri")
    if (
        isinstance(uri, str)
        and not walks_out(uri)
        and any(
            matches(t, uri) and view.item("resource-template", t).allowed for t in server.items["resource-template"]
        )
    ):
        return None
    shown = name_text(uri) if isinstance(uri, str) else "(no uri)"
    why = (
        f"`{shown}` is neither a resource the lock pins for `{server.name}` nor a match of one of its "
        "accepted resource templates"
        + (" (its path walks out with `.` or `..`)" if isinstance(uri, str) and walks_out(uri) else "")
    )
    return shown, why


def ui_listing(server: ServerEntry, views: Current, out: dict[str, Any]) -> dict[str, Any]:
    """A relayed ``resources/list`` answer with each ``ui://`` entry as the lock holds it (its
    ``_meta.ui`` is the host's fallback CSP), or left out where the document is not served."""
    res = out.get("result")
    entries = res.get("resources") if isinstance(res, dict) else None
    view = views.view
    if not isinstance(res, dict) or not isinstance(entries, list) or view is None:
        return out
    kept = [k for e in entries for k in _as_locked(server, e, view)]
    return {**out, "result": {**res, "resources": kept}}


def _as_locked(server: ServerEntry, listed: Any, view: View) -> list[Any]:
    """One entry of a relayed ``resources/list``: an App document's as the lock holds it (none
    when it is not served); any other resource's as the server listed it."""
    uri = listed.get("uri") if isinstance(listed, dict) else None
    if not isinstance(uri, str) or not (is_ui_uri(uri) or uri in server.items["ui"]):
        return [listed]
    entry = server.items["ui"].get(uri)
    locked = entry.definition.get(LISTED) if entry is not None and isinstance(entry.definition, dict) else None
    return [locked] if isinstance(locked, dict) and view.item("ui", uri).allowed else []
