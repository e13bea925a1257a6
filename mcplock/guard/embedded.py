"""App documents embedded in what the guard relays (docs/guard.md, "Documents come from the lock").

A tool result (or a ``prompts/get`` message) may carry an embedded resource — ``{"type":
"resource", "resource": {"uri": "ui://…", "mimeType", "text" | "blob", "_meta"}}`` — and hosts
that render MCP-UI render such a ``ui://`` document at once, without any ``resources/read``. The
guard serves App documents only as locked, so an embedded one is screened the same way: one
identical to the locked, accepted document the current view allows is replaced by the lock's own
object; any other (unknown to the lock, changed, pending, refused) is dropped and a text item
says so. The URI's scheme is matched in any letter case (:func:`mcplock.model.documents.is_ui_uri`).

Pure and cheap: a result without a ``content`` list (or a prompt result without ``messages``)
is returned as it is, untouched.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcplock.model.documents import is_ui_uri, read_result

if TYPE_CHECKING:
    from mcplock.guard.view import View
    from mcplock.lock.model import ServerEntry


def screen(result: dict[str, Any], server: ServerEntry, view: View | None) -> tuple[dict[str, Any], list[str]]:
    """``result`` with each embedded App document the locked one or dropped; (the result, the
    URIs dropped). The result is a new object only when something was replaced or dropped."""
    dropped: list[str] = []
    out = result
    content = result.get("content")
    if isinstance(content, list):
        new = _items(content, server, view, dropped)
        if new is not content:
            out = {**out, "content": new}
    messages = result.get("messages")
    if isinstance(messages, list):
        kept = _messages(messages, server, view, dropped)
        if kept is not messages:
            out = {**out, "messages": kept}
    return out, dropped


def _messages(messages: list[Any], server: ServerEntry, view: View | None, dropped: list[str]) -> list[Any]:
    """A prompt's messages with each embedded App document screened (a message's ``content`` is
    one item or a list of them); ``messages`` itself when none changed."""
    changed = False
    kept: list[Any] = []
    for m in messages:
        c = m.get("content") if isinstance(m, dict) else None
        if isinstance(c, dict | list):
            items = c if isinstance(c, list) else [c]
            new = _items(items, server, view, dropped)
            if new is not items:
                changed = True
                m = {**m, "content": new if isinstance(c, list) else (new[0] if new else _note([]))}
        kept.append(m)
    return kept if changed else messages


def _items(items: list[Any], server: ServerEntry, view: View | None, dropped: list[str]) -> list[Any]:
    out: list[Any] | None = None
    here: list[str] = []
    for i, item in enumerate(items):
        res = item.get("resource") if isinstance(item, dict) and item.get("type") == "resource" else None
        uri = res.get("uri") if isinstance(res, dict) else None
        if not isinstance(uri, str) or not (is_ui_uri(uri) or uri in server.items["ui"]):
            if out is not None:
                out.append(item)
            continue
        if out is None:
            out = list(items[:i])
        locked = _locked(uri, server, view)
        if locked is not None and res == locked:
            out.append({**item, "resource": locked})
        else:
            here.append(uri)
    if out is None:
        return items
    if here:
        dropped.extend(here)
        out.append(_note(here))
    return out


def _locked(uri: str, server: ServerEntry, view: View | None) -> dict[str, Any] | None:
    """The content object the lock serves for ``uri``, when the view allows it; else None."""
    entry = server.items["ui"].get(uri)
    if entry is None or view is None or not isinstance(entry.definition, dict) or not view.item("ui", uri).allowed:
        return None
    contents = read_result(entry.definition)["contents"]
    return contents[0] if len(contents) == 1 and isinstance(contents[0], dict) else None


def _note(uris: list[str]) -> dict[str, Any]:
    from mcplock.text.untrusted import name_text

    which = ", ".join(name_text(u) for u in uris) or "an App document"
    return {
        "type": "text",
        "text": f"[mcplock] dropped an App document embedded in this result ({which}): it is "
        "not the one the lock accepted; the host may read the accepted one with "
        "resources/read",
    }
