"""``mcplock fleet`` in the terminal: the counts first (each line one question, answered with a
number — never a score), then what is behind each non-zero count. Every name in a report came
from someone else's file: each reaches the terminal through ``safe_name`` / ``safe_text``."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from mcplock.model.severity import style
from mcplock.org.fleet import COUNT_LINES
from mcplock.text.untrusted import safe_name, safe_text

LIMIT = 20  # rows shown per list in the terminal (--format json and --html have them all)


def _where(row: dict[str, Any]) -> Text:
    t = safe_name(row["project"], "bold")
    t.append(" / ")
    t.append_text(safe_name(row["server"]))
    if row.get("item") is not None:
        t.append(" / ")
        t.append_text(safe_name(row["item"]))
    return t


def summary(report: dict[str, Any]) -> list[Text]:
    c = report["counts"]
    head = Text(f"{c['projects']} projects, {c['servers']} servers ({c['distinct_servers']} distinct)", style="bold")
    if c["set_aside"]:
        head.append(f"; {c['set_aside']} files set aside", style="yellow")
    out = [head]
    for key, words, severity in COUNT_LINES:
        n = c[key]
        if n is None:
            continue  # not asked (the advisories without --advisories)
        out.append(Text(f"  {n:>6}  ", style=style(severity) if n else "dim").append(words, style="" if n else "dim"))
    return out


def _section(title: str, rows: list[Any], line: Any) -> list[Text]:
    if not rows:
        return []
    out = [Text(""), Text(f"{title} ({len(rows)})", style="bold")]
    out += [Text("  ").append_text(line(r)) for r in rows[:LIMIT]]
    if len(rows) > LIMIT:
        out.append(Text(f"  … and {len(rows) - LIMIT} more (--format json or --html for all)", style="dim"))
    return out


def _divergent(d: dict[str, Any]) -> Text:
    pkg = d["package"]
    t = Text("critical ", style=style("critical")).append_text(safe_name(f"{pkg['registry']}:{pkg['name']}"))
    t.append(" ").append_text(safe_name(pkg["version"])).append(" locked with different surfaces:")
    for s in d["surfaces"]:
        t.append("\n      ").append(s["digest"], style="dim").append(" by ")
        for i, w in enumerate(s["locked_by"]):
            t.append(", " if i else "").append_text(_where(w))
    return t


def _sprawl(r: dict[str, Any]) -> Text:
    t = safe_name(r["server"], "bold").append(f"  {r['projects']} projects  ")
    for i, (v, n) in enumerate(r["versions"].items()):
        t.append(", " if i else "").append_text(safe_name(v)).append(f" ×{n}")
    return t


def _advisory(r: dict[str, Any]) -> Text:
    pkg = r["package"]
    sev = {"malware": "critical", "vulnerable": "high", "unknown": "medium"}.get(r["state"], "info")
    t = Text(f"{r['state']} ", style=style(sev)).append_text(safe_name(f"{pkg['registry']}:{pkg['name']}"))
    t.append(" ").append_text(safe_name(pkg["version"]))
    ids = ", ".join(a["id"] + (f" ({a['severity']})" if a.get("severity") else "") for a in r["advisories"])
    if ids:
        t.append("  ").append_text(safe_text(ids, keep_newlines=False))
    if r.get("reason"):
        t.append("  ").append_text(safe_text(r["reason"], "dim", keep_newlines=False))
    users = ", ".join(f"{w['project']} / {w['server']}" for w in r["used_by"])
    return t.append("\n      used by ").append_text(safe_text(users, keep_newlines=False))


def details(report: dict[str, Any]) -> list[Text]:
    out: list[Text] = []
    flagged = [r for r in report["advisories"] or [] if r["state"] in ("malware", "vulnerable", "unknown")]
    out += _section("advisories (OSV)", flagged, _advisory)
    out += _section("divergent surfaces", report["divergent_surfaces"], _divergent)
    out += _section(
        "accepted with a high or critical finding",
        report["accepted_high_or_critical"],
        lambda r: Text(f"{r['severity']} ", style=style(r["severity"])).append_text(_where(r)),
    )
    out += _section(
        "unsigned where signing is required",
        report["unsigned"],
        lambda r: safe_name(r["project"], "bold").append("  ").append_text(safe_text(r["reason"], keep_newlines=False)),
    )
    out += _section(
        "policy violations",
        report["violations"],
        lambda r: safe_name(r["project"], "bold").append(
            f"  {r['count']}  " + ", ".join(f"{k} ×{n}" for k, n in sorted(r["rules"].items()))
        ),
    )
    out += _section(
        "unpinned or floating launches",
        report["unpinned"],
        lambda r: _where(r).append(f"  {r['pinning']}  ").append_text(safe_name(r["package"])),
    )
    out += _section("pending review", report["pending"], lambda r: _where(r).append(f"  {r.get('change') or ''}"))
    out += _section("disabled", report["disabled"], _where)
    out += _section(
        "stale inventories",
        report["stale"],
        lambda r: safe_name(r["project"], "bold").append(
            f"  generated {r['age_days']} days ago" if r["age_days"] is not None else "  no readable generation time"
        ),
    )
    out += _section("sprawl: servers by projects and versions", report["sprawl"], _sprawl)
    out += _section(
        "set aside",
        report["set_aside"],
        lambda r: (
            safe_text(r["path"], "yellow", keep_newlines=False)
            .append("  ")
            .append_text(safe_text(r["reason"], keep_newlines=False))
        ),
    )
    return out
