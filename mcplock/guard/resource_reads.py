"""Which ``resources/read`` a server that pins its resources (``pin-resources = true``) may answer
(docs/guard.md, "Documents come from the lock").

A locked resource is served from the lock; a URI that matches a locked resource template (RFC 6570,
the template accepted and unchanged) is data the reviewed template asked for, relayed. Anything else
— ``file:///etc/passwd``, a locked URI with ``..`` in its path, another letter case of a locked URI —
is refused: no reviewed definition names it. A match of a template that walks out of it (a ``.`` or
``..`` path segment, percent-encoded or not) is refused too. Pure.
"""

from __future__ import annotations

import functools
import re

from mcplock.model.uris import walks_out as walks_out  # re-exported: the guard's one reading

# RFC 6570 expressions: the operator decides which characters a value may hold
_EXPR = re.compile(r"\{([+#./;?&]?)([^{}]*)\}")
_UNRESERVED = r"[A-Za-z0-9\-._~%!$&'()*+,;=:@]*"  # a simple value: no '/', '?' or '#'


@functools.lru_cache(maxsize=256)
def _pattern(template: str) -> re.Pattern[str] | None:
    out: list[str] = []
    pos = 0
    for m in _EXPR.finditer(template):
        out.append(re.escape(template[pos : m.start()]))
        op = m.group(1)
        if op == "+":  # reserved expansion: may hold '/', '?'
            out.append(r"[^\s]*")
        elif op == "#":
            out.append(r"(?:#[^\s]*)?")
        elif op == "/":
            out.append(r"(?:/" + _UNRESERVED + r")*")
        elif op == ".":
            out.append(r"(?:\." + _UNRESERVED + r")*")
        elif op in ("?", "&"):
            out.append(r"(?:[?&][^#\s]*)?")
        elif op == ";":
            out.append(r"(?:;[^/?#\s]*)*")
        else:
            out.append(_UNRESERVED)
        pos = m.end()
    out.append(re.escape(template[pos:]))
    try:
        return re.compile("".join(out))
    except re.error:
        return None


def matches(template: str, uri: str) -> bool:
    """Whether ``uri`` is an expansion of the RFC 6570 ``template`` (case-sensitive, as locked)."""
    p = _pattern(template)
    return p is not None and p.fullmatch(uri) is not None
