"""Lint family: secrets locations and exfiltration URLs.

A path into a secrets location (``~/.ssh``, ``id_rsa``, ``.aws/credentials``, ``.env``,
keychains, MCP host configs …) is ``high``, ``critical`` when its sentence holds an
imperative read/send verb; an order to send data to a URL is ``high``. An ordinary config
path is not a signal.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from mcplock.lint.finding import LintFinding
from mcplock.lint.text import excerpt
from mcplock.severity import CRITICAL, HIGH

_SENSITIVE = re.compile(
    r"(?:~|\$HOME|%USERPROFILE%)?[/\\]?\.ssh\b|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\.aws[/\\](?:credentials|config)\b"
    r"|(?<![\w.$-])\.env(?:\.[A-Za-z]+)?\b(?![-/])|/etc/(?:passwd|shadow|sudoers)\b|(?<![\w-])\.npmrc\b|(?<![\w-])\.netrc\b"
    r"|(?<![\w-])\.pypirc\b|\.config[/\\]gh\b|\.git-credentials\b|\.docker[/\\]config\.json\b|\.kube[/\\]config\b"
    r"|\.gnupg\b|\bkeychains?\b|\.cursor[/\\]mcp\.json\b|\bclaude_desktop_config\.json\b|\.bash_history\b"
    r"|\.zsh_history\b|\bwallet\.dat\b",
    re.I,
)
_SENSITIVE_KEYS = ("ssh", "id_", "aws", "env", "/etc/", "rc", "config", "credentials", "gnupg", "keychain",
                   "mcp.json", "_history", "wallet")
# imperative read/send verbs (an order to the model); descriptive "reads"/"uses" stay high, not critical
_VERB = re.compile(
    r"\b(?:read|cat|send|upload|include|pass|attach|post|forward|exfiltrate|copy|leak|transmit|dump|share|append"
    r"|embed|insert)\b", re.I)
_EXFIL = re.compile(
    r"\b(?:send|sends|forward|forwards|upload|uploads|post|posts|exfiltrate|transmit|leak|copy|report|beacon)\b"
    r"[^.\n]{0,80}?\bto\s+<?(?:https?|wss?|ftp)://[^\s>'\"]+", re.I)
# a sentence ends at . ! ? followed by white space (so "~/.ssh/id_rsa" stays whole) or at a line end
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?]+(?=[^\s.!?]))+[.!?]*")


def secret_findings(t: str, low: str, where: str) -> Iterator[tuple[LintFinding, tuple]]:
    """Findings in ``t`` (cleaned text; ``low`` its lower case), each with its signature."""
    paths: dict[str, tuple[str, int, int]] = {}
    sensitive = any(k in low for k in _SENSITIVE_KEYS) and _SENSITIVE.search(t) is not None
    for sent in _SENTENCE.finditer(t) if sensitive else ():
        for m in _SENSITIVE.finditer(sent.group(0)):
            token = m.group(0).lower()
            verb = _VERB.search(sent.group(0)) is not None
            prev = paths.get(token)
            if prev is None or (verb and prev[0] != CRITICAL):
                paths[token] = (CRITICAL if verb else HIGH, sent.start() + m.start(), sent.start() + m.end())
    if paths:
        sev = CRITICAL if any(v[0] == CRITICAL for v in paths.values()) else HIGH
        a = min(v[1] for v in paths.values())
        b = max(v[2] for v in paths.values())
        how = " with an instruction to read or send it" if sev == CRITICAL else ""
        names = ", ".join(repr(k) for k in paths)
        plural = "s" if len(paths) > 1 else ""
        yield (LintFinding("sensitive-path", sev, f"names the secrets location{plural} {names}{how}: "
                           f"{excerpt(t, a, b, 30)}", where), ("sensitive-path", tuple(sorted(paths)), sev))
    m = _EXFIL.search(t) if "://" in t else None
    if m:
        yield (LintFinding("exfiltration-url", HIGH, f"tells the model to send data to a URL: "
                           f"{excerpt(t, m.start(), m.end(), 20)}", where), ("exfiltration-url", m.group(0).lower()))
