"""A text's change word by word: removed and added words marked (coloured, or without colour
git's plain word diff ``[-old-]`` ``{+new+}``, readable in a log or a file), over the bounded
diff of :mod:`mcplock.render.worddiff`. Pure: returns rich ``Text``, all server text through
``safe_text``. Read by a field's change (:mod:`mcplock.render.changes`) and a long document's
line diff (:mod:`mcplock.render.documents`)."""

from __future__ import annotations

import re

from rich.text import Text

from mcplock.render.worddiff import opcodes
from mcplock.text.untrusted import safe_text

REMOVED = "strike red"


ADDED = "bold green"


_TOKENS = re.compile(r"\s+|[^\s]+")


def word_diff(old: str, new: str, *, color: bool = True) -> Text:
    a, b = _TOKENS.findall(old), _TOKENS.findall(new)
    out = Text()
    for op, i1, i2, j1, j2 in opcodes(a, b):  # bounded on any input (mcplock/render/worddiff.py)
        if op == "equal":
            out.append_text(safe_text("".join(a[i1:i2])))
            continue
        if op in ("delete", "replace"):
            gone = "".join(a[i1:i2])
            out.append_text(mark(gone, "[-", "-]", REMOVED, color))
        if op in ("insert", "replace"):
            came = "".join(b[j1:j2])
            out.append_text(mark(came, "{+", "+}", ADDED, color))
    return out


def mark(s: str, left: str, right: str, style: str, color: bool) -> Text:
    t = Text()
    if not color:
        t.append(left)
    t.append_text(safe_text(s, style if color else ""))
    if not color:
        t.append(right)
    return t


def field_head(indent: str, field: str, sep: str) -> Text:
    """``field`` is a key of a server's definition: untrusted."""
    return Text(indent).append_text(safe_text(field, "bold", keep_newlines=False)).append(sep, style="bold")
