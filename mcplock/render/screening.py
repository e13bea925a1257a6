"""What screening found (:mod:`mcplock.core.screening`), for the terminal and for a pull request's
body. Every string from a registry or OSV is escaped: inert Markdown, a script's text in a fence
longer than any backtick run inside."""

from __future__ import annotations

from typing import Any

from mcplock.render.formats.markdown import longest_backticks, md_code, md_text


def text_lines(server: str, sc: dict[str, Any] | None) -> list[tuple[str, str]]:
    """(line, style) for one server's screening in `outdated` / `update` (the CLI escapes them)."""
    if not sc:
        return []
    out: list[tuple[str, str]] = []
    if sc.get("refused"):
        out.append((f"  refused: {sc['refused']}", "red"))
    if sc.get("held_until"):
        out.append(
            (
                f"  held: published {sc.get('published')}, younger than the minimum age; "
                f"proposed from {sc['held_until']}",
                "yellow",
            )
        )
    for f in sc.get("findings") or []:
        out.append(
            (f"  {f['severity']} {f['rule']}: {f['message']}" + (f": {f['text']}" if f.get("text") else ""), "red")
        )
    if sc.get("vulnerabilities"):
        out.append((f"  known vulnerabilities of the new release: {', '.join(sc['vulnerabilities'])}", "yellow"))
    if sc.get("fixes"):
        out.append((f"  fixes: {', '.join(sc['fixes'])}", "green"))
    if sc.get("not_screened"):
        out.append((f"  {sc['not_screened']}", "yellow"))
    return out


def _fence(text: str) -> list[str]:
    fence = "`" * max(3, longest_backticks(text) + 1)
    return [fence + "sh", text, fence]


def markdown(screens: dict[str, dict[str, Any]], min_age: float) -> list[str]:
    """The body's "Screened" section: what was checked for every proposed release, and what it found."""
    if not screens:
        return []
    days = f"{min_age:g} day{'s' if min_age != 1 else ''}"
    out = ["", "### Screened", ""]
    for server, sc in sorted(screens.items()):
        checks = [f"published {md_text(str(sc.get('published') or 'at an unknown time'))} (minimum age {days})"]
        checks.append("OSV: no malware reported" if sc.get("malware_checked") else "OSV: not checked")
        checks.append(
            "no install-time script added or changed" if not sc.get("findings") else "install-time code: see below"
        )
        out.append(f"- {md_code(server)}: " + "; ".join(checks))
        for f in sc.get("findings") or []:
            out.append(f"  - **{f['severity']}** {md_text(f['rule'])}: {md_text(f['message'])}")
            if f.get("text"):
                out += ["", *("    " + line for line in _fence(f["text"])), ""]
        if sc.get("vulnerabilities"):
            out.append("  - known vulnerabilities of the new release: " + md_text(", ".join(sc["vulnerabilities"])))
        if sc.get("fixes"):
            out.append("  - a reason to update: it fixes " + md_text(", ".join(sc["fixes"])))
        if sc.get("not_screened"):
            out.append("  - :warning: " + md_text(sc["not_screened"]))
    return out
