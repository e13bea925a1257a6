"""`add --from FILE NAME…` reads one host config (:func:`mcplock.core.add_sources.from_config`): the names
asked for, each of them there, in-process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcplock.core.add_sources import from_config
from mcplock.errors import UsageError


def _config(tmp_path: Path) -> str:
    path = tmp_path / ".mcp.json"
    servers = {"a": {"command": "node", "args": ["a.js"]}, "b": {"command": "node", "args": ["b.js"]}}
    path.write_text(json.dumps({"mcpServers": {**servers, "c": {"url": "https://x.example/mcp"}}}))
    return str(path)


def test_the_servers_named_are_imported_and_only_they(tmp_path: Path) -> None:
    found = from_config(_config(tmp_path), ["b"], str(tmp_path))
    assert [spec.name for spec, _ in found.specs] == ["b"]
    assert [spec.name for spec, _ in from_config(_config(tmp_path), [], str(tmp_path)).specs] == ["a", "b"]


def test_a_name_the_config_does_not_hold_is_refused_naming_what_it_has(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as e:
        from_config(_config(tmp_path), ["a", "nope", "gone"], str(tmp_path))
    assert e.value.message.endswith("has no server named nope, gone")
    assert e.value.hint == "it has: a, b"
