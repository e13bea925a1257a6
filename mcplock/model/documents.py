"""Documents a server serves with ``resources/read`` that the lock pins by content: an MCP
App's ``ui://`` documents (kind ``ui``), and the content of pinned resources and of skills'
``SKILL.md`` files (kind ``content``). Pure: the probe reads them (:mod:`mcplock.probe._reads`),
the guard serves them back from the lock (:func:`read_result`).

A document's definition is what ``resources/read`` returned for its URI: the one content
object exactly as sent when the server answered with one whose ``uri`` is the URI asked for
(the usual case: ``{uri, mimeType, text | blob, _meta}``), else ``{"uri": URI, "contents":
[...]}`` with every content object as sent. Its hash is the lock's definition hash, so it
covers the bytes, the MIME type and ``_meta.ui`` (CSP, permissions, domain) together. An App
document listed in ``resources/list`` keeps that entry too, under ``listed``: hosts fall back to
the listing's ``_meta.ui`` where the content has none.
"""

from __future__ import annotations

from typing import Any, TypeGuard

UI_EXTENSION = "io.modelcontextprotocol/ui"  # MCP Apps (the ext-apps spec; the SDK's mcp.server.apps)
SKILLS_EXTENSION = "io.modelcontextprotocol/skills"  # SEP-2640, experimental
APP_MIME_TYPE = "text/html;profile=mcp-app"
UI_SCHEME = "ui://"


def is_ui_uri(uri: object) -> TypeGuard[str]:
    """Whether ``uri`` names an App document: a ``ui://`` URI in any letter case (a URI's scheme
    is case-insensitive, RFC 3986 §3.1, and hosts read ``UI://`` as ``ui://``)."""
    return isinstance(uri, str) and uri[: len(UI_SCHEME)].lower() == UI_SCHEME


# what a probe declares in its client capabilities, as the hosts that render Apps do
CLIENT_EXTENSIONS: dict[str, Any] = {UI_EXTENSION: {"mimeTypes": [APP_MIME_TYPE]}}


def tool_ui_uri(tool: Any) -> str | None:
    """The ``ui://`` document a tool points at: ``_meta.ui.resourceUri``, or the older
    ``_meta["ui/resourceUri"]``; None when it points at none."""
    meta = tool.get("_meta") if isinstance(tool, dict) else None
    if not isinstance(meta, dict):
        return None
    uri = _meta_ui(meta).get("resourceUri")
    if not isinstance(uri, str):
        uri = meta.get("ui/resourceUri")
    return uri if is_ui_uri(uri) else None


def _meta_ui(where: Any) -> dict[str, Any]:
    """The ``ui`` object of a ``_meta`` (empty when there is none)."""
    ui = where.get("ui") if isinstance(where, dict) else None
    return ui if isinstance(ui, dict) else {}


def ui_uris(tools: list[dict[str, Any]]) -> list[str]:
    """Every ``ui://`` document the tools point at, each once, sorted."""
    return sorted({u for u in map(tool_ui_uri, tools) if u is not None})


def declares(capabilities: Any, extension: str) -> bool:
    """Whether a server's (or client's) capabilities declare ``extension``."""
    ext = capabilities.get("extensions") if isinstance(capabilities, dict) else None
    return isinstance(ext, dict) and ext.get(extension) not in (None, False)


def definition_of(uri: str, contents: list[dict[str, Any]]) -> dict[str, Any]:
    """The pinned definition of the document ``uri`` from the ``contents`` a read returned."""
    if len(contents) == 1 and contents[0].get("uri") == uri:
        return contents[0]
    return {"uri": uri, "contents": contents}


LISTED = "listed"  # an App document's resources/list entry, pinned with it (the host's fallback `_meta.ui`)


def with_listing(definition: dict[str, Any], listing: list[dict[str, Any]]) -> dict[str, Any]:
    """An App document's definition with its ``resources/list`` entry, when the server lists it:
    the listing's ``_meta.ui`` (CSP, permissions, domain) is what a host falls back to where the
    content has none, so it is pinned too."""
    uri = definition.get("uri")
    entry = next((r for r in listing if r.get("uri") == uri), None)
    return {**definition, LISTED: entry} if entry is not None else definition


def read_result(definition: dict[str, Any]) -> dict[str, Any]:
    """The ``resources/read`` result that serves a pinned definition (inverse of :func:`definition_of`)."""
    if isinstance(definition.get("contents"), list) and "text" not in definition and "blob" not in definition:
        return {"contents": definition["contents"]}
    return {"contents": [{k: v for k, v in definition.items() if k != LISTED}]}


def effective_ui(definition: Any) -> dict[str, Any]:
    """The ``_meta.ui`` a host applies to an App document: the content's, else its listing's."""
    for where in (definition, definition.get(LISTED) if isinstance(definition, dict) else None):
        meta = where.get("_meta") if isinstance(where, dict) else None
        ui = meta.get("ui") if isinstance(meta, dict) else None
        if isinstance(ui, dict):
            return ui
    return {}


def document_text(definition: Any) -> str | None:
    """The text of a single-content document (None for a blob or several contents)."""
    text = definition.get("text") if isinstance(definition, dict) else None
    return text if isinstance(text, str) else None


# --- skills (the skills extension, modelcontextprotocol/ext-skills) ----------------------------
# A skill's listing entry is {uri, frontmatter, resources}: `resources` is the complete set of its
# files ({uri, digest, size}) or the string "dynamic". Approval binds to the *set*: the probe keeps
# the files sorted by URI (:func:`canonical_skill`), so the same files in another order hash alike.

