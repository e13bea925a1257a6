"""``--format sarif`` of ``diff`` and ``check``: SARIF 2.1.0 that GitHub code scanning
accepts; results point at the line of the lock where the item's table starts.

Rule ids (stable; SARIF ``ruleId``, github annotation titles):

* ``drift/<kind>-<change>`` — ``kind`` in tool, prompt, resource-template, resource,
  instructions; ``change`` in added, removed, changed (e.g. ``drift/tool-changed``);
* ``pending/review`` — a proposal staged by ``refresh``/``add`` awaits review (diff and check);
* ``unreachable`` — a server could not be probed;
* ``check/<code>`` — ``check`` problems: hash-mismatch, config-changed, config-missing,
  not-locked, config-error, source-missing, unknown-value, pin-no-integrity, pin-not-exact; and its warning
  ``check/critical-accepted`` (an accepted, enabled item with critical lint findings; level
  ``warning``, never a failure);
* ``lint/<rule>`` — security-lint findings on new or changed text.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from mcplock.model.severity import HIGH, SECURITY_SEVERITY, rank, sarif_level
from mcplock.render.formats.common import (
    CHECK_LEVEL,
    PENDING_RULE,
    Lines,
    attr,
    change_message,
    check_message,
    check_rule,
    drift_rule,
    finding_message,
    finding_severity,
    fingerprint,
    lint_rule,
    pending_message,
    plain,
    unreachable_message,
)
from mcplock.render.formats.sarif_rules import CHECK_RULES, PENDING_TEXT, drift_rule_text

if TYPE_CHECKING:  # pragma: no cover
    from mcplock.core.check import Finding
    from mcplock.lint.compare import Change, Cloaked, PendingItem, ServerDiff

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
FINGERPRINT_KEY = "mcplockItem/v1"


class _Sarif:
    def __init__(self, uri: str, lock_text: str | None, command: str, exit_code: int, tool_version: str | None) -> None:
        from mcplock._version import __version__

        self.uri = uri
        self.lines = Lines(lock_text)
        self.command = command
        self.exit_code = exit_code
        self.version = tool_version or __version__
        self.rules: dict[str, dict[str, Any]] = {}
        self.rule_severity: dict[str, str] = {}
        self.results: list[dict[str, Any]] = []

    def rule(self, rid: str, short: str, full: str, level: str, severity: str | None = None) -> None:
        """Declare the rule ``rid`` (once), and raise its security severity to ``severity``."""
        if rid not in self.rules:
            self.rules[rid] = {
                "id": rid,
                "name": "".join(p.capitalize() for p in re.split(r"[^A-Za-z0-9]+", rid) if p),
                "shortDescription": {"text": short},
                "fullDescription": {"text": full},
                "help": {"text": full},
                "defaultConfiguration": {"level": level},
                "properties": {"tags": ["security", "mcp"]},
            }
        if severity in SECURITY_SEVERITY:
            self._raise_severity(rid, severity)

    def _raise_severity(self, rid: str, severity: str) -> None:
        """A rule's security severity is the worst of its results'."""
        cur = self.rule_severity.get(rid)
        if cur is None or rank(severity) < rank(cur):
            self.rule_severity[rid] = severity

    def result(
        self, rid: str, level: str, message: str, line: int, fingerprint: str, props: dict[str, Any] | None = None
    ) -> None:
        r: dict[str, Any] = {
            "ruleId": rid,
            "level": level,
            "message": {"text": message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": self.uri, "uriBaseId": "%SRCROOT%"},
                        "region": {"startLine": line},
                    }
                }
            ],
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
                rule["properties"]["security-severity"] = SECURITY_SEVERITY[sev]
            rules.append(rule)
        index = {rid: i for i, rid in enumerate(ids)}
        for r in self.results:
            r["ruleIndex"] = index[r["ruleId"]]
        return {
            "$schema": SARIF_SCHEMA,
            "version": SARIF_VERSION,
            "runs": [
                {
                    "tool": {
                        "driver": {
                            "name": "mcplock",
                            "version": self.version,
                            "semanticVersion": self.version,
                            "rules": rules,
                        }
                    },
                    "automationDetails": {"id": f"mcplock/{self.command}/"},
                    "invocations": [{"executionSuccessful": True, "exitCode": self.exit_code}],
                    "columnKind": "unicodeCodePoints",
                    "results": self.results,
                }
            ],
        }


def _unreachable(s: _Sarif, d: ServerDiff) -> None:
    s.rule(
        "unreachable",
        "A locked server could not be probed",
        "mcplock could not compare this server with the lock: its tools were not checked.",
        "warning",
    )
    s.result(
        "unreachable",
        "warning",
        unreachable_message(d),
        s.lines.of(("server", d.name)),
        fingerprint("unreachable", d.name),
    )


def _drift(s: _Sarif, server: str, c: Change) -> None:
    """A drifted item's result at its line, then its security findings'."""
    rid = drift_rule(c.kind, c.change)
    short, full = drift_rule_text(c.kind, c.change)
    s.rule(rid, short, full, "error", c.severity)
    line = s.lines.item(server, c.kind, c.name)
    s.result(
        rid,
        sarif_level(c.severity),
        change_message(server, c),
        line,
        fingerprint("drift", server, c.kind, c.name, c.change),
        {
            "severity": c.severity,
            "reason": c.reason,
            "fields": list(c.fields),
            "lockedHash": c.locked_hash,
            "liveHash": c.live_hash,
        },
    )
    _lint_results(s, server, c, line)


def _cloaking(s: _Sarif, server: str, k: Cloaked) -> None:
    """What a well-known host's identity is answered otherwise (``diff --cloak``), at the server's line."""
    s.rule(
        "cloaking",
        "A server answers a well-known host otherwise than the probe",
        "Probed as a well-known host (or again in one session), the server listed something else "
        "than it showed mcplock: what the lock reviewed is not what that host gets.",
        "error",
        k.severity,
    )
    s.result(
        "cloaking",
        sarif_level(k.severity),
        f"server `{plain(server)}`, {plain(k.kind)} `{plain(k.name)}`: {plain(k.message)}",
        s.lines.of(("server", server)),
        fingerprint("cloaking", server, k.identity, k.kind, k.name, k.change),
        {"severity": k.severity, "identity": k.identity},
    )


def _pending(s: _Sarif, server: str, p: PendingItem) -> None:
    """A staged item's result at its line, then its staged change's findings (still findings)."""
    s.rule(PENDING_RULE, *PENDING_TEXT, "warning")
    line = s.lines.item(server, p.kind, p.name)
    s.result(
        PENDING_RULE,
        "warning",
        pending_message(server, p.kind, p.name, p.change),
        line,
        fingerprint("pending", server, p.kind, p.name, p.change),
    )
    if p.detail is not None:
        _lint_results(s, server, p.detail, line)


def _server_results(s: _Sarif, d: ServerDiff) -> None:
    """A server's results: unreachable, its drift, cloaking, its pending items."""
    if d.error is not None:
        _unreachable(s, d)
    for c in d.changes:
        _drift(s, d.name, c)
    for k in d.cloaked or ():
        _cloaking(s, d.name, k)
    for p in d.pending:
        _pending(s, d.name, p)


