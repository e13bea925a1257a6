"""Each command's one-line summary, as `mcplock --help` lists it (issue 42.12).

Click cuts a summary taken from a command's help at the width left beside the longest name (56
characters at 80 columns), mid-sentence, with "...". These are written to fit whole; the first
paragraph of each command's own `--help` says the rest. tests/test_help_readable.py holds every
listing (`mcplock --help`, `mcplock auth --help`, `mcplock merge-driver --help`) to whole lines
at 80 columns.
"""

from __future__ import annotations

from typing import Any

SUMMARY = {
    "list": "Servers, tools, flags and pending counts (offline).",
    "show": "A server's or item's definition and its pending change.",
    "check": "Offline gate: hashes match, nothing pending, in sync.",
    "audit": "Ask OSV about each release pinned: malware, advisories.",
    "enable": "Enable tools (a host sees only enabled tools).",
    "disable": "Disable tools (kept in the lock, hidden from hosts).",
    "approval": "Whether a host asks before each call: always or never.",
    "accept": "Accept pending proposals (a walk, one key per item).",
    "reject": "Refuse pending proposals: seen; the tool stays off.",
    "remove": "Drop servers from the lock.",
    "add": "Lock servers: a registry name, a command, a URL, a file.",
    "refresh": "Probe again; stage what changed as pending review.",
    "outdated": "Pinned packages behind their registry, each screened.",
    "update": "Move pins to the newest release; stage what changed.",
    "update-pr": "A pull request per server whose pin is behind.",
    "diff": "Compare live servers with the lock (never writes).",
    "inspect": "What a server or a registry entry offers (no lock).",
    "init": "Lock every server this project's host configs name.",
    "trust": "Trust the lock's servers to run on this machine.",
    "run": "Serve a locked server to a host over stdio, enforced.",
    "call": "Call one locked tool under the lock.",
    "export": "Write the lock's flags into each host's own settings.",
    "resolve": "Take one side of entries a merge left in conflict.",
    "search": "Search the MCP Registry.",
    "verify-lock": "Check an mcp-lock/1 document against its spec.",
    "sign": "Sign the lock and its policy with an ed25519 key.",
    "verify-signature": "Verify mcp.lock.sig against the lock and policy.",
    "fingerprint": "A key's fingerprint, as the policy lists keys.",
    "inventory": "What this project (or machine) runs, and its state.",
    "fleet": "Join many projects' locks into one report of counts.",
    "surface": "Write your server's whole surface to mcp-surface.json.",
    "auth": "OAuth for remote servers: log in, log out, status.",
    "merge-driver": "Let git merge mcp.lock as data (docs/merging.md).",
    "auth login": "Log in to a remote server; keep its tokens.",
    "auth logout": "Forget a server's stored tokens (not the lock).",
    "auth status": "Each remote server's auth, and whether logged in.",
    "merge-driver install": "Set up the driver: .gitattributes and git config.",
    "merge-driver run": "What git runs on a merge of mcp.lock.",
}


def apply(command: Any, path: str = "") -> None:
    """Give each command under the root ``command`` its summary (one it sets itself stays)."""
    for name, sub in getattr(command, "commands", {}).items():
        key = f"{path} {name}".strip()
        if getattr(sub, "short_help", None) is None and key in SUMMARY:
            sub.short_help = SUMMARY[key]
        apply(sub, key)
