"""Whether a negation is an order addressed to the model or a statement about someone else (issue 45
item 7, "honest stays calm"; docs/severity.md, "meaning classes").

French puts "ne … pas" in both: "Ne le signale pas à l'utilisateur" orders, "Il ne signale pas les
erreurs à l'utilisateur" describes what the tool does. An order has no subject before its negation
(it opens the clause, or follows a comma or an adverb: "Surtout, ne dis rien"); a description has one
just before it — a third-person pronoun ("il", "elle", "on", "qui") or a noun after its determiner
("l'outil", "le serveur", "cette fonction"). "Tu"/"vous" address the model and stay orders. The
lexicon's phrases (:mod:`mcplock.lint.aspects`), the instruction patterns
(:mod:`mcplock.lint.instructions`) and the concealment class (:mod:`mcplock.lint.meaning`) all ask
:func:`described` before they count a French negation.
"""

from __future__ import annotations

from mcplock.lint.text import lazy

_SUBJECT = frozenset(["il", "elle", "on", "ils", "elles", "qui", "cela", "ça", "ceci", "celui", "celle", "ceux"])
_DETERMINER = frozenset(
    "le la les ce cet cette ces son sa ses leur leurs notre nos votre un une chaque".split()  # noqa: SIM905
)
_BEFORE_WORD = lazy(r"([^\W\d_]+(?:['’][^\W\d_]+)?)\s+$")


def described(language: str, s: str, at: int) -> bool:
    """Whether the negation at ``s[at]`` belongs to a third-person statement (French): its subject, a
    pronoun or a noun after a determiner ("l'outil", "le serveur"), stands just before it."""
    if language != "French":
        return False
    before = _BEFORE_WORD.search(s[max(0, at - 40) : at])
    if before is None:
        return False
    word = before.group(1).lower()
    if word in _SUBJECT or (len(word) > 2 and word[0] == "l" and word[1:2] in ("'", "’")):
        return True
    prior = _BEFORE_WORD.search(s[max(0, at - 80) : at - len(before.group(0))])
    return prior is not None and prior.group(1).lower() in _DETERMINER
