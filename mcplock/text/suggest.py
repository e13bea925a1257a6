"""Did you mean …? — the one place a mistyped server or item name finds the name meant
(issue 42.12): every command that takes a server, a tool or another item by name asks here.

The name meant is the one that differs only in case, else the closest by difflib's ratio (0.75 or
more: ``memroy`` → ``memory``, ``serch_docs`` → ``search_docs``; nothing for a name that merely
shares a few letters). Linear in the names offered; nothing is suggested among more than
:data:`MAX_CANDIDATES` (a lock does not have that many servers or tools of one server).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

CUTOFF = 0.75
MAX_CANDIDATES = 5000


def closest(word: str, candidates: Iterable[str]) -> str | None:
    """The candidate ``word`` is most likely a mistyping of, or None."""
    import difflib

    names = [c for c in candidates if c != word]
    if not word or not names or len(names) > MAX_CANDIDATES:
        return None
    folded = [c for c in names if c.casefold() == word.casefold()]
    if folded:
        return folded[0]
    got = difflib.get_close_matches(word, names, n=1, cutoff=CUTOFF)
    return got[0] if got else None


def did_you_mean(word: str, candidates: Iterable[str], shown: Callable[[str], str] = lambda c: c) -> str | None:
    """``did you mean `NAME`?`` for the closest candidate (as ``shown`` spells it), or None."""
    from mcplock.text.untrusted import visible

    got = closest(word, candidates)
    return f"did you mean `{visible(shown(got), keep_newlines=False)}`?" if got is not None else None
