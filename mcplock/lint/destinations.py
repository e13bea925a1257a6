"""What a text points at, in any language: destinations and references (docs/severity.md, issue 45).

An act needs somewhere to go or something to call: an e-mail address, a URL, a host, an IP
address, a file path, another tool's name, a command. These are language-neutral — the same in
a Tagalog sentence as in an English one — so they are read from the characters, not from words:

- e-mail addresses, also spelled out ("ops at corp dot com", "ops (at) corp (dot) com") or
  defanged ("ops[@]corp[.]com");
- URLs of any scheme (``https``, ``ftp``, ``s3`` …), defanged ``hxxp://`` and ``[.]`` included;
- hosts (a dotted name ending in a top-level domain), IPv4 addresses (dotted, and a URL's
  decimal or hex host: ``http://3232235879/``), bracketed IPv6 addresses;
- absolute and home-relative file paths (``/var/tmp/x``, ``~/.zshrc``, ``C:\\x``);
- code spans (`` `…` ``): a tool or parameter name, or a command.

Each reference comes back normalised (refanged, lower case, a decimal IP in dotted form) so that
one definition's can be compared with the accepted definition's: what matters is a destination
that is *new* (:mod:`mcplock.lint.novelty`).
"""

from __future__ import annotations

import functools
import ipaddress
import re
from dataclasses import dataclass

from mcplock.lint.text import lazy

# defanged spellings folded back before anything is read ("hxxp", "[.]", "(dot)", " at … dot ")
_DEFANG = (
    (lazy(r"\bhxxp(s?)(?=\[?:\]?//)", re.I), r"http\1"),
    (lazy(r"\[:\]//"), "://"),
    (lazy(r"\s*(?:\[\.\]|\(\.\)|\{\.\}|\[dot\]|\(dot\)|\{dot\})\s*", re.I), "."),
    (lazy(r"\s*(?:\[@\]|\(@\)|\[at\]|\(at\)|\{at\})\s*", re.I), "@"),
)
# "name at domain dot com": a word, " at ", words joined by " dot ", ending in a top-level domain
_SPELLED = lazy(r"\b([\w.+-]+)\s+at\s+((?:[\w-]+\s+dot\s+)+[a-z]{2,12})\b", re.I)
_TLD = (
    r"(?:com|net|org|io|dev|app|ai|co|xyz|info|biz|cloud|site|online|me|sh|ru|cn|de|fr|uk|jp|kr|br|in|tk"
    r"|top|example|test|internal|local|corp|zip|ph|cz|hu|gr|il|ro|dk|no|bd|cat|hr|et|ge|ng|lt|pk|bg|is"
    r"|cymru|sk|tz|es|it|pl|se|fi|ua|tr|vn|id|th|ir|eu|us|ca|au|nz|za|mx|ar|ch|at|be|nl|pt|gov|edu|mil)"
)
_SCHEME_URL = r"\b(?:[a-z][a-z0-9+.-]{1,9})://[^\s<>'\"`)\]]+"
_EMAIL = r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
_V6 = r"\[[0-9a-f:]{2,39}(?::[0-9a-f]{1,4})?\](?::\d+)?"
_IP4 = r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b"
_HOST = rf"\b(?:[a-z0-9-]+\.)+{_TLD}\b(?::\d+)?"
_PATH = (
    r"(?<![\w/.~])(?:~/|/(?:tmp|var|home|Users|etc|dev|mnt|srv|opt|root|proc|usr|private)/|[A-Za-z]:\\)[^\s'\"`,;)<>]*"
)
_CODE = r"`([^`\n]{1,200})`"
_ANY = lazy(
    f"(?P<url>{_SCHEME_URL})|(?P<email>{_EMAIL})|(?P<v6>{_V6})|(?P<ip>{_IP4})|(?P<host>{_HOST})"
    f"|(?P<path>{_PATH})|{_CODE.replace('(', '(?P<code>', 1)}",
    re.I,
)
_URL_HOST = lazy(r"^[a-z][a-z0-9+.-]*://(?:[^@/\s]*@)?(\[[^\]]+\]|[^/:?#\s]+)", re.I)
# the domains RFC 2606 reserves for documentation, and the names of this machine
_DOC = lazy(r"(?:^|[@./])(?:example(?:\.(?:com|org|net))?|test|invalid|localhost)$", re.I)
# an example is introduced as one: "e.g. …", "for example", "such as", "like"
_EXAMPLE = lazy(
    r"(?:\be\.g\.|\bi\.e\.|\bfor\s+(?:example|instance)|\bexamples?\s*:|\bsuch\s+as|\bdefault\s*:?)\W*$", re.I
)


