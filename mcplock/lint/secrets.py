"""Lint family: secrets locations and payloads hidden in text.

A path into a secrets location (``~/.ssh``, ``id_rsa``, ``.aws/credentials``, ``.env``,
keychains, MCP host configs …) is ``high``, ``critical`` when its sentence holds an
imperative read/send verb; an encoded blob (a long base64/hex run, a ``data:`` URI) and a
tracking image (a Markdown or HTML image loaded from a URL: rendering it sends a request) are
``high``. An ordinary config path is not a signal. URLs are :mod:`mcplock.lint.urls`'.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from mcplock.lint.finding import LintFinding, Sig
from mcplock.lint.text import SENTENCE, excerpt, lazy
from mcplock.model.severity import CRITICAL, HIGH, Severity

_SENSITIVE = lazy(
    r"(?:~|\$HOME|%USERPROFILE%)?[/\\]?\.ssh\b|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\.aws[/\\](?:credentials|config)\b"
    r"|(?<![\w.$-])\.env(?:\.[A-Za-z]+)?\b(?![-/])|/etc/(?:passwd|shadow|sudoers)\b|(?<![\w-])\.npmrc\b|(?<![\w-])\.netrc\b"
    r"|(?<![\w-])\.pypirc\b|\.config[/\\]gh\b|\.git-credentials\b|\.docker[/\\]config\.json\b|\.kube[/\\]config\b"
    r"|\.gnupg\b|\bkeychains?\b|\.cursor[/\\]mcp\.json\b|\bclaude_desktop_config\.json\b|\.bash_history\b"
    r"|\.zsh_history\b|\bwallet\.dat\b",
    re.I,
)
_SENSITIVE_KEYS = (
    "ssh",
    "id_",
    "aws",
    "env",
    "/etc/",
    "rc",
    "config",
    "credentials",
    "gnupg",
    "keychain",
    "mcp.json",
    "_history",
    "wallet",
)
# imperative read/send verbs (an order to the model); descriptive "reads"/"uses" stay high, not critical
_VERB = lazy(
    r"\b(?:read|cat|send|upload|include|pass|attach|post|forward|exfiltrate|copy|leak|transmit|dump|share|append"
    r"|embed|insert|lies|lese|sende|schicke|lire|lis|lisez|envoie[rz]?|lee|lea|env[ií]a|leia|envie|прочитай(?:те)?"
    r"|отправь(?:те)?|передай(?:те)?)\b|读取|讀取|发送|發送|上传|上傳|読み|読んで|送信|읽|보내|전송",
    re.I,
)


# a sentence that refuses what it names (the tool's own guard), in the lexicon's main languages
_REFUSED = lazy(
    r"\b(?:is|are|gets?|will\s+be)\s+(?:refused|rejected|blocked|denied|ignored|skipped|excluded|never\s+\w+)\b"
    r"|\b(?:refuses|rejects|blocks|never\s+(?:reads?|sends?|opens?|touch(?:es)?|uploads?))\b"
    r"|\bwird\s+(?:abgelehnt|blockiert|ignoriert)\b|\best\s+(?:refusé|rejeté|bloqué)\b|\bse\s+rechaza\b",
    re.I,
)


def _secrets_locations(t: str, low: str) -> dict[str, tuple[Severity, int, int]]:
    """The secrets locations ``t`` names (lower case, in order) -> (severity, start, end) of one
    mention: critical when a sentence naming it orders reading or sending."""
    paths: dict[str, tuple[Severity, int, int]] = {}
    if not any(k in low for k in _SENSITIVE_KEYS) or _SENSITIVE.search(t) is None:
        return paths
    for token, sev, start, end in _mentions(t):
        if _replaces(sev, paths.get(token)):
            paths[token] = (sev, start, end)
    return paths


def _mentions(t: str) -> Iterator[tuple[str, Severity, int, int]]:
    """(location in lower case, severity, start, end) of each mention of a secrets location in
    ``t``, in order: critical when its sentence holds an imperative read/send verb."""
    for sent in SENTENCE.finditer(t):
        text = sent.group(0)
        if _REFUSED.search(text) is not None:
            continue  # "uploading a .env file is refused": the sentence keeps the secret in
        found = list(_SENSITIVE.finditer(text))
        sev: Severity = CRITICAL if found and _VERB.search(text) is not None else HIGH
        for m in found:
            yield m.group(0).lower(), sev, sent.start() + m.start(), sent.start() + m.end()


def _replaces(sev: Severity, kept: tuple[Severity, int, int] | None) -> bool:
    """A mention of severity ``sev`` is the one to show for its location over the one ``kept``:
    the first mention, or the first critical one."""
    return kept is None or (sev == CRITICAL and kept[0] != CRITICAL)


def secret_findings(t: str, low: str, where: str) -> Iterator[tuple[LintFinding, Sig]]:
    """Findings in ``t`` (cleaned text; ``low`` its lower case), each with its signature: one
    ``sensitive-path`` for all the secrets locations it names."""
    paths = _secrets_locations(t, low)
    if not paths:
        return
    sev: Severity = CRITICAL if any(v[0] == CRITICAL for v in paths.values()) else HIGH
    finding = LintFinding("sensitive-path", sev, _locations_message(t, paths, sev), where)
    yield finding, ("sensitive-path", tuple(sorted(paths)), sev)


def _locations_message(t: str, paths: dict[str, tuple[Severity, int, int]], sev: Severity) -> str:
    """What a ``sensitive-path`` finding says: the locations, whether it orders reading or
    sending them, and an excerpt from the first mention to the last."""
    a = min(v[1] for v in paths.values())
    b = max(v[2] for v in paths.values())
    how = " with an instruction to read or send it" if sev == CRITICAL else ""
    names = ", ".join(repr(k) for k in paths)
    plural = "s" if len(paths) > 1 else ""
    return f"names the secrets location{plural} {names}{how}: {excerpt(t, a, b, 30)}"


_BLOB = lazy(
    r"data:[\w/+.-]+;base64,[A-Za-z0-9+/=]{16,}"
    r"|(?<![\w+/=-])(?:[A-Za-z0-9+/_-]{48,}={0,2}|[0-9a-fA-F]{64,})(?![\w+/=-])"
)
_IMAGE = lazy(
    r"!\[[^\]\n]{0,200}\]\(\s*<?(?:https?:)?//"
    r"|<img\b[^>]{0,300}?\bsrc\s*=\s*[\"']?(?:https?:)?//",
    re.I,
)


_HEX = frozenset("0123456789abcdefABCDEF")


def _blob_like(run: str) -> bool:
    """A run that looks encoded, not like a long identifier: digits and both cases, few separators."""
    if run.startswith("data:") or set(run) <= _HEX:
        return True
    return _digits_and_both_cases(run) and run.count("_") + run.count("-") <= 2


def _digits_and_both_cases(run: str) -> bool:
    return any(c.isdigit() for c in run) and any(c.isupper() for c in run) and any(c.islower() for c in run)


def payload_findings(t: str, where: str) -> Iterator[tuple[LintFinding, Sig]]:
    """``encoded-blob`` and ``tracking-image`` findings in ``t`` (cleaned text)."""
    blob = _blob(t, where)
    if blob is not None:
        yield blob
    image = _IMAGE.search(t) if "//" in t else None
    if image:
        m = image
        yield (
            LintFinding(
                "tracking-image",
                HIGH,
                f"an image loaded from a URL (rendering it sends a request): {excerpt(t, m.start(), m.end(), 30)}",
                where,
            ),
            ("tracking-image", m.group(0).lower()),
        )


def _blob(t: str, where: str) -> tuple[LintFinding, Sig] | None:
    """An ``encoded-blob`` finding for the first encoded-looking run in ``t``, else None."""
    for m in _BLOB.finditer(t) if len(t) >= 48 or "data:" in t else ():
        if _blob_like(m.group(0)):
            return (
                LintFinding(
                    "encoded-blob",
                    HIGH,
                    f"an encoded blob in text the model reads: "
                    f"{excerpt(t, m.start(), min(m.end(), m.start() + 40), 10)}",
                    where,
                ),
                ("encoded-blob", m.group(0)),
            )
    return None