DYNAMIC = "dynamic"


def is_dynamic(skill: Any) -> bool:
    """Whether a skill entry says its content is generated (``resources: "dynamic"``): it cannot be
    bound by content, only its entry (URI, frontmatter) is pinned."""
    return isinstance(skill, dict) and skill.get("resources") == DYNAMIC


def dynamic_skills(server: Any) -> list[str]:
    """The URIs of a lock entry's dynamic skills, sorted."""
    return sorted(k for k, e in server.items["skill"].items() if is_dynamic(e.definition))


def _listed_files(skill: Any) -> list[Any] | None:
    """The files a skill entry lists (None: a dynamic skill, or no list)."""
    files = skill.get("resources") if isinstance(skill, dict) else None
    return files if isinstance(files, list) else None


def _file_order(f: Any) -> tuple[str, str, str]:
    """Where a listed file sorts: by URI, digest, size (anything else first, by its repr)."""
    if isinstance(f, dict):
        return (str(f.get("uri")), str(f.get("digest")), str(f.get("size")))
    return ("", "", repr(f))


def canonical_skill(skill: Any) -> Any:
    """A skill entry with its files in URI order (the set is what is bound, not its order)."""
    files = _listed_files(skill)
    if files is None:
        return skill
    return {**skill, "resources": sorted(files, key=_file_order)}


def skill_files(skill: Any) -> dict[str, dict[str, Any]]:
    """URI -> {uri, digest, size} of each file a (non-dynamic) skill entry lists."""
    files = _listed_files(skill)
    if files is None:
        return {}
    return {f["uri"]: f for f in files if isinstance(f, dict) and isinstance(f.get("uri"), str)}


SKILL_FILE_PIN_MAX = 64 * 1024  # a listed file this small is pinned by content, whatever its bytes
# a text file is pinned by content up to this size (issue 42.6: a script padded past 64 KiB was held
# by its digest alone, its swap for `curl … | sh` unseen); it fits one MCP message even as base64
SKILL_FILE_READ_MAX = 8 * 1024 * 1024


def pinned_skill_files(skill: Any) -> list[str]:
    """The files of a content-bound skill entry the probe reads to pin by content, beside its
    digest: each listed file of at most :data:`SKILL_FILE_READ_MAX` bytes. Of those the lock keeps
    every file of at most :data:`SKILL_FILE_PIN_MAX` bytes and every text file (:func:`kept_file`),
    so a change to a script or a reference shows as a text diff and is linted whatever its size; a
    larger binary file is held by its digest alone."""
    return sorted(
        u
        for u, f in skill_files(skill).items()
        if isinstance(f.get("size"), int)
        and not isinstance(f.get("size"), bool)
        and 0 <= f["size"] <= SKILL_FILE_READ_MAX
    )


def kept_file(definition: Any) -> bool:
    """Whether a skill file read for pinning stays in the lock: small, or text (:func:`file_text`)."""
    data = content_bytes(definition)
    return data is None or len(data) <= SKILL_FILE_PIN_MAX or file_text(definition) is not None


def file_text(definition: Any) -> str | None:
    """A single-content document's text: its ``text``, or a ``blob`` whose bytes are UTF-8 text
    without NUL (a script served as a blob is still a script); None for a binary file."""
    text = document_text(definition)
    if text is not None:
        return text
    data = content_bytes(definition) if isinstance(definition, dict) and "blob" in definition else None
    if data is None or b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def skill_root(uri: str) -> str | None:
    """The directory of a skill's ``SKILL.md`` URI (its files are under it); None for another URI."""
    head, sep, tail = uri.rpartition("/")
    return head if sep and tail == "SKILL.md" and head else None


def content_bytes(content: Any) -> bytes | None:
    """The raw bytes of one ``resources/read`` content object (``text`` as UTF-8, ``blob`` decoded);
    None when it holds neither (or a blob that is not base64)."""
    import base64
    import binascii

    if not isinstance(content, dict):
        return None
    text = content.get("text")
    if isinstance(text, str):
        return text.encode("utf-8", "surrogatepass")
    if isinstance(content.get("blob"), str):
        try:
            return base64.b64decode(content["blob"], validate=True)
        except (binascii.Error, ValueError):
            return None
    return None


def file_mismatch(locked: dict[str, Any], contents: Any) -> str | None:
    """Why the ``contents`` a read returned are not the locked file ``{uri, digest, size}`` (None:
    they are: one content object whose bytes have that size and SHA-256 digest)."""
    import hashlib

    if not isinstance(contents, list) or len(contents) != 1:
        return "the server did not answer with exactly one content object"
    if isinstance(contents[0], dict) and "text" in contents[0] and "blob" in contents[0]:
        return "the content object carries both `text` and `blob` (the schema allows exactly one)"
    data = content_bytes(contents[0])
    if data is None:
        return "the answer holds neither text nor a base64 blob"
    if len(data) != locked.get("size"):
        return f"{len(data)} bytes where the lock says {locked.get('size')}"
    if "sha256:" + hashlib.sha256(data).hexdigest() != locked.get("digest"):
        return "its SHA-256 digest is not the locked one"
    return None


def only_verified(content: dict[str, Any]) -> dict[str, Any]:
    """What the guard relays of a content object :func:`file_mismatch` verified: its ``uri``,
    ``mimeType`` and the one field whose bytes were checked (``text`` or ``blob``), nothing else
    a host might read."""
    return {k: content[k] for k in ("uri", "mimeType", "text", "blob") if k in content}
