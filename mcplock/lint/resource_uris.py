"""``internal-uri`` (high): a resource or resource template whose URI reaches a cloud metadata
service, this machine's loopback, or walks out of its directory with ``..`` (:mod:`mcplock.model.uris`).
A server that lists such a URI for the model to read is asking it to fetch credentials or local
services: not news, a risk signal."""

from __future__ import annotations

from typing import Any

from mcplock.lint.finding import LintFinding
from mcplock.model.severity import HIGH

_FIELD = {"resource": "uri", "resource-template": "uriTemplate"}


def resource_uri_findings(kind: str, definition: Any) -> list[LintFinding]:
    from mcplock.model.uris import internal_target
    from mcplock.text.untrusted import name_text

    field = _FIELD.get(kind)
    if field is None or not isinstance(definition, dict):
        return []
    uri = definition.get(field)
    what = internal_target(uri) if isinstance(uri, str) else None
    if what is None:
        return []
    return [LintFinding("internal-uri", HIGH, f"the {kind.replace('-', ' ')} `{name_text(uri)}` reaches {what}", field)]