def diff_sarif(
    diffs: list[ServerDiff],
    lockfile: str,
    exit_code: int,
    *,
    lock_text: str | None = None,
    uri: str | None = None,
    tool_version: str | None = None,
) -> dict[str, Any]:
    s = _Sarif(_uri(uri or lockfile), lock_text, "diff", exit_code, tool_version)
    for d in diffs:
        _server_results(s, d)
    return s.document()


def _lint_results(s: _Sarif, server: str, c: Any, line: int) -> None:
    seen: dict[tuple[str, ...], int] = {}
    for f in c.findings:
        rid = lint_rule(f)
        sev = finding_severity(f)
        s.rule(
            rid,
            f"Security lint: {rid[5:]}",
            "A security lint rule matched the new text of a server's "
            "definition (hidden characters, instructions aimed at the model, shadowing …).",
            "warning",
            sev,
        )
        # one alert per distinct finding: rule, place and message (the excerpt), then the repeat
        key = (rid, str(attr(f, "where")), str(attr(f, "message")))
        seen[key] = seen.get(key, -1) + 1
        s.result(
            rid,
            sarif_level(sev),
            finding_message(server, c, f),
            line,
            fingerprint("lint", server, c.kind, c.name, c.change, *key, seen[key]),
            {"severity": sev},
        )


def _check_rule(s: _Sarif, code: str, rid: str, level: str) -> None:
    """Declare the rule of a `check` problem: staged items share the pending rule; a hash mismatch
    is of high security severity."""
    if rid == PENDING_RULE:
        s.rule(rid, *PENDING_TEXT, level)
        return
    short, full = CHECK_RULES.get(code, (f"mcplock check: {code}", f"mcplock check: {code}"))
    s.rule(rid, short, full, level, HIGH if code == "hash-mismatch" else None)


def check_sarif(
    findings: list[Finding],
    lockfile: str,
    exit_code: int,
    *,
    lock_text: str | None = None,
    uri: str | None = None,
    tool_version: str | None = None,
    warnings: list[Finding] | None = None,
) -> dict[str, Any]:
    """Problems, then ``warnings`` (``level: warning`` results; they never fail the gate)."""
    s = _Sarif(_uri(uri or lockfile), lock_text, "check", exit_code, tool_version)
    for f in [*findings, *(warnings or [])]:
        level = CHECK_LEVEL.get(f.code, "warning")
        rid = check_rule(f.code)
        _check_rule(s, f.code, rid, level)
        s.result(
            rid, level, check_message(f), s.lines.of(f.table), fingerprint("check", f.code, f.server, f.kind, f.name)
        )
    return s.document()


def _uri(path: str) -> str:
    if os.path.isabs(path):
        return "file://" + quote(path.replace(os.sep, "/"))
    return quote(path.replace(os.sep, "/"))
