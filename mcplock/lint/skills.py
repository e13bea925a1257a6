"""What a skill's change says beside its text (docs/severity.md, "Skills"): a skill that loses its
content integrity, and a supporting script that now fetches or runs code.

- ``skill-content-unbound`` (critical): a skill the lock bound by content (its entry lists every
  file with a digest) now says ``resources: "dynamic"``. From then on the guard would relay its
  live ``SKILL.md`` and scripts, never reviewed; so this is never taken in bulk (``accept --all``
  holds it) — a person accepts that skill by name.
  The documents the lock pinned because of that binding (its ``SKILL.md`` and the files it pinned by
  content) then leave the lock as "removed": each removal carries the same critical finding
  (:func:`unbound_documents`), so no bulk accept drops them either.
- ``script-fetches-code`` (high): a text file of a skill (a script, a ``SKILL.md``) that now
  downloads code and runs it, or runs code it builds at run time: ``curl … | sh``, ``wget -O- …
  | bash``, ``bash <(curl …)``, ``eval "$(curl …)"``, ``iwr … | iex``, ``python -c "…urlopen…
  exec"``, ``pip install git+https://…`` — where the accepted text did not.
  Pure: the text is what the probe read (:mod:`mcplock.probe._reads`).
"""

from __future__ import annotations

import re
from typing import Any

from mcplock.lint.finding import LintFinding
from mcplock.model.documents import SKILL_FILE_READ_MAX, file_text, is_dynamic, pinned_skill_files, skill_files
from mcplock.model.severity import CRITICAL, HIGH

_FETCH = r"(?:curl|wget|fetch|iwr|irm|invoke-webrequest|invoke-restmethod|http(?:ie)?|aria2c)\b"
_SHELL = (
    r"(?:sh|bash|zsh|dash|ksh|fish|python[0-9.]*|perl|ruby|node|deno|bun|php|iex|invoke-expression|pwsh|powershell)\b"
)
_FETCH_WORD = re.compile(r"\b" + _FETCH, re.I)
_INTO_SHELL = re.compile(r"\|\s*(?:sudo\s+)?" + _SHELL, re.I)
_PIP_INSTALL = re.compile(r"\b(?:pip3?|uv\s+pip|pipx)\s+install\s", re.I)
_FROM_URL = re.compile(r"git\+|https?://", re.I)
_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "runs a download through process substitution",
        re.compile(_SHELL + r"\s+<\(\s*" + _FETCH, re.I),
    ),
    ("evaluates a download", re.compile(r"\b(?:eval|exec|source|\.)\s+[\"'(]*\$\(\s*" + _FETCH, re.I)),
    (
        "runs code fetched at run time",
        re.compile(r"\b(?:exec|eval)\s*\(\s*(?:urllib|requests|urlopen|fetch|http)", re.I),
    ),
)
_COMMAND_END = re.compile(r"[\n;&]")


def fetches_code(text: str) -> list[str]:
    """What ``text`` does that fetches or runs code (each kind once, in the rules' order). Linear
    in the text, whatever it holds (a file is linted whatever its size: issue 42.6)."""
    found = ["pipes a download into an interpreter"] if _pipes_download(text) else []
    found += [what for what, pattern in _RULES if pattern.search(text)]
    if _installs_from_url(text):
        found.append("installs and runs a package from a URL")
    return found


def _pipes_download(text: str) -> bool:
    """``curl … | sh``: a download word, then, before the command ends (a line end, ``;``, ``&``),
    a first pipe into an interpreter. Each pipe is looked at once."""
    for command in _COMMAND_END.split(text):
        at = 0
        while True:
            m = _FETCH_WORD.search(command, at)
            pipe = command.find("|", m.end()) if m is not None else -1
            if pipe < 0:
                break
            if _INTO_SHELL.match(command, pipe):
                return True
            at = pipe + 1  # a download word before this pipe has this pipe as its first
    return False


def _installs_from_url(text: str) -> bool:
    """``pip install git+https://…``: on one line, a pip install, then a URL after it (the first
    install of a line sees every URL a later one would)."""
    for line in text.split("\n"):
        m = _PIP_INSTALL.search(line)
        if m is not None and _FROM_URL.search(line, m.end()):
            return True
    return False


def content_findings(kind: str, definition: Any, old: Any) -> list[LintFinding]:
    """A pinned document's text (a skill's ``SKILL.md`` or supporting text file) that now
    fetches or runs code where ``old`` (the accepted text) did not."""
    text = file_text(definition)  # whatever its size, and a script served as a blob too
    uri = definition.get("uri") if isinstance(definition, dict) else None
    if text is None or not isinstance(uri, str) or uri[:8].lower() != "skill://":
        return []
    before = set(fetches_code(file_text(old) or "")) if old is not None else set()
    return [
        LintFinding(
            "script-fetches-code",
            HIGH,
            f"the file now {what}: a script the host's model runs would execute code nobody reviewed",
            "text",
        )
        for what in fetches_code(text)
        if what not in before
    ]


def skill_findings(kind: str, definition: Any, old: Any) -> list[LintFinding]:
    """A skill entry that turned dynamic from content-bound; a file too large to read that changed."""
    if old is None or is_dynamic(old):
        return []
    if not is_dynamic(definition):
        return _unread_files(definition, old)
    return [
        LintFinding(
            "skill-content-unbound",
            CRITICAL,
            "the skill was bound by content (every file listed with its digest) and now says "
            '`resources: "dynamic"`: its SKILL.md and scripts would reach the host live, never reviewed; '
            "accept it by name only if the server's author says why",
            "resources",
        )
    ]


def _unread_files(definition: Any, old: Any) -> list[LintFinding]:
    """Each file a content-bound skill lists, past what the probe reads (:data:`SKILL_FILE_READ_MAX`),
    that is new or has another digest: its text is neither shown nor linted, so it reads ``high``
    — a script padded past the limit and swapped for `curl … | sh` is not a routine change."""
    was, now = skill_files(old), skill_files(definition)
    return [
        LintFinding(
            "skill-file-unread",
            HIGH,
            f"{uri} ({f.get('size')} bytes) changed, and is too large for mcplock to read (more than "
            f"{SKILL_FILE_READ_MAX // (1024 * 1024)} MiB): its text is neither shown nor linted; read it yourself",
            "resources",
        )
        for uri, f in sorted(now.items())
        if isinstance(f.get("size"), int)
        and f["size"] > SKILL_FILE_READ_MAX
        and (was.get(uri) or {}).get("digest") != f.get("digest")
    ]


def unbound_documents(changes: list[Any]) -> list[tuple[Any, LintFinding]]:
    """Each removed ``content`` item the lock pinned only because a skill was bound by content,
    where that skill (a change in ``changes`` with ``skill-content-unbound``) now says dynamic —
    with the critical finding it carries: losing a pinned document that way is losing content
    integrity, not an ordinary removal (``medium``)."""
    out: list[tuple[Any, LintFinding]] = []
    removed = {c.name: c for c in changes if c.kind == "content" and c.change == "removed"}
    if not removed:
        return out
    for c in changes:
        if c.kind != "skill" or not any(getattr(f, "rule", "") == "skill-content-unbound" for f in c.findings):
            continue
        for uri in sorted({c.name, *pinned_skill_files(c.locked)}):
            d = removed.get(uri)
            if d is not None:
                message = (
                    f"pinned because the skill {c.name} was bound by content; the skill now says "
                    '`resources: "dynamic"`, so this document would reach the host live, never reviewed'
                )
                out.append((d, LintFinding("skill-content-unbound", CRITICAL, message, "text")))
    return out
