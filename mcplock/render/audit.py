"""The reports of `mcplock audit`: text (rich), JSON (versioned), Markdown and SARIF 2.1.0.

Pure. Every string from OSV or the lock is untrusted: on the terminal through
:func:`~mcplock.text.untrusted.safe_text`, in Markdown through ``md_text``/``md_code``, in JSON
and SARIF as data (the advisory client already made OSV's strings printable).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcplock.model.severity import SARIF_LEVEL, SECURITY_SEVERITY, STYLE
from mcplock.render.formats.common import Lines, plain
from mcplock.render.formats.markdown import md_code, md_text
from mcplock.render.formats.sarif import FINGERPRINT_KEY, SARIF_SCHEMA, SARIF_VERSION

if TYPE_CHECKING:  # pragma: no cover
    from rich.text import Text

    from mcplock.core.audit import Audit, Row
    from mcplock.packages.advisories import Advisory

JSON_VERSION = 1
_HOW = {"pinned": "pinned", "launched": "launched without a pin"}


def _severity_word(a: Advisory) -> str:
    if a.malware:
        return "MALWARE"
    word = a.severity or "unrated"
    return f"{word} {a.score:.1f}" if a.score is not None else word


def _release(row: Row) -> str:
    return f"{row.registry} {row.release.label}" if row.release is not None else ""


# --- text -----------------------------------------------------------------------------------------


def audit_text(audit: Audit) -> list[Text]:
    """Lines for the terminal: per release its advisories (malware first), then the releases OSV
    did not answer for, those not asked, and the verdict."""
    from rich.text import Text

    from mcplock.text.untrusted import safe_text

    lines: list[Text] = []
    order = {"malware": 0, "vulnerable": 1, "unknown": 2, "clean": 3, "not-asked": 4}
    for row in sorted(audit.rows, key=lambda r: (order[r.state], _worst_rank(r))):
        head = Text()
        head.append_text(safe_text(row.server, "bold", keep_newlines=False)).append("  ")
        head.append_text(safe_text(_release(row), keep_newlines=False))
        if row.state == "not-asked":
            head.append("  not asked: ", style="dim").append_text(safe_text(row.note or "", "dim", keep_newlines=False))
            lines.append(head)
            continue
        assert row.answer is not None
        if row.state == "unknown":
            head.append("  UNKNOWN: OSV did not answer: ", style="bold yellow")
            head.append_text(safe_text(row.answer.reason or "", "yellow", keep_newlines=False))
            lines.append(head)
            continue
        if row.state == "clean":
            lines.append(head.append("  no advisory", style="green"))
            continue
        head.append(f"  ({_HOW.get(row.how, row.how)})", style="dim")
        lines.append(head)
        for a in row.answer.advisories or ():
            style = STYLE["critical"] if a.malware else STYLE.get(a.severity or "", "bold")
            line = Text("    ").append(f"{_severity_word(a):<14}", style=style).append(" ")
            line.append_text(safe_text(a.id, "bold", keep_newlines=False))
            if a.aliases:
                line.append(" (").append_text(safe_text(", ".join(a.aliases), keep_newlines=False)).append(")")
            line.append("  ").append_text(safe_text(a.summary, keep_newlines=False))
            if a.fixed:
                line.append("  fixed in ", style="green").append_text(safe_text(", ".join(a.fixed), "green"))
            elif not a.malware:
                line.append("  no fixed version listed", style="dim")
            lines.append(line)
    lines.append(verdict(audit))
    return lines


def _worst_rank(row: Row) -> int:
    from mcplock.model.severity import rank

    listed = row.answer.advisories if row.answer is not None else None
    return min((rank(a.severity) for a in listed or ()), default=9)


def verdict(audit: Audit) -> Text:
    from rich.text import Text

    c = audit.counts()
    vulns = sum(v for k, v in c.items() if k.startswith("vulnerabilities-"))
    asked = len(audit.asked)
    parts = [f"{c['malware']} malware", f"{vulns} vulnerabilities in {c['vulnerable']} releases"]
    if c["unknown"]:
        parts.append(f"{c['unknown']} unknown (OSV did not answer)")
    if c["not-asked"]:
        parts.append(f"{c['not-asked']} servers not asked")
    style = "bold red" if audit.exit_code == 1 else "bold yellow" if audit.exit_code == 3 else "bold green"
    text = f"{'; '.join(parts)} — {asked} releases asked OSV ({audit.osv}), --fail-on {audit.fail_on}"
    return Text(plain(text), style=style)


# --- json -----------------------------------------------------------------------------------------


def audit_json(audit: Audit) -> dict[str, Any]:
    releases = []
    for row in audit.rows:
        item: dict[str, Any] = {"server": row.server, "how": row.how, "state": row.state, "registry": row.registry}
        if row.release is not None:
            item.update(ecosystem=row.release.ecosystem, name=row.release.name, version=row.release.version)
        if row.note is not None:
            item["reason"] = row.note
        if row.answer is not None:
            if row.answer.unknown:
                item["reason"] = row.answer.reason
            else:
                advisories = []
                for a in row.answer.advisories or ():
                    advisories.append({**a.stored(), "fails": audit.failing(a)})
                item["advisories"] = advisories
        releases.append(item)
    return {
        "version": JSON_VERSION,
        "command": "audit",
        "lockfile": audit.lockfile,
        "exit_code": audit.exit_code,
        "fail_on": audit.fail_on,
        "osv": audit.osv,
        "releases": releases,
        "summary": audit.counts(),
    }


# --- markdown -------------------------------------------------------------------------------------


def audit_markdown(audit: Audit) -> str:
    c = audit.counts()
    icon = {1: "❌", 3: "⚠️", 0: "✅"}.get(audit.exit_code, "")
    out = [
        f"## {icon} mcplock audit: {md_code(audit.lockfile)}",
        "",
        f"{c['malware']} malware · {c['vulnerable']} vulnerable · {c['unknown']} unknown · "
        f"{c['clean']} without advisory · {c['not-asked']} not asked (OSV: {md_code(audit.osv)}, "
        f"`--fail-on {md_text(audit.fail_on)}`, exit {audit.exit_code})",
        "",
    ]
    from mcplock.model.severity import rank

    found = [(r, a) for r in audit.asked for a in (r.answer.advisories or () if r.answer else ())]
    found.sort(key=lambda f: (not f[1].malware, rank(f[1].severity) if f[1].severity else 5, f[0].server))
    if found:
        out += ["| Server | Release | Advisory | Severity | Fixed in | Summary |", "|---|---|---|---|---|---|"]
        for r, a in found:
            sev = "**MALWARE**" if a.malware else md_text(_severity_word(a))
            ids = md_text(a.id) + (f" ({md_text(', '.join(a.aliases))})" if a.aliases else "")
            fixed = ", ".join(md_code(f, table=True) for f in a.fixed) or "—"
            out.append(
                f"| {md_code(r.server, table=True)} | {md_code(_release(r), table=True)} | {ids} | {sev} | "
                f"{fixed} | {md_text(a.summary)} |"
            )
        out.append("")
    unknown = [r for r in audit.rows if r.state == "unknown"]
    if unknown:
        out += ["**Unknown** — OSV did not answer for these releases; they were not checked:", ""]
        for r in unknown:
            reason = md_text(r.answer.reason if r.answer else "")
            out.append(f"- {md_code(r.server)} {md_code(_release(r))}: {reason}")
        out.append("")
    skipped = [r for r in audit.rows if r.state == "not-asked"]
    if skipped:
        out += ["<details><summary>Not asked</summary>", ""]
        out += [f"- {md_code(r.server)}: {md_text(r.note or '')}" for r in skipped]
        out += ["", "</details>", ""]
    return "\n".join(out)


# --- sarif ----------------------------------------------------------------------------------------

_UNKNOWN_RULE = "audit/unknown"


def audit_sarif(audit: Audit, *, lock_text: str | None, uri: str, tool_version: str | None = None) -> dict[str, Any]:
    """One rule per advisory id (as scanners of dependencies do), one result per (server,
    advisory) at the server's package table in the lock; ``audit/unknown`` for a release OSV did
    not answer for (a warning)."""
    from urllib.parse import quote

    from mcplock._version import __version__

    uri = ("file://" if uri.startswith("/") else "") + quote(uri)
    lines = Lines(lock_text)
    rules: dict[str, dict[str, Any]] = {}
    results: list[dict[str, Any]] = []

    def result(rid: str, level: str, text: str, row: Row, props: dict[str, Any] | None = None) -> None:
        r: dict[str, Any] = {
            "ruleId": rid,
            "level": level,
            "message": {"text": text},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"},
                        "region": {"startLine": lines.of(("server", row.server, "package"))},
                    }
                }
            ],
            "partialFingerprints": {FINGERPRINT_KEY: f"audit/{row.server}/{rid}"},
        }
        if props:
            r["properties"] = props
        results.append(r)

    for row in audit.asked:
        assert row.answer is not None
        release = plain(_release(row))
        if row.answer.unknown:
            _rule(rules, _UNKNOWN_RULE, "OSV did not answer for a release", "warning", None, None)
            text = f"`{plain(row.server)}` runs {release}: OSV did not answer ({plain(row.answer.reason or '')})"
            result(_UNKNOWN_RULE, "warning", text + "; it was not checked.", row)
            continue
        for a in row.answer.advisories or ():
            sev = "critical" if a.malware else a.severity
            level = "error" if a.malware or audit.failing(a) else SARIF_LEVEL.get(sev or "", "warning")
            score = 10.0 if a.malware else a.score
            _rule(rules, a.id, plain(a.summary) or a.id, level, sev, score, a)
            what = "is reported as MALWARE" if a.malware else f"has a {sev or 'unrated'} vulnerability"
            fix = f"; fixed in {', '.join(a.fixed)}" if a.fixed else ""
            text = f"`{plain(row.server)}` runs {release}, which {what}: {a.id} {plain(a.summary)}{fix}"
            result(a.id, level, text, row, {"package": release, "server": plain(row.server)})
    ids = sorted(rules)
    index = {rid: i for i, rid in enumerate(ids)}
    for r in results:
        r["ruleIndex"] = index[r["ruleId"]]
    version = tool_version or __version__
    driver = {"name": "mcplock", "version": version, "semanticVersion": version, "rules": [rules[i] for i in ids]}
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {"driver": driver},
                "automationDetails": {"id": "mcplock/audit/"},
                "invocations": [{"executionSuccessful": True, "exitCode": audit.exit_code}],
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }


def _rule(
    rules: dict[str, dict[str, Any]],
    rid: str,
    short: str,
    level: str,
    severity: str | None,
    score: float | None,
    a: Advisory | None = None,
) -> None:
    if rid in rules:
        return
    full = short if a is None else f"{short} ({', '.join((a.id, *a.aliases))}). {a.url}"
    rule: dict[str, Any] = {
        "id": rid,
        "name": "".join(p.capitalize() for p in rid.replace("/", "-").split("-") if p.isalnum()) or "Advisory",
        "shortDescription": {"text": short},
        "fullDescription": {"text": full},
        "help": {"text": full},
        "defaultConfiguration": {"level": level},
        "properties": {"tags": ["security", "mcp", "malware" if a is not None and a.malware else "vulnerability"]},
    }
    if a is not None:
        rule["helpUri"] = a.url
    if score is not None and score > 0:
        rule["properties"]["security-severity"] = f"{score:.1f}"
    elif severity in SECURITY_SEVERITY:
        rule["properties"]["security-severity"] = SECURITY_SEVERITY[severity]
    rules[rid] = rule


# --- github ---------------------------------------------------------------------------------------


def audit_github(audit: Audit, *, lock_text: str | None, path: str) -> str:
    """Workflow-command annotations on the lock's package tables (one per SARIF result), then
    the verdict as a plain line."""
    from mcplock.model.severity import GITHUB_LEVEL
    from mcplock.render.formats.github import gh_data, gh_property

    doc = audit_sarif(audit, lock_text=lock_text, uri=path)
    out = []
    for r in doc["runs"][0]["results"]:
        line = r["locations"][0]["physicalLocation"]["region"]["startLine"]
        title = f"mcplock audit/{r['ruleId']}"
        out.append(
            f"::{GITHUB_LEVEL.get(r['level'], 'warning')} file={gh_property(path)},line={line},"
            f"title={gh_property(title)}::{gh_data(r['message']['text'])}"
        )
    out.append(gh_data(verdict(audit).plain))
    return "\n".join(out) + "\n"
