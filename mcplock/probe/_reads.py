"""The documents a probe reads with ``resources/read`` after listing (:mod:`mcplock.model.documents`):
each ``ui://`` document a tool points at, each skill's ``SKILL.md`` when the server declares the
skills extension (its ``skills/list`` entries pinned too, files in URI order; a dynamic skill's
``SKILL.md`` is generated and not read), and each listed resource's content
when the server entry pins resources. Read concurrently, at most ``READS_AT_ONCE`` at a time (a
server with hundreds of resources is read within the probe's timeout), and kept in URI order, so
the lock is the same whatever order the answers come in; bounded like the lists."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from mcplock.errors import ProbeError, json_type
from mcplock.lock.spec import ServerSpec
from mcplock.model.documents import (
    SKILLS_EXTENSION,
    canonical_skill,
    declares,
    definition_of,
    is_dynamic,
    kept_file,
    pinned_skill_files,
    ui_uris,
    with_listing,
)
from mcplock.model.snapshot import Snapshot
from mcplock.probe._common import RpcError
from mcplock.text.untrusted import sanitize

if TYPE_CHECKING:
    from mcplock.probe.options import ProbeOptions
    from mcplock.probe.transport import Connection

READS_AT_ONCE = 8  # resources/read requests a probe has in flight at once


async def read_documents(t: Connection, spec: ServerSpec, opts: ProbeOptions, snap: Snapshot) -> None:
    from mcplock.probe._lists import list_all
    from mcplock.probe.era import advertised

    ui = ui_uris(snap.tools)
    snap.ui = await read_all(t, ui)
    if snap.ui and advertised(snap.capabilities, "resources"):
        # the listing's `_meta.ui` is the host's fallback CSP: pinned with the document it describes
        listing = snap.resources if snap.resources is not None else await list_all(t, opts, "resources")
        snap.ui = [with_listing(d, listing) for d in snap.ui]
    others = await _content_uris(t, spec, opts, snap)
    others.difference_update(ui)
    if len(others) > opts.max_items:
        raise ProbeError(
            "too-large",
            f"more than {opts.max_items} documents to read",
            hint=f"mcplock reads at most {opts.max_items} documents of a server; turn "
            "`pin-resources` off for a server with that many resources",
        )
    got = await read_all(t, sorted(others))
    # a skill's large binary file read for pinning is held by its digest alone (a text one is kept)
    listed = {r["uri"] for r in snap.resources or []} if spec.pin_resources else set()
    snap.contents = [d for d in got if d.get("uri") in listed or kept_file(d)]


async def _content_uris(t: Connection, spec: ServerSpec, opts: ProbeOptions, snap: Snapshot) -> set[str]:
    """The documents pinned besides App documents: each skill's ``SKILL.md`` (the skills listed
    into ``snap``) but a dynamic one's, with its small listed files (``pinned_skill_files``), and
    with ``pin-resources`` every resource listed."""
    from mcplock.probe._lists import list_all

    uris: set[str] = set()
    if declares(snap.capabilities, SKILLS_EXTENSION):
        # the set of a skill's files is bound, not their order; a dynamic skill's SKILL.md is
        # generated (its entry, with the frontmatter, is what can be pinned)
        snap.skills = [canonical_skill(s) for s in await list_all(t, opts, "skills")]
        bound = [s for s in snap.skills if not is_dynamic(s)]
        uris.update(s["uri"] for s in bound)
        uris.update(u for s in bound for u in pinned_skill_files(s))  # small files: their text is diffed
    if spec.pin_resources and snap.resources:
        uris.update(r["uri"] for r in snap.resources)
    return uris


async def read_all(t: Connection, uris: Iterable[str]) -> list[dict[str, Any]]:
    """The documents at ``uris``, in that order (those the server answers with an error left
    out), read at most :data:`READS_AT_ONCE` at a time; the first malformed answer fails them all."""
    uris = list(uris)
    if len(uris) <= 1:
        got = [await read(t, u) for u in uris]
        return [d for d in got if d is not None]
    gate = asyncio.Semaphore(READS_AT_ONCE)

    async def one(uri: str) -> dict[str, Any] | None:
        async with gate:
            return await read(t, uri, step=False)

    t.state.step = f"the answers to resources/read of {len(uris)} documents"
    tasks = [asyncio.ensure_future(one(u)) for u in uris]
    try:
        done = await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    return [d for d in done if d is not None]


async def read(t: Connection, uri: str, *, step: bool = True) -> dict[str, Any] | None:
    """``resources/read`` of ``uri`` → its pinned definition; None when the server answers with an
    error: the document is then not offered (`diff` reports a locked one as removed, the guard
    refuses it). A malformed answer fails the probe."""
    from mcplock.probe._lists import _call

    shown = sanitize(uri, 120)
    if step:
        t.state.step = f"the answer to resources/read of {shown}"
    try:
        result = await _call(t, "resources/read", {"uri": uri})
    except RpcError:
        return None
    contents = result.get("contents") if isinstance(result, dict) else None
    if not isinstance(contents, list) or not contents or not all(isinstance(c, dict) for c in contents):
        got = (
            json_type(result)
            if not isinstance(result, dict)
            else ("missing" if "contents" not in result else "not a non-empty array of objects")
        )
        raise ProbeError("protocol", f"resources/read of `{shown}`: `contents` is {got}")
    return definition_of(uri, contents)
