"""Machine and CI reports of ``diff`` and ``check`` (DESIGN §5, §7): json, markdown, sarif, github.

Pure: every function returns a ``dict`` or a ``str``; nothing prints, nothing touches the
network. The CLI passes the lock's text when a format needs line numbers (sarif, github).

Untrusted text (anything a server sent: names, field keys, messages that quote a
definition, excerpts) never reaches a report raw: control and invisible characters are
made visible with :func:`mcplock.untrusted.visible`, then escaped for the format
(Markdown punctuation, workflow-command ``%``/``:``/``,``; JSON and SARIF are JSON).

Lint findings on a :class:`~mcplock.compare.Change` are handled generically: any object
(or dict) with ``rule``, ``severity``, ``message`` and ``where`` (``excerpt`` optional).

Rule ids (stable; SARIF ``ruleId``, github annotation titles):

* ``drift/<kind>-<change>`` — ``kind`` in tool, prompt, resource-template, resource,
  instructions; ``change`` in added, removed, changed (e.g. ``drift/tool-changed``);
* ``pending/review`` — a proposal staged by ``refresh``/``add`` awaits review (diff and check);
* ``unreachable`` — a server could not be probed;
* ``check/<code>`` — ``check`` problems: hash-mismatch, config-changed, config-missing,
  not-locked, config-error;
* ``lint/<rule>`` — security-lint findings on new or changed text.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from typing import TYPE_CHECKING, Any, Iterable
from urllib.parse import quote

from mcplock.untrusted import visible

if TYPE_CHECKING:  # pragma: no cover
    from mcplock.check import Finding
    from mcplock.compare import Change, ServerDiff
    from mcplock.lock.model import Lock

FORMATS = ("text", "json", "markdown", "sarif", "github")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
FINGERPRINT_KEY = "mcplockItem/v1"

_SEVERITY_RANK = {"critical": 0, "high": 1, "medium": 2, "low": 3, "info": 4}
# SARIF `level` and workflow-command name per severity
_SARIF_LEVEL = {"critical": "error", "high": "error", "medium": "warning", "low": "note", "info": "note"}
_GITHUB_LEVEL = {"error": "error", "warning": "warning", "note": "notice"}
# GitHub code scanning's `security-severity` (a number as a string; >= 9 critical, >= 7 high …)
_SECURITY_SEVERITY = {"critical": "9.5", "high": "8.0", "medium": "5.5", "low": "3.0"}

_KIND_TITLE = {"tool": "tool", "prompt": "prompt", "resource-template": "resource template",
               "resource": "resource", "instructions": "instructions"}
_CHECK_LEVEL = {"hash-mismatch": "error", "config-error": "error", "config-changed": "warning",
                "config-missing": "warning", "not-locked": "warning", "pending": "warning"}
_CHECK_RULES = {
    "hash-mismatch": ("A stored definition does not match its hash",
                      "The lock was edited by hand or tampered with: what hosts would load is not what was reviewed."),
    "config-changed": ("A server changed in its host config since it was locked",
                       "The host config and the lock disagree; re-import and re-probe the server."),
    "config-missing": ("A locked server is gone from its host config",
                       "Remove it from the lock, or put it back in the host config."),
    "not-locked": ("A server of a host config is not in the lock",
                   "Its tools reach the model without review; add it to the lock."),
    "config-error": ("A host config named by the lock cannot be read",
                     "Restore the host config, or remove the servers imported from it."),
}


# --- small helpers ---------------------------------------------------------------------------


def _attr(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _plain(s: object) -> str:
    """Untrusted text on one line, hidden characters made visible."""
    return visible(s if isinstance(s, str) else str(s), keep_newlines=False)


def target(server: str, kind: str, name: str) -> str:
    """The review target of an item, as `mcplock accept` takes it."""
    if kind == "instructions":
        return f"{server}/instructions"
    if kind == "tool":
        return f"{server}/{name}"
    return f"{server}/{kind}:{name}"


def _rank(severity: str) -> int:
    return _SEVERITY_RANK.get(severity, len(_SEVERITY_RANK))


def _sarif_level(severity: str | None) -> str:
    return _SARIF_LEVEL.get(severity or "", "warning")


def drift_rule(kind: str, change: str) -> str:
    return f"drift/{kind}-{change}"


def lint_rule(finding: Any) -> str:
    rule = str(_attr(finding, "rule") or "finding")
    return rule if rule.startswith("lint/") else f"lint/{rule}"


def _fingerprint(*parts: object) -> str:
    h = hashlib.sha256("\x00".join("" if p is None else str(p) for p in parts).encode("utf-8", "surrogatepass"))
    return h.hexdigest()[:32]


def _ident(i: dict[str, Any]) -> str:
    info = i.get("server_info") or {}
    return f"{info.get('name', '?')} {info.get('version', '?')} (protocol {i.get('protocol_version') or '?'})"


def _summary_counts(diffs: list[ServerDiff]) -> dict[str, int]:
    return {"servers": len(diffs), "drift": sum(d.status == "drift" for d in diffs),
            "unreachable": sum(d.status == "unreachable" for d in diffs),
            "changes": sum(len(d.changes) for d in diffs), "pending": sum(len(d.pending) for d in diffs)}


def artifact_path(lockfile: str, cwd: str | None = None) -> str:
    """The lock's path as CI systems want it: relative to the git work tree that holds it
    (GitHub resolves annotations and SARIF locations against the repository root), else to
    ``cwd``; absolute when it lies outside both. Forward slashes."""
    ap = os.path.abspath(lockfile)
    base = os.path.abspath(cwd or os.getcwd())
    d = os.path.dirname(ap)
    while True:
        if os.path.exists(os.path.join(d, ".git")):
            base = d
            break
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    rel = os.path.relpath(ap, base)
    if rel.startswith(".."):
        rel = ap
    return rel.replace(os.sep, "/")


class _Lines:
    """1-based lines of the lock's tables (``header_lines``), with fallbacks to the server's
    table (an added item has no table yet) and then to line 1."""

    def __init__(self, lock_text: str | None) -> None:
        from mcplock.lock.read import header_lines

        self._lines = header_lines(lock_text) if lock_text else {}

    def of(self, table: tuple[str, ...]) -> int:
        while table:
            if table in self._lines:
                return self._lines[table]
            table = table[:-1]
        return 1

    def item(self, server: str, kind: str, name: str) -> int:
        if kind == "instructions":
            return self.of(("server", server))
        return self.of(("server", server, kind, name))


# --- json (the contract of DESIGN §5) ---------------------------------------------------------


def diff_json(diffs: list[ServerDiff], lockfile: str, exit_code: int) -> dict[str, Any]:
    return {
        "version": 1, "command": "diff", "lockfile": lockfile, "exit_code": exit_code,
        "servers": [d.as_json() for d in diffs],
        "summary": _summary_counts(diffs),
    }


def check_json(findings: list[Finding], lock: Lock, lockfile: str, exit_code: int) -> dict[str, Any]:
    return {"version": 1, "command": "check", "lockfile": lockfile, "exit_code": exit_code,
            "findings": [f.as_json() for f in findings],
            "summary": {"servers": len(lock.servers), "findings": len(findings)}}


def dumps(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


# --- markdown ----------------------------------------------------------------------------------

# Backslash-escape the ASCII punctuation that Markdown (GFM) or GitHub gives a meaning inside a
# line: emphasis, code, links and images, HTML and entities (`&#x202e;` would smuggle a bidi
# control back in), table cells, headings, autolinks (`https\://`), strikethrough, math (`$`).
_MD_SPECIAL = set("\\`*_{}[]<>#!|~&:$")
_MENTION = re.compile(r"@(?=[A-Za-z0-9_])")


def md_text(s: object) -> str:
    """Untrusted text as inert Markdown on one line (fit for a table cell)."""
    out: list[str] = []
    for ch in _plain(s):
        out.append("\\" + ch if ch in _MD_SPECIAL else ch)
    # `@user` / `@org/team` pings people in a PR comment; an `@` in a code span does not.
    return _MENTION.sub("`@`", "".join(out))


def md_code(s: object, *, table: bool = False) -> str:
    """Untrusted text as a Markdown code span on one line (in a table cell: pipes escaped,
    which GFM undoes inside the span)."""
    text = _plain(s)
    if table:
        text = text.replace("|", "\\|")
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    if text.startswith(("`", " ")) or text.endswith(("`", " ")) or not text:
        text = f" {text} "
    return f"{fence}{text}{fence}"


def _md_fields(fields: list[str]) -> str:
    return ", ".join(md_text(f) for f in fields)


def _md_findings(findings: Iterable[Any], indent: str) -> list[str]:
    out = []
    for f in sorted(findings, key=lambda f: (_rank(str(_attr(f, "severity") or "")), lint_rule(f))):
        sev = str(_attr(f, "severity") or "info")
        line = f"{indent}- **{md_text(sev)}** {md_code(lint_rule(f))}"
        where = _attr(f, "where")
        if where:
            line += f" in {md_code(where)}"
        line += f": {md_text(_attr(f, 'message', str(f)))}"
        excerpt = _attr(f, "excerpt")
        if excerpt:
            line += f" — {md_code(excerpt)}"
        out.append(line)
    return out


def diff_markdown(diffs: list[ServerDiff], lockfile: str, exit_code: int) -> str:
    n = _summary_counts(diffs)
    verdict = {0: "clean", 1: "changes need review", 3: "servers could not be probed"}.get(exit_code, "failed")
    icon = {0: "✅", 1: "❌", 3: "⚠️"}.get(exit_code, "❌")
    out = [f"## {icon} mcplock diff: {verdict} (exit {exit_code})", ""]
    out.append(f"Lock file {md_code(lockfile)} · {n['servers']} server(s) · {n['drift']} with drift · "
               f"{n['unreachable']} unreachable · {n['pending']} pending review")
    quiet = [d for d in diffs if d.status == "ok" and not d.pending and d.identity is None]
    if quiet:
        out += ["", "In sync: " + ", ".join(md_code(d.name) for d in quiet)]
    for d in diffs:
        if d in quiet:
            continue
        head = f"### {md_code(d.name)}: {d.status}"
        if d.status == "drift":
            head += f" ({len(d.changes)} change{'s' if len(d.changes) != 1 else ''})"
        out += ["", head]
        if d.error is not None:
            out += ["", f"> **{md_text(d.error.kind)}**: {md_text(d.error.message)}"]
            if d.error.hint:
                out += [">", f"> hint: {md_text(d.error.hint)}"]
        if d.changes:
            out += ["", "| severity | change | kind | name | fields |", "|---|---|---|---|---|"]
            for c in d.changes:
                fields = _md_fields(c.fields) if c.change == "changed" else ""
                out.append(f"| **{c.severity}** | {c.change} | {md_text(c.kind)} | {md_code(c.name, table=True)} | {fields} |")
            with_findings = [c for c in d.changes if c.findings]
            if with_findings:
                out += ["", "Security findings on the new text:", ""]
                for c in with_findings:
                    out.append(f"- {_KIND_TITLE.get(c.kind, md_text(c.kind))} {md_code(c.name)} ({c.change})")
                    out += _md_findings(c.findings, "  ")
        if d.pending:
            out += ["", "Pending review (staged by `mcplock refresh`):", ""]
            for p in d.pending:
                out.append(f"- {md_text(p.change)} {_KIND_TITLE.get(p.kind, md_text(p.kind))} "
                           f"{md_code(target(d.name, p.kind, p.name))}")
        if d.identity is not None:
            out += ["", f"Server identity {md_code(_ident(d.identity['locked']))} → "
                        f"{md_code(_ident(d.identity['live']))} (reported apart, not drift)"]
    if n["drift"] or n["pending"]:
        out += ["", "Next: `mcplock refresh` stages the changes, `mcplock show SERVER/TOOL` shows them, "
                    "`mcplock accept` / `mcplock reject` decides."]
    return "\n".join(out) + "\n"


def check_markdown(findings: list[Finding], lock: Lock, lockfile: str, exit_code: int) -> str:
    tools = sum(len(s.tools) for s in lock.servers.values())
    if not findings:
        return (f"## ✅ mcplock check: clean (exit {exit_code})\n\n"
                f"Lock file {md_code(lockfile)} · {len(lock.servers)} server(s) · {tools} tool(s): "
                "every hash matches, nothing pending, in sync with the host configs.\n")
    out = [f"## ❌ mcplock check: {len(findings)} problem(s) (exit {exit_code})", "",
           f"Lock file {md_code(lockfile)} · {len(lock.servers)} server(s) · {tools} tool(s)", "",
           "| problem | server | item | message | fix |", "|---|---|---|---|---|"]
    for f in findings:
        item = md_code(target(f.server, f.kind, f.name or ""), table=True) if f.kind else ""
        out.append(f"| {md_text(f.code)} | {md_code(f.server, table=True)} | {item} | {md_text(f.message)} | {md_text(f.hint)} |")
    return "\n".join(out) + "\n"


# --- sarif -------------------------------------------------------------------------------------


class _Sarif:
    def __init__(self, uri: str, lock_text: str | None, command: str, exit_code: int, tool_version: str | None) -> None:
        from mcplock import __version__

        self.uri = uri
        self.lines = _Lines(lock_text)
        self.command = command
        self.exit_code = exit_code
        self.version = tool_version or __version__
        self.rules: dict[str, dict[str, Any]] = {}
        self.rule_severity: dict[str, str] = {}
        self.results: list[dict[str, Any]] = []

    def rule(self, rid: str, short: str, full: str, level: str, severity: str | None = None) -> None:
        if rid not in self.rules:
            self.rules[rid] = {
                "id": rid, "name": "".join(p.capitalize() for p in re.split(r"[^A-Za-z0-9]+", rid) if p),
                "shortDescription": {"text": short}, "fullDescription": {"text": full},
                "help": {"text": full}, "defaultConfiguration": {"level": level},
                "properties": {"tags": ["security", "mcp"]},
            }
        if severity in _SECURITY_SEVERITY:
            cur = self.rule_severity.get(rid)
            if cur is None or _rank(severity) < _rank(cur):
                self.rule_severity[rid] = severity

    def result(self, rid: str, level: str, message: str, line: int, fingerprint: str,
               props: dict[str, Any] | None = None) -> None:
        r: dict[str, Any] = {
            "ruleId": rid, "level": level, "message": {"text": message},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": self.uri, "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": line}}}],
            "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
        }
        if props:
            r["properties"] = props
        self.results.append(r)

    def document(self) -> dict[str, Any]:
        ids = sorted(self.rules)
        rules = []
        for rid in ids:
            rule = self.rules[rid]
            sev = self.rule_severity.get(rid)
            if sev is not None:
                rule["properties"]["security-severity"] = _SECURITY_SEVERITY[sev]
            rules.append(rule)
        index = {rid: i for i, rid in enumerate(ids)}
        for r in self.results:
            r["ruleIndex"] = index[r["ruleId"]]
        return {
            "$schema": SARIF_SCHEMA,
            "version": SARIF_VERSION,
            "runs": [{
                "tool": {"driver": {"name": "mcplock", "version": self.version, "semanticVersion": self.version,
                                    "rules": rules}},
                "automationDetails": {"id": f"mcplock/{self.command}/"},
                "invocations": [{"executionSuccessful": True, "exitCode": self.exit_code}],
                "columnKind": "unicodeCodePoints",
                "results": self.results,
            }],
        }


def _change_message(server: str, c: Change) -> str:
    t = _plain(target(server, c.kind, c.name))
    what = _KIND_TITLE.get(c.kind, _plain(c.kind))
    if c.change == "changed":
        fields = ", ".join(_plain(f) for f in c.fields) or "definition"
        head = f"{what} `{t}` changed upstream since it was locked ({fields})"
    elif c.change == "added":
        head = f"{what} `{t}` is offered by the server but not in the lock"
    else:
        head = f"{what} `{t}` is in the lock but the server no longer offers it"
    return (f"{head}; severity {c.severity}. Review with `mcplock diff {_plain(server)}`; "
            f"`mcplock refresh {_plain(server)}` stages it, then `mcplock accept {t}` or `mcplock reject {t}`.")


def _finding_message(server: str, c: Change, f: Any) -> str:
    msg = f"{_plain(_attr(f, 'message', str(f)))} ({_KIND_TITLE.get(c.kind, _plain(c.kind))} `{_plain(target(server, c.kind, c.name))}`"
    where = _attr(f, "where")
    if where:
        msg += f", {_plain(where)}"
    msg += ")"
    excerpt = _attr(f, "excerpt")
    if excerpt:
        msg += f": {_plain(excerpt)}"
    return msg


def _pending_message(server: str, kind: str, name: str, change: str) -> str:
    t = _plain(target(server, kind, name))
    return (f"{_KIND_TITLE.get(kind, _plain(kind))} `{t}`: pending {_plain(change)} awaits review; "
            f"see `mcplock show {t}`, then `mcplock accept {t}` or `mcplock reject {t}`.")


def _drift_rule_text(kind: str, change: str) -> tuple[str, str]:
    what = _KIND_TITLE.get(kind, kind)
    act = ("Review it before it reaches the model: `mcplock diff` shows it, `mcplock refresh` stages it, "
           "`mcplock accept` or `mcplock reject` decides.")
    if change == "changed":
        return (f"A locked {what} changed upstream",
                f"The server's {what} no longer matches the definition reviewed in the lock (a possible rug pull). " + act)
    if change == "added":
        return (f"A server offers a {what} that is not in the lock",
                f"A new {what} has not been reviewed; hosts must not show it to the model yet. " + act)
    return (f"A locked {what} is no longer offered",
            f"The server dropped a {what} that the lock pins; agents or hosts relying on it will fail. " + act)


def diff_sarif(diffs: list[ServerDiff], lockfile: str, exit_code: int, *, lock_text: str | None = None,
               uri: str | None = None, tool_version: str | None = None) -> dict[str, Any]:
    s = _Sarif(_uri(uri or lockfile), lock_text, "diff", exit_code, tool_version)
    for d in diffs:
        if d.error is not None:
            s.rule("unreachable", "A locked server could not be probed",
                   "mcplock could not compare this server with the lock: its tools were not checked.", "warning")
            msg = f"server `{_plain(d.name)}` could not be probed ({_plain(d.error.kind)}): {_plain(d.error.message)}"
            if d.error.hint:
                msg += f". Hint: {_plain(d.error.hint)}"
            s.result("unreachable", "warning", msg, s.lines.of(("server", d.name)), _fingerprint("unreachable", d.name))
        for c in d.changes:
            rid = drift_rule(c.kind, c.change)
            short, full = _drift_rule_text(c.kind, c.change)
            s.rule(rid, short, full, "error", c.severity)
            line = s.lines.item(d.name, c.kind, c.name)
            seen: dict[tuple[str, ...], int] = {}
            s.result(rid, _sarif_level(c.severity), _change_message(d.name, c), line,
                     _fingerprint("drift", d.name, c.kind, c.name, c.change),
                     {"severity": c.severity, "fields": list(c.fields), "lockedHash": c.locked_hash,
                      "liveHash": c.live_hash})
            for f in c.findings:
                rid = lint_rule(f)
                sev = str(_attr(f, "severity") or "info")
                s.rule(rid, f"Security lint: {rid[5:]}", "A security lint rule matched the new text of a server's "
                       "definition (hidden characters, instructions aimed at the model, shadowing …).", "warning", sev)
                # one alert per distinct finding: rule, place and message (the excerpt), then the repeat
                key = (rid, str(_attr(f, "where")), str(_attr(f, "message")))
                seen[key] = seen.get(key, -1) + 1
                s.result(rid, _sarif_level(sev), _finding_message(d.name, c, f), line,
                         _fingerprint("lint", d.name, c.kind, c.name, c.change, *key, seen[key]), {"severity": sev})
        for p in d.pending:
            s.rule("pending/review", "A staged change awaits review",
                   "A proposal staged by `mcplock refresh` or `mcplock add` awaits `mcplock accept` or `mcplock reject`; "
                   "changed tools stay disabled until then.", "warning")
            s.result("pending/review", "warning", _pending_message(d.name, p.kind, p.name, p.change),
                     s.lines.item(d.name, p.kind, p.name), _fingerprint("pending", d.name, p.kind, p.name, p.change))
    return s.document()


def check_sarif(findings: list[Finding], lockfile: str, exit_code: int, *, lock_text: str | None = None,
                uri: str | None = None, tool_version: str | None = None) -> dict[str, Any]:
    s = _Sarif(_uri(uri or lockfile), lock_text, "check", exit_code, tool_version)
    for f in findings:
        level = _CHECK_LEVEL.get(f.code, "warning")
        if f.code == "pending":
            rid = "pending/review"
            s.rule(rid, "A staged change awaits review",
                   "A proposal staged by `mcplock refresh` or `mcplock add` awaits `mcplock accept` or `mcplock reject`; "
                   "changed tools stay disabled until then.", level)
        else:
            rid = f"check/{f.code}"
            short, full = _CHECK_RULES.get(f.code, (f"mcplock check: {f.code}", f"mcplock check: {f.code}"))
            s.rule(rid, short, full, level, "high" if f.code == "hash-mismatch" else None)
        s.result(rid, level, f"{_plain(f.message)}. Fix: {_plain(f.hint)}", s.lines.of(f.table),
                 _fingerprint("check", f.code, f.server, f.kind, f.name))
    return s.document()


def _uri(path: str) -> str:
    if os.path.isabs(path):
        return "file://" + quote(path.replace(os.sep, "/"))
    return quote(path.replace(os.sep, "/"))


# --- github workflow commands ----------------------------------------------------------------


def gh_data(s: object) -> str:
    """The message of a workflow command (after `::`), on one line."""
    text = visible(s if isinstance(s, str) else str(s), keep_newlines=True)
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def gh_property(s: object) -> str:
    """A property value of a workflow command (`file=`, `title=`)."""
    return gh_data(s).replace(":", "%3A").replace(",", "%2C")


def _gh(level: str, file: str, line: int, title: str, message: str) -> str:
    return f"::{level} file={gh_property(file)},line={line},title={gh_property(title)}::{gh_data(message)}"


def diff_github(diffs: list[ServerDiff], lockfile: str, exit_code: int, *, lock_text: str | None = None,
                path: str | None = None) -> str:
    file = path or lockfile
    lines = _Lines(lock_text)
    out: list[str] = []
    for d in diffs:
        if d.error is not None:
            msg = f"server `{_plain(d.name)}` could not be probed ({_plain(d.error.kind)}): {_plain(d.error.message)}"
            if d.error.hint:
                msg += f". Hint: {_plain(d.error.hint)}"
            out.append(_gh("warning", file, lines.of(("server", d.name)), f"mcplock unreachable: {_plain(d.name)}", msg))
        for c in d.changes:
            line = lines.item(d.name, c.kind, c.name)
            t = _plain(target(d.name, c.kind, c.name))
            out.append(_gh(_GITHUB_LEVEL[_sarif_level(c.severity)], file, line,
                           f"mcplock {drift_rule(c.kind, c.change)} ({c.severity}): {t}", _change_message(d.name, c)))
            for f in c.findings:
                sev = str(_attr(f, "severity") or "info")
                out.append(_gh(_GITHUB_LEVEL[_sarif_level(sev)], file, line, f"mcplock {lint_rule(f)} ({sev}): {t}",
                               _finding_message(d.name, c, f)))
        for p in d.pending:
            t = _plain(target(d.name, p.kind, p.name))
            out.append(_gh("warning", file, lines.item(d.name, p.kind, p.name), f"mcplock pending/review: {t}",
                           _pending_message(d.name, p.kind, p.name, p.change)))
        if d.identity is not None:
            out.append(_gh("notice", file, lines.of(("server", d.name)), f"mcplock identity: {_plain(d.name)}",
                           f"server `{_plain(d.name)}` reports {_plain(_ident(d.identity['live']))}, locked as "
                           f"{_plain(_ident(d.identity['locked']))} (reported apart, not drift)"))
    n = _summary_counts(diffs)
    out.append(f"mcplock diff: {n['servers']} server(s): {n['drift']} with drift, {n['unreachable']} unreachable, "
               f"{n['pending']} pending review (exit {exit_code})")
    return "\n".join(out) + "\n"


def check_github(findings: list[Finding], lock: Lock, lockfile: str, exit_code: int, *, lock_text: str | None = None,
                 path: str | None = None) -> str:
    file = path or lockfile
    lines = _Lines(lock_text)
    out: list[str] = []
    for f in findings:
        rid = "pending/review" if f.code == "pending" else f"check/{f.code}"
        what = _plain(target(f.server, f.kind, f.name or "")) if f.kind else _plain(f.server)
        out.append(_gh(_GITHUB_LEVEL[_CHECK_LEVEL.get(f.code, "warning")], file, lines.of(f.table),
                       f"mcplock {rid}: {what}", f"{_plain(f.message)}. Fix: {_plain(f.hint)}"))
    out.append(f"mcplock check: {len(lock.servers)} server(s), {len(findings)} problem(s) (exit {exit_code})")
    return "\n".join(out) + "\n"


# --- entry points for the CLI -----------------------------------------------------------------


def diff_report(fmt: str, diffs: list[ServerDiff], lockfile: str, exit_code: int, *, lock_text: str | None = None,
                path: str | None = None) -> str:
    """The whole report of `mcplock diff` in a machine format (not `text`)."""
    if fmt == "json":
        return dumps(diff_json(diffs, lockfile, exit_code))
    if fmt == "markdown":
        return diff_markdown(diffs, lockfile, exit_code)
    if fmt == "sarif":
        return dumps(diff_sarif(diffs, lockfile, exit_code, lock_text=lock_text, uri=path))
    if fmt == "github":
        return diff_github(diffs, lockfile, exit_code, lock_text=lock_text, path=path)
    raise ValueError(f"unknown format {fmt!r}")


def check_report(fmt: str, findings: list[Finding], lock: Lock, lockfile: str, exit_code: int, *,
                 lock_text: str | None = None, path: str | None = None) -> str:
    """The whole report of `mcplock check` in a machine format (not `text`)."""
    if fmt == "json":
        return dumps(check_json(findings, lock, lockfile, exit_code))
    if fmt == "markdown":
        return check_markdown(findings, lock, lockfile, exit_code)
    if fmt == "sarif":
        return dumps(check_sarif(findings, lockfile, exit_code, lock_text=lock_text, uri=path))
    if fmt == "github":
        return check_github(findings, lock, lockfile, exit_code, lock_text=lock_text, path=path)
    raise ValueError(f"unknown format {fmt!r}")