@dataclass(frozen=True)
class Ref:
    kind: str  # "email", "url", "host", "ip", "path", "code"
    value: str  # normalised: refanged, lower case (a path keeps its case)
    shown: str  # as written, for a message

    @property
    def destination(self) -> bool:
        """Somewhere data can be sent (a code span is a name or a command, not a place)."""
        return self.kind != "code"


def refang(s: str) -> str:
    """``s`` with defanged and spelled-out addresses written plainly."""
    for rx, to in _DEFANG:
        s = rx.sub(to, s)
    return _SPELLED.sub(lambda m: m.group(1) + "@" + re.sub(r"\s+dot\s+", ".", m.group(2), flags=re.I), s)


def _numeric_host(host: str) -> str:
    """A URL's decimal (``3232235879``) or hex (``0xC0A80001``) host as a dotted IPv4 address."""
    try:
        n = int(host, 16) if host.lower().startswith("0x") else int(host)
    except ValueError:
        return host
    return str(ipaddress.IPv4Address(n)) if 0 < n < 2**32 else host


def _normalised(kind: str, text: str) -> str:
    text = text.rstrip(".,;:!?)")
    if kind == "path":
        return text
    if kind == "url":
        m = _URL_HOST.match(text)
        if m is not None:
            host = m.group(1)
            text = text[: m.start(1)] + _numeric_host(host).lower() + text[m.end(1) :]
    return text.lower()


def host_of(r: Ref) -> str:
    """The host a destination names ('' for a path or a code span)."""
    if r.kind == "email":
        return r.value.rsplit("@", 1)[-1]
    if r.kind == "url":
        m = _URL_HOST.match(r.value)
        return m.group(1) if m is not None else ""
    return r.value.split(":")[0] if r.kind in ("host", "ip") else ""


def _documentation(r: Ref) -> bool:
    host = host_of(r).strip("[]")
    return bool(host) and (_DOC.search(host) is not None or host.startswith(("127.", "::1")))


def references(text: str, keep_examples: bool = False) -> list[Ref]:
    """The destinations and references of ``text`` (refanged), documentation addresses and
    (unless ``keep_examples``) examples ("e.g. …") left out."""
    if not _MAY_POINT.search(text):  # most strings (keys, short words) point at nothing
        return []
    return list(_references(text, keep_examples))


# a character or word every reference needs one of (an address's "@" or " at ", a host's ".", a
# path's "/" or "\", a code span's backtick, a drive's ":")
_MAY_POINT = lazy(r"[@./\\`:]|\bat\b", re.I)


def may_point(text: str) -> bool:
    """Whether ``text`` holds a character or word some reference needs (a cheap pre-check)."""
    return _MAY_POINT.search(text) is not None


@functools.lru_cache(maxsize=16384)
def _references(text: str, keep_examples: bool) -> tuple[Ref, ...]:
    t = refang(text)
    out: list[Ref] = []
    covered = -1
    for m in _ANY.finditer(t):
        if m.start() < covered:
            continue
        kind = m.lastgroup or ""
        shown = m.group(kind) if kind != "code" else m.group("code")
        covered = m.end()
        if kind == "v6":
            kind = "ip"
        r = Ref(kind, _normalised(kind, shown), shown)
        if _documentation(r) or (not keep_examples and _EXAMPLE.search(t[max(0, m.start() - 24) : m.start()])):
            continue
        out.append(r)
        if kind == "code":  # a command in a code span may hold a URL or a path of its own
            out.extend(x for x in references(shown) if x.kind != "code")
    return tuple(out)


_IDENT = lazy(r"^[A-Za-z_][\w.-]*$")
_COMMAND = lazy(
    r"[|;&]|\$\(|^\s*(?:sudo|curl|wget|rm|git|bash|sh|zsh|nohup|chmod|chown|python\d?|node|npm|npx|pip\d?|uvx?"
    r"|powershell|iex|eval|exec|nc|ncat|ssh|scp|rsync|dd|mkfs|kill|alias|export|echo|cat|\./)\b",
    re.I,
)


def is_command(code: str) -> bool:
    """Whether a code span reads as a shell command (a pipe, a chain, a command that acts)."""
    return " " in code.strip() and _COMMAND.search(code) is not None


def is_identifier(code: str) -> bool:
    """Whether a code span is a bare name (a tool's, a parameter's, a program's)."""
    return _IDENT.match(code.strip()) is not None


def without_references(text: str) -> str:
    """``text`` (refanged) with its addresses, URLs, hosts, paths and code spans blanked."""
    return _ANY.sub(" ", refang(text))
