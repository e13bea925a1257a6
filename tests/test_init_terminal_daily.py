"""Issue 42.10, in part: at a terminal, a new server's instructions are shown as the lines they
are, indented under `instructions:` — a line break is not shown as a red `\\x0a`, which reads as
an attack — and counts read "1 tool", not "1 tools"."""

from __future__ import annotations

import json
from pathlib import Path

from ptyrun import answer
from runner import stdio_command

ROOT = Path(__file__).resolve().parent.parent


def test_add_at_a_terminal_shows_instructions_as_lines(cli):
    surface = json.loads((ROOT / "fixtures" / "surfaces" / "demo.json").read_text())
    surface["instructions"] = "Use search_docs to find pages.\nOnly call delete_page when asked."
    surface["tools"] = surface["tools"][:1]
    Path("surface.json").write_text(json.dumps(surface))
    code, out = answer(["add", "docs", "--", *stdio_command(surface="surface.json")], ["y"])
    assert code == 0, out
    assert "\\x0a" not in out
    lines = [ln.rstrip() for ln in out.splitlines()]
    i = lines.index("  instructions:")
    assert lines[i + 1 : i + 3] == ["    Use search_docs to find pages.", "    Only call delete_page when asked."]
    assert "offers 1 tool:" in out and "1 tools" not in out
