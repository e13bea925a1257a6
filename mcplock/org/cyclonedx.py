"""``mcplock inventory --format cyclonedx``: an inventory as a CycloneDX 1.6 BOM, built with
``cyclonedx-python-lib`` (its model and its JSON serializer, never by hand).

- Each server is a **service** (``group`` ``mcp``; a remote one with its endpoint), as cdxgen
  inventories MCP servers; each pinned package a **component** (``library``, its purl and the
  pin's hashes) the service depends on; each reviewed item a **component** (``application``,
  cdxgen's ``urn:mcp:ROLE:SERVER:NAME`` reference) the service depends on.
- The review — surface digests, definition hashes, states, flags, the highest accepted finding,
  the signing key — rides in properties: cdxgen's ``cdx:mcp:*`` names where one means the same
  thing, mcplock's own under ``mcplock:`` (every one is in docs/organisation.md), so that
  :mod:`.cyclonedx_read` reads the whole inventory back.
"""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

if TYPE_CHECKING:
    from cyclonedx.model import HashType, Property
    from cyclonedx.model.bom import Bom
    from cyclonedx.model.component import Component
    from cyclonedx.model.service import Service

CDX_TRANSPORT = {"stdio": "stdio", "http": "streamable-http", "sse": "sse"}
CDX_ROLES = ("tool", "prompt", "resource", "resource-template")  # cdxgen's cdx:mcp:role values
CDX_PINNING = {"pinned": "pinned", "unpinned": "unpinned", "floating": "unpinned"}  # else "unhashable"


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _props(pairs: Iterable[tuple[str, Any]]) -> list[Property]:
    from cyclonedx.model import Property

    return [Property(name=n, value=t) for n, v in pairs if (t := _text(v)) is not None]


def hashes(integrity: list[str]) -> list[HashType]:
    """A pin's integrity values as CycloneDX hashes (npm's SRI sha512, ``sha256:<hex>``)."""
    from cyclonedx.model import HashAlgorithm, HashType

    out = []
    for value in integrity:
        if value.startswith("sha512-"):
            try:
                raw = base64.b64decode(value[len("sha512-") :], validate=True)
            except ValueError:
                continue
            if len(raw) == 64:
                out.append(HashType(alg=HashAlgorithm.SHA_512, content=raw.hex()))
        elif value.startswith("sha256:") and len(value) == 71:
            out.append(HashType(alg=HashAlgorithm.SHA_256, content=value[len("sha256:") :].lower()))
    return out


class _Refs:
    """bom-refs, unique within the BOM (two configs of one machine may name the same server)."""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def new(self, ref: str) -> str:
        out, n = ref, 1
        while out in self.seen:
            n += 1
            out = f"{ref}#{n}"
        self.seen.add(out)
        return out


def _package(pkg: dict[str, Any]) -> Component:
    from cyclonedx.model.component import Component, ComponentType
    from packageurl import PackageURL

    group, name = None, pkg["name"]
    if pkg["registry"] == "npm" and "/" in name:
        group, _, name = name.rpartition("/")
    ref = pkg["purl"] or f"urn:mcplock:package:{pkg['registry']}:{quote(pkg['name'], safe='')}@{quote(pkg['version'])}"
    return Component(
        type=ComponentType.LIBRARY,
        bom_ref=ref,
        group=group,
        name=name,
        version=pkg["version"],
        purl=PackageURL.from_string(pkg["purl"]) if pkg["purl"] else None,
        hashes=hashes(pkg["integrity"]),
        properties=_props(
            [
                ("cdx:mcp:package", True),
                ("mcplock:registry", pkg["registry"]),
                ("mcplock:package-name", pkg["name"]),
                *(("mcplock:integrity", i) for i in pkg["integrity"]),
            ]
        ),
    )


def _item(rec: dict[str, Any], server: str, service_ref: str, refs: _Refs) -> Component:
    from cyclonedx.model.component import Component, ComponentType

    kind = rec["kind"]
    role = kind if kind in CDX_ROLES else None
    return Component(
        type=ComponentType.APPLICATION,
        bom_ref=refs.new(f"urn:mcp:{kind}:{quote(server, safe='')}:{quote(rec['name'], safe='')}"),
        name=rec["name"] or kind,
        properties=_props(
            [
                ("cdx:mcp:role", role),
                ("cdx:mcp:serviceRef", service_ref),
                ("mcplock:kind", kind),
                ("mcplock:name", rec["name"]),
                ("mcplock:state", rec["state"]),
                ("mcplock:definition-hash", rec["hash"]),
                ("mcplock:enabled", rec.get("enabled")),
                ("mcplock:approval", rec.get("approval")),
                ("mcplock:change", rec.get("change")),
                ("mcplock:pending-hash", rec.get("pending_hash")),
                ("mcplock:rejected-hash", rec.get("rejected_hash")),
                ("mcplock:highest-accepted-finding", rec["highest_finding"]),
            ]
        ),
    )


