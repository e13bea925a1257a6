"""One server imported from a host config entry (:func:`build`): its transport and fields by its
host's :class:`~mcplock.hosts.formats.interface.Importer`, the host's variables converted to
``${VAR}``, then every secret-looking literal moved out into a template."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcplock.hosts.formats.interface import Importer
from mcplock.hosts.importers import Entry, Skip, check_url
from mcplock.hosts.interpolate import Unsupported, convert
from mcplock.hosts.model import ImportedServer
from mcplock.hosts.secrets import Secrets
from mcplock.lock.spec import ServerSpec, Transport


def build(e: Entry, imp: Importer, source: str, extra_warnings: list[str] | None = None) -> ImportedServer:
    """Turn one raw entry into an ImportedServer by its host's rules (raises Skip, or ConfigError
    for wrong shapes): the transport, its fields with the host's variables converted, then every
    secret-looking literal moved out into a template."""
    warnings: list[str] = []
    transport, url = imp.route(e, warnings)
    try:
        fields = _fields(e, imp, transport, url, lambda v: convert(imp.host, v, warnings), warnings)
    except Unsupported as u:
        raise Skip(str(u)) from None
    for key in ("oauth", "auth"):
        if e.has(key):
            warnings.append(f"{key} settings are not imported: mcplock logs in with its own OAuth flow (`--login`)")
    secrets = Secrets(e.name)
    if transport is Transport.STDIO:
        fields["args"] = tuple(secrets.args(fields["args"]))
        fields["env"] = secrets.env(fields["env"])
    else:
        fields["url"] = secrets.url(fields["url"])
        fields["headers"] = secrets.headers(fields["headers"])
    spec = ServerSpec(name=e.name, transport=transport, source=source, secrets=dict(secrets.values), **fields)
    return ImportedServer(
        spec=spec,
        templated=tuple(secrets.notes),
        warnings=tuple(dict.fromkeys([*warnings, *secrets.warnings, *(extra_warnings or [])])),
    )


def _fields(
    e: Entry, imp: Importer, transport: Transport, url: str | None, conv: Callable[[str], str], warnings: list[str]
) -> dict[str, Any]:
    if transport is Transport.STDIO:
        return imp.stdio(e, conv, warnings)
    if url is None or not url.strip():
        raise Skip(f'type "{transport}" without a url')
    headers = imp.headers(e, warnings)
    url = conv(url)
    check_url(url)
    fields = {"url": url, "headers": {k: conv(v) for k, v in headers.items()}}
    if e.has("headersHelper"):
        warnings.append("headersHelper is not run by mcplock: set the headers it prints with ${VAR} templates")
    return fields
