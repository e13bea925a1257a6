"""``mcplock fleet --html FILE``: the fleet report as one self-contained page.

No script, no request: a Content-Security-Policy in the page forbids both (``default-src 'none'``;
the one stylesheet, inline, is allowed by its own sha256), and nothing in it points outside.
Every name in a report came from someone else's file: each is written with its hidden characters
made visible (``name_text``) and then HTML-escaped, quotes included, so a name is text whatever
it holds (``<script>``, ``"><img onerror=…>``, Markdown, terminal escapes).
"""

from __future__ import annotations

import base64
import hashlib
import html
from typing import Any

from mcplock.org.fleet import COUNT_LINES
from mcplock.text.untrusted import name_text

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:72em;color:#1b1f24}
body{padding:0 1em}
h1{font-size:1.5em;margin:0 0 .2em}h2{font-size:1.1em;margin:1.6em 0 .4em;border-bottom:1px solid #d0d7de}
.meta{color:#57606a}table{border-collapse:collapse;width:100%;margin:.3em 0}
th,td{text-align:left;padding:.25em .6em;border-bottom:1px solid #eaeef2;vertical-align:top}
th{background:#f6f8fa;font-weight:600}td.n{text-align:right;font-variant-numeric:tabular-nums;width:6em}
.zero{color:#8c959f}.critical{background:#a40e26;color:#fff;padding:0 .4em;border-radius:3px}
td.n.critical{background:none;color:#a40e26;font-weight:700}.high{color:#a40e26;font-weight:600}.medium{color:#9a6700}.info{color:#57606a}
code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace;word-break:break-all}
""".strip()

CSP = (
    "default-src 'none'; script-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'; "
    "img-src 'none'; style-src 'sha256-" + base64.b64encode(hashlib.sha256(CSS.encode()).digest()).decode() + "'"
)


def esc(value: Any) -> str:
    """An untrusted value as HTML text: hidden characters shown, then escaped."""
    return html.escape(name_text("" if value is None else value, limit=400), quote=True)


def _table(head: list[str], rows: list[list[str]]) -> str:
    if not rows:
        return '<p class="zero">none</p>'
    out = ["<table><thead><tr>", *(f"<th>{h}</th>" for h in head), "</tr></thead><tbody>"]
    out += ["<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows]
    return "".join(out) + "</tbody></table>"


def _where(r: dict[str, Any]) -> list[str]:
    return [esc(r["project"]), esc(r["server"])]


def _counts(report: dict[str, Any]) -> str:
    c = report["counts"]
    rows = []
    for key, words, severity in COUNT_LINES:
        n = c[key]
        if n is None:
            continue  # not asked (the advisories without --advisories)
        rows.append(f'<tr><td class="n {severity if n else "zero"}">{n}</td><td>{html.escape(words)}</td></tr>')
    return "<table><tbody>" + "".join(rows) + "</tbody></table>"


def _divergent(report: dict[str, Any]) -> str:
    rows = []
    for d in report["divergent_surfaces"]:
        pkg = d["package"]
        name = (
            f'<span class="critical">critical</span> {esc(pkg["registry"] + ":" + pkg["name"])} {esc(pkg["version"])}'
        )
        for s in d["surfaces"]:
            by = ", ".join(f"{esc(w['project'])} / {esc(w['server'])}" for w in s["locked_by"])
            rows.append([name, f"<code>{esc(s['digest'])}</code>", by])
            name = ""
    return _table(["package version", "surface (mcp-lock/1 digest)", "locked by (project / server)"], rows)


def _advisories(report: dict[str, Any]) -> str:
    rows = []
    for r in report["advisories"]:
        if r["state"] not in ("malware", "vulnerable", "unknown"):
            continue
        pkg = r["package"]
        cls = {"malware": "critical", "vulnerable": "high"}.get(r["state"], "medium")
        found = "<br>".join(
            f"{esc(a['id'])} {esc(a.get('severity') or '')} {esc(a.get('summary') or '')}" for a in r["advisories"]
        )
        rows.append(
            [
                f'<span class="{cls}">{esc(r["state"])}</span>',
                f"{esc(pkg['registry'] + ':' + pkg['name'])} {esc(pkg['version'])}",
                found or esc(r.get("reason")),
                ", ".join(f"{esc(w['project'])} / {esc(w['server'])}" for w in r["used_by"]),
            ]
        )
    return _table(["state", "release", "advisories", "used by (project / server)"], rows)


def _sections(report: dict[str, Any]) -> list[tuple[str, str]]:
    sprawl = [
        [esc(r["server"]), str(r["projects"]), ", ".join(f"{esc(v)} ×{n}" for v, n in r["versions"].items())]
        for r in report["sprawl"]
    ]
    first = [("Advisories (OSV)", _advisories(report))] if report["advisories"] is not None else []
    return [
        *first,
        ("Different surfaces for one package version", _divergent(report)),
        (
            "Accepted with a high or critical finding",
            _table(
                ["severity", "project", "server", "item"],
                [
                    [f'<span class="{esc(r["severity"])}">{esc(r["severity"])}</span>', *_where(r), esc(r["item"])]
                    for r in report["accepted_high_or_critical"]
                ],
            ),
        ),
        (
            "Unsigned where signing is required",
            _table(["project", "why"], [[esc(r["project"]), esc(r["reason"])] for r in report["unsigned"]]),
        ),
        (
            "Policy violations",
            _table(
                ["project", "violations", "rules"],
                [
                    [
                        esc(r["project"]),
                        str(r["count"]),
                        esc(", ".join(f"{k} ×{n}" for k, n in sorted(r["rules"].items()))),
                    ]
                    for r in report["violations"]
                ],
            ),
        ),
        (
            "Unpinned or floating launches",
            _table(
                ["project", "server", "launch", "package", "version"],
                [[*_where(r), esc(r["pinning"]), esc(r["package"]), esc(r["version"])] for r in report["unpinned"]],
            ),
        ),
        (
            "Pending review",
            _table(
                ["project", "server", "item", "change"],
                [[*_where(r), esc(r["item"]), esc(r.get("change"))] for r in report["pending"]],
            ),
        ),
        ("Disabled", _table(["project", "server", "tool"], [[*_where(r), esc(r["item"])] for r in report["disabled"]])),
        (
            "Stale inventories",
            _table(
                ["project", "generated", "age (days)"],
                [[esc(r["project"]), esc(r["generated_at"]), esc(r["age_days"])] for r in report["stale"]],
            ),
        ),
        ("Servers by projects and versions", _table(["server", "projects", "versions"], sprawl)),
        (
            "Projects",
            _table(
                ["project", "input", "servers", "signature", "violations"],
                [
                    [
                        esc(p["name"]),
                        esc(p["kind"]),
                        str(p["servers"]),
                        esc(p["signature"] or "no lock"),
                        str(p["violations"]),
                    ]
                    for p in report["projects"]
                ],
            ),
        ),
        (
            "Set aside",
            _table(["file", "why"], [[esc(r["path"]), esc(r["reason"])] for r in report["set_aside"]]),
        ),
    ]


def page(report: dict[str, Any]) -> str:
    """The report as one HTML document."""
    c = report["counts"]
    body = [
        "<h1>mcplock fleet</h1>",
        f'<p class="meta">{c["projects"]} projects, {c["servers"]} servers ({c["distinct_servers"]} distinct); '
        f"{c['set_aside']} files set aside; generated {esc(report['generated_at'])}. Counts, not a score.</p>",
        "<h2>Counts</h2>",
        _counts(report),
    ]
    for title, content in _sections(report):
        body.append(f"<h2>{html.escape(title)}</h2>{content}")
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="referrer" content="no-referrer">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>mcplock fleet</title><style>{CSS}</style></head>\n<body>\n" + "\n".join(body) + "\n</body></html>\n"
    )
