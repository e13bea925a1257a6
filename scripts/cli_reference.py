"""Write docs/cli.md, the command reference, from the CLI itself: every command's `--help`, as
`mcplock COMMAND --help` prints it (80 columns), under a table of contents.

    .venv/bin/python scripts/cli_reference.py          # rewrite docs/cli.md
    .venv/bin/python scripts/cli_reference.py --check  # exit 1 when docs/cli.md differs

tests/test_cli_reference.py fails when the committed file differs from what the app generates,
so the reference cannot drift from the commands, options and exit codes it documents.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "cli.md"
WIDTH = 80

HEADER = """\
# Command reference

Every command's `--help`, generated from the CLI itself by `scripts/cli_reference.py` (do not
edit by hand: `tests/test_cli_reference.py` fails when this file differs from what the commands
say). The exit codes are in [`mcplock`](#mcplock) below; what each means, with examples:
[usage.md](usage.md#exit-codes).
"""


def _commands(cmd: Any, ctx: Any, path: list[str]) -> list[tuple[list[str], Any, Any]]:
    """Each command under ``cmd`` (depth first, in the order ``--help`` lists them), with its context."""
    out = [(path, cmd, ctx)]
    if hasattr(cmd, "list_commands"):
        for name in cmd.list_commands(ctx):
            sub = cmd.get_command(ctx, name)
            if sub is None or getattr(sub, "hidden", False):
                continue
            subctx = sub.context_class(sub, info_name=name, parent=ctx, terminal_width=WIDTH, max_content_width=WIDTH)
            out += _commands(sub, subctx, [*path, name])
    return out


def _anchor(path: list[str]) -> str:
    return "-".join(path).replace(" ", "-")


def generate() -> str:
    from mcplock.cli import app as cli_app

    cli_app._register()  # every command module, in the order `mcplock --help` lists them
    root = cli_app.root_command()
    ctx = root.context_class(root, info_name="mcplock", terminal_width=WIDTH, max_content_width=WIDTH)
    found = _commands(root, ctx, ["mcplock"])
    toc = [f"- [`{' '.join(p)}`](#{_anchor(p)}) — {c.get_short_help_str(limit=200)}" for p, c, _ in found[1:]]
    parts = [HEADER, "## Contents\n", "- [`mcplock`](#mcplock) — global options and exit codes", *toc, ""]
    for path, cmd, cctx in found:
        parts += [f"## {' '.join(path)}\n", "```text", cmd.get_help(cctx).rstrip(), "```", ""]
    return "\n".join(parts)


def main(argv: list[str]) -> int:
    text = generate()
    if "--check" in argv:
        if OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT.relative_to(ROOT)} is out of date: run .venv/bin/python scripts/cli_reference.py")
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main(sys.argv[1:]))
