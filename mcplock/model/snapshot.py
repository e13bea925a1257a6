"""What a probe saw of one server: raw JSON exactly as the server sent it.

Pure data, produced by :mod:`mcplock.probe` and consumed by the lock update and
comparison code. Definitions are the wire objects (dicts) with every field,
known or not; nothing here is an SDK model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# kind -> the field that keys its entries
KEY_FIELD: dict[str, str] = {
    "tool": "name",
    "prompt": "name",
    "resource-template": "uriTemplate",
    "resource": "uri",
    "ui": "uri",
    "content": "uri",
    "skill": "uri",
}


@dataclass
class Snapshot:
    server_info: dict[str, Any] | None = None
    protocol_version: str | None = None
    capabilities: dict[str, Any] = field(default_factory=dict)
    client_capabilities: list[str] | None = None  # what the probe declared (the host it stood for)
    instructions: str | None = None
    tools: list[dict[str, Any]] = field(default_factory=list)
    prompts: list[dict[str, Any]] = field(default_factory=list)
    resource_templates: list[dict[str, Any]] = field(default_factory=list)
    resources: list[dict[str, Any]] | None = None  # None: not pinned / not asked for
    # documents read with resources/read (mcplock.probe.documents): an App's `ui://` documents its
    # tools point at, and the content of each pinned resource; one definition per URI
    ui: list[dict[str, Any]] = field(default_factory=list)
    contents: list[dict[str, Any]] = field(default_factory=list)
    skills: list[dict[str, Any]] = field(default_factory=list)  # skills/list entries (the skills extension)
    skipped_lines: list[str] = field(default_factory=list)  # non-JSON-RPC stdout lines (shown with -v)
    stderr_tail: str = ""
    package: Any = None  # the package pin of the artefact that ran (mcplock.packages), when pinned

    def items(self, kind: str) -> list[dict[str, Any]]:
        return {
            "tool": self.tools,
            "prompt": self.prompts,
            "resource-template": self.resource_templates,
            "resource": self.resources or [],
            "ui": self.ui,
            "content": self.contents,
            "skill": self.skills,
        }[kind]