def _service_props(srv: dict[str, Any], package_ref: str | None, signing_key: str | None) -> list[Property]:
    surface, review = srv["surface"] or {}, srv["review"]
    config, launch = srv["config"] or {}, srv["launch"] or {}
    info, entry = srv["server_info"] or {}, srv["registry_entry"] or {}
    return _props(
        [
            ("cdx:mcp:serviceType", "configured-server"),
            ("cdx:mcp:transport", CDX_TRANSPORT.get(srv["transport"], srv["transport"])),
            ("cdx:mcp:inventorySource", "mcp-lock" if srv["origin"] == "lock" else "config-file"),
            ("cdx:mcp:configFormat", config.get("host")),
            ("cdx:mcp:command", srv["command"]),
            ("cdx:mcp:packageRefs", package_ref),
            ("cdx:mcp:toolCount", surface.get("tools")),
            ("cdx:mcp:promptCount", surface.get("prompts")),
            ("cdx:mcp:resourceCount", surface.get("resources")),
            ("cdx:mcp:reviewNeeded", review["state"] != "accepted"),
            ("cdx:mcp:pinning", CDX_PINNING.get(srv["pinning"], "unhashable")),
            ("mcplock:name", srv["name"]),
            ("mcplock:origin", srv["origin"]),
            ("mcplock:transport", srv["transport"]),
            ("mcplock:config:file", config.get("file")),
            ("mcplock:pinning", srv["pinning"]),
            ("mcplock:launch:registry", launch.get("registry")),
            ("mcplock:launch:name", launch.get("name")),
            ("mcplock:launch:requested", launch.get("requested")),
            ("mcplock:server-info:name", info.get("name")),
            ("mcplock:server-info:version", info.get("version")),
            ("mcplock:registry-entry:name", entry.get("name")),
            ("mcplock:registry-entry:version", entry.get("version")),
            ("mcplock:surface:mcp-lock-v1", surface.get("mcp-lock-v1")),
            ("mcplock:instructions-hash", srv["instructions_hash"]),
            ("mcplock:config-hash", srv["config_hash"]),
            ("mcplock:review:state", review["state"]),
            *((f"mcplock:review:{k}", review[k]) for k in ("accepted", "pending", "disabled", "rejected")),
            ("mcplock:review:highest-accepted-finding", review["highest_accepted_finding"]),
            ("mcplock:signing-key", signing_key),
        ]
    )


def _service(srv: dict[str, Any], refs: _Refs, package_ref: str | None, signing_key: str | None) -> Service:
    from cyclonedx.model import XsUri
    from cyclonedx.model.service import Service

    return Service(
        bom_ref=refs.new(f"urn:service:mcp:{quote(srv['name'], safe='')}"),
        group="mcp",
        name=srv["name"] or "(unnamed)",
        endpoints=[XsUri(srv["endpoint"])] if srv["endpoint"] else None,
        properties=_service_props(srv, package_ref, signing_key),
    )


def _metadata_props(inv: dict[str, Any]) -> list[Property]:
    lock, policy = inv["lock"] or {}, inv["policy"] or {}
    return _props(
        [
            ("mcplock:inventory:format", inv["format"]),
            ("mcplock:inventory:version", inv["version"]),
            ("mcplock:scope", inv["scope"]),
            ("mcplock:lock:file", lock.get("file")),
            ("mcplock:lock:sha256", lock.get("sha256")),
            ("mcplock:lock:signature", lock.get("signature")),
            ("mcplock:lock:signing-key", lock.get("signing_key")),
            ("mcplock:lock:signed-at", lock.get("signed_at")),
            ("mcplock:policy:digest", policy.get("digest")),
            ("mcplock:policy:signing-required", policy.get("signing_required")),
            *(("mcplock:policy:signing-key", k) for k in policy.get("signing_keys", [])),
            *(("mcplock:violation", json.dumps(v, sort_keys=True)) for v in inv["violations"]),
            *(("mcplock:note", n) for n in inv["notes"]),
        ]
    )


def bom(inv: dict[str, Any]) -> Bom:
    """The BOM of an inventory (:func:`mcplock.org.inventory.project` or ``user``)."""
    from cyclonedx.model.bom import Bom, BomMetaData
    from cyclonedx.model.component import Component, ComponentType

    from mcplock._version import __version__

    lock = inv["lock"] or {}
    seed = f"mcplock-inventory:{inv['project']}:{inv['generated_at']}:{lock.get('sha256')}"
    root = Component(type=ComponentType.APPLICATION, name=inv["project"] or "project", bom_ref="project")
    meta = BomMetaData(
        component=root,
        timestamp=datetime.fromisoformat(inv["generated_at"].replace("Z", "+00:00")),
        properties=_metadata_props(inv),
    )
    meta.tools.components.add(Component(type=ComponentType.APPLICATION, name="mcplock", version=__version__))
    out = Bom(serial_number=uuid.uuid5(uuid.NAMESPACE_URL, seed), metadata=meta)
    refs = _Refs()
    refs.seen.add("project")
    packages: dict[str, Component] = {}
    services: list[Service] = []
    for srv in inv["servers"]:
        depends: list[Component] = []
        pkg_ref = None
        if srv["package"]:
            comp = _package(srv["package"])
            pkg_ref = str(comp.bom_ref)
            if pkg_ref not in packages:
                packages[pkg_ref] = comp
                out.components.add(comp)
            depends.append(packages[pkg_ref])
        service = _service(srv, refs, pkg_ref, lock.get("signing_key"))
        out.services.add(service)
        services.append(service)
        for rec in srv["items"]:
            comp = _item(rec, srv["name"], str(service.bom_ref), refs)
            out.components.add(comp)
            depends.append(comp)
        out.register_dependency(service, depends)
    out.register_dependency(root, services)
    return out


def dumps(inv: dict[str, Any]) -> str:
    """The inventory as CycloneDX 1.6 JSON."""
    from cyclonedx.output.json import JsonV1Dot6

    return str(JsonV1Dot6(bom(inv)).output_as_string(indent=2)) + "\n"
