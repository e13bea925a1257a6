"""Concealment and authority as meaning classes, matched on stems (issue 45, items 3 and 5).

The lexicon's phrases (:mod:`mcplock.lint.lexicon`) catch "do not tell the user"; a writer who
means the same says "there is no need to bring this up", "the user need not hear of it", "leave
it out of your reply", "no hace falta comentarlo con el usuario", "Management has signed off on
this". What they share is not a phrase but a shape, read here on words reduced to their Snowball
stems (``snowballstemmer``, as :mod:`mcplock.lint.stems`):

- **concealment**: a negation that orders or waives (never, do not, no need to, without, need
  not — not the "does not" of a description) before a verb of telling (tell, mention, bring up,
  reveal, comment …) whose object is the thing itself or the person ("it", "this", "any of
  this", "the user", nothing); a person who "need not" know, hear, notice or find out about it; an
  order to keep or leave it out of the reply, between us, to yourself. In Spanish, Portuguese,
  French, Italian and German: the negation and a verb of telling, beside the person or a pronoun
  the verb carries ("comentarlo", "se lo digas", "le dire");
- **authority**: someone in charge (the owner, an admin, management, legal, security, IT) who
  approved, authorised, signed off, cleared or requires it — said as a fact, not as a rule ("the
  owner must approve each payment" asks for approval, "admins can approve" describes a role) —
  and approval said to be given already ("already been approved", "pre-cleared", "approved in
  advance").

Both only ever *add* to an act (:mod:`mcplock.lint.intent`, :mod:`mcplock.lint.novelty`): an order
to conceal alone is ``high``, an act beside either is ``critical``. :func:`meaning` is called when
the lexicon's words did not match, on sentences that hold one of the class's cheap keys.
"""

from __future__ import annotations

import bisect
import functools
import re

from mcplock.lint.addressed import described
from mcplock.lint.pressure import pressure
from mcplock.lint.stems import stem
from mcplock.lint.text import lazy

# the words of each class, written once per language and compared on their stems
_WORDS: dict[str, dict[str, str]] = {
    "English": {
        "tell": "tell told mention say said reveal disclose inform notify alert report raise flag surface explain "
        "bother trouble warn discuss share comment",
        "learn": "know knew hear heard learn learnt notice see saw find found realise realize told",
        "person": "user person human customer requester operator anyone anybody client",
        "approve": "approve authorise authorize consent agree sign clear sanction permit greenlight okay endorse vet "
        "whitelist bless",
        "require": "require mandate oblige demand insist instruct want ask",
        "ordered": "ordered requested directed",  # said as done: "order", "request" are nouns too
        "role": "owner admin administrator management manager team legal security compliance ciso cto ceo company "
        "leadership board department it supervisor boss auditor",
    },
    "Spanish": {
        "tell": "decir digas diga mencionar menciones comentar comentes contar cuentes informar informes avisar "
        "avises revelar reveles hablar hables notificar señalar explicar",
        "person": "usuario usuaria persona cliente",
        "approve": "aprobar aprobado autorizar autorizado consentir firmar validar",
        "role": "propietario dueño administrador equipo dirección gerencia seguridad legal empresa jefe",
    },
    "Portuguese": {
        "tell": "dizer diga mencionar mencione comentar comente contar conte informar informe avisar avise revelar "
        "revele falar fale notificar explicar",
        "person": "usuário usuária utilizador pessoa cliente",
        "approve": "aprovar aprovado autorizar autorizado consentir assinar validar",
        "role": "proprietário dono administrador equipe equipa direção gerência segurança jurídico empresa chefe",
    },
    "French": {
        "tell": "dire dis dites mentionner mentionne signaler signale informer informe prévenir préviens parler "
        "parle révéler révèle avertir évoquer évoque commenter expliquer",
        "person": "utilisateur utilisatrice personne client cliente",
        "approve": "approuver approuvé autoriser autorisé consentir valider validé signer",
        "role": "propriétaire administrateur équipe direction sécurité juridique entreprise responsable chef",
    },
    "Italian": {
        "tell": "dire dirlo dica menzionare menziona commentare commenta raccontare racconta informare informa "
        "avvisare avvisa rivelare rivela parlare parla segnalare spiegare",
        "person": "utente persona cliente",
        "approve": "approvare approvato autorizzare autorizzato consentire firmare validare",
        "role": "proprietario titolare amministratore team squadra direzione sicurezza legale azienda responsabile",
    },
    "German": {
        "tell": "sagen sage erwähnen erwähne mitteilen teile informieren erzählen erzähle melden verraten verrate "
        "ansprechen hinweisen benachrichtigen",
        "person": "benutzer nutzer anwender person kunde kundin",
        "approve": "genehmigen genehmigt freigeben freigegeben zustimmen zugestimmt erlauben erlaubt autorisieren "
        "autorisiert abgesegnet",
        "role": "eigentümer besitzer administrator admin team leitung geschäftsführung sicherheit rechtsabteilung "
        "firma chef",
    },
}
# a negation that orders or waives (not the "does not" of a description), per language
_NEGATION = {
    "English": r"\b(?:do\s+not|don'?t|never|no\s+need\s+(?:for\s+\w+\s+)?to|there'?s\s+no\s+need\s+to|not\s+necessary"
    r"\s+to|unnecessary\s+to|needn'?t|need\s+not|without|avoid|refrain\s+from|must\s+not|mustn'?t|should\s+not"
    r"|shouldn'?t|no\s+point\s+in|not\s+worth|is\s+not\s+to|are\s+not\s+to)\b",
    "Spanish": r"\b(?:no|nunca|jamás|sin|no\s+hace\s+falta|no\s+es\s+necesario|no\s+necesitas|evita)\b",
    "Portuguese": r"\b(?:não|nunca|jamais|sem|não\s+é\s+preciso|não\s+precisa|evite)\b",
    "French": r"\b(?:ne|n['’]|jamais|sans|pas\s+besoin\s+d(?:e\b|['’])|inutile\s+d(?:e\b|['’])"
    r"|évite[zr]?\s+d(?:e\b|['’]))",
    "Italian": r"\b(?:non|mai|senza|non\s+serve|non\s+c['’]è\s+bisogno\s+di|evita\s+di)\b",
    "German": r"\b(?:nicht|nie|niemals|ohne|kein\w*)\b",
}
# the languages whose words are here, and when a language shows (as mcplock.lint.aspects decides)
LANGUAGES = tuple(_WORDS)
_TOKEN = lazy(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
# what may follow a verb of telling for the order to be about the thing itself or the person: a
# pronoun, nothing, or the person with nothing after ("never tell anyone your password" names what)
_PERSON = r"(?:(?:to|with)\s+)?(?:the\s+)?(?:user|person|human|customer|requester|anyone|anybody|them)s?"
_NAMED = (
    r"(?:it|this|that|these|those|anything|any\s+of\s+(?:this|it|that|these)|about|of\s+(?:it|this|that)"
    r"|what\s+(?:you|happened|was)|that\s+you|how\s+you|why)\b"
    rf"|{_PERSON}\b(?=\s*(?:$|[.,;:!?)]|(?:about|of|that|this|it|anything|what|how|why|where|when|if|we|you|yet"
    r"|either|at\s+all|ever|know|see|hear|find|with\s+(?:this|it|that|these|any))\b))"
)
_OBJECT = lazy(rf"^\W*(?:$|[.,;:!?)]|{_NAMED})", re.I)
# "without" takes a gerund that names what or whom ("without telling anyone"; "without warning" is a manner)
_OBJECT_NAMED = lazy(rf"^\s+(?:{_NAMED})", re.I)
# "bring it up", "bring this up with the user", "bring up this" (not "bring up deleted notes": shows them)
_BROUGHT = lazy(
    r"^\s+(?:(?:it|this|that|these|them|any\s+of\s+(?:this|it)|anything)\s+up\b|up\s*(?:$|[.,;:!?)]|(?:with|to)"
    r"\s+(?:the\s+)?(?:user|person|human|customer|them)\b|(?:this|it|that)\b))",
    re.I,
)


# a person who need not learn of it (English)
_NEEDLESS = lazy(
    r"\b(?:need\s+not|needn'?t|(?:does|do)\s*(?:not|n'?t)\s+(?:ever\s+)?need\s+to|has\s+no\s+need\s+to|must\s+not"
    r"|mustn'?t|should\s+not|shouldn'?t|is\s+not\s+to|never\s+needs?\s+to)\s+(?:ever\s+)?(?:be\s+)?",
    re.I,
)
# an order to keep it out of sight (English): keep/leave/hold it … between us, out of the reply
_KEPT = lazy(
    r"\b(?:keep|leave|hold|omit|exclude)\s+(?:it|this|that|these|them|all\s+(?:of\s+)?this|any\s+of\s+this)\s+"
    r"(?:\w+\s+)?(?:between\s+(?:us|ourselves|you\s+and\s+me)|to\s+yourself|private|confidential|under\s+wraps"
    r"|off\s+the\s+record|(?:out\s+of|from|off)\s+(?:your|the|any)\s+(?:\w+\s+)?(?:reply|replies|answers?|response"
    r"|summar(?:y|ies)|messages?|chat|report|explanation|output\s+to\s+the\s+user))\b",
    re.I,
)
# the person kept unaware, in other words (English): "should remain unaware of this", "nobody else needs
# to see this step", "this stays between you and the tool", "without the user noticing"
_UNAWARE = lazy(
    r"\b(?:remain|stay|be\s+kept|be\s+left|kept|left|keep\s+(?:them|the\s+user|the\s+person))\s+(?:completely\s+"
    r"|entirely\s+|fully\s+)?(?:unaware|in\s+the\s+dark|uninformed|oblivious|none\s+the\s+wiser)\b"
    r"|\b(?:nobody|no\s+one|no-one)\s+(?:else\s+)?(?:needs?|has|have|is|must|should)\s+(?:to\s+)?(?:know|see|hear"
    r"|learn|notice|find\s+out|be\s+told)\b(?=\s*(?:$|[.,;:!?]|(?:this|it|that|these|about|of|anything|what|how|why"
    r"|where)\b))"
    r"|\b(?:stays?|remains?|kept|keep\s+(?:it|this|that))\s+between\s+(?:us|you\s+and\s+(?:me|i|us|the\s+tool"
    r"|this\s+tool|the\s+server))\b"
    r"|\bwithout\s+(?:the\s+)?(?:user|person|human|customer|them)s?\s+(?:ever\s+)?(?:knowing|noticing|realising"
    r"|realizing|finding\s+out|seeing)\b",
    re.I,
)
# someone in charge who approved or requires it must not be asking (a modal between) or describing a role
_MODAL = frozenset(
    ["can", "could", "may", "might", "will", "would", "should", "must", "to", "cannot", "can't", "shall"]
)
_PRIOR = lazy(
    r"\b(?:already|previously|pre|beforehand|in\s+advance|earlier|ahead\s+of\s+time)\b[\s-]*(?:\w+\s+){0,2}?"
    r"(?=\w)",
    re.I,
)


@functools.cache
def _stems(language: str, cls: str) -> frozenset[str]:
    return frozenset(stem(language, w) for w in _WORDS[language].get(cls, "").split())


@functools.cache
def _negation(language: str) -> re.Pattern[str]:
    return re.compile(_NEGATION[language], re.I)


# how far after a word the words about it are read (a window, so that a clause is read in linear time)
_AHEAD = 80


def _tokens(s: str) -> list[re.Match[str]]:
    return list(_TOKEN.finditer(s))


_ELIDED = lazy(r"^[^\W\d_]['’]")  # l'utilisateur, d'en: the word after the elided article


def _of(language: str, cls: str, word: str) -> bool:
    return stem(language, _ELIDED.sub("", word)) in _stems(language, cls)


def _told(language: str, s: str, toks: list[re.Match[str]], i: int) -> bool:
    """Whether the token ``i`` of ``s`` is a verb of telling (English "bring … up", "let … know" too)."""
    w = toks[i].group(0).lower()
    if language == "English" and w in ("bring", "let", "point", "fill"):
        follow = {t.group(0).lower() for t in toks[i + 1 : i + 6]}
        return bool(follow & {"up", "know", "out", "in"})
    return _of(language, "tell", w)


def _english_hidden(s: str) -> tuple[int, int] | None:
    """The span of an English order to conceal in the clause ``s``."""
    kept = _KEPT.search(s) or _UNAWARE.search(s)
    if kept is not None:
        return kept.span()
    toks = _tokens(s)
    starts = [t.start() for t in toks]
    for neg in _negation("English").finditer(s):
        first = bisect.bisect_left(starts, neg.end())  # the five words after the negation, not the whole clause
        for i in range(first, min(first + 5, len(toks))):
            t = toks[i]
            if _told("English", s, toks, i) and _names_it(neg.group(0), t.group(0), s[t.end() : t.end() + _AHEAD]):
                return neg.start(), t.end()
    return _needless(s, toks)


def _names_it(neg: str, verb: str, rest: str) -> bool:
    """Whether the verb of telling ``verb`` (after the negation ``neg``) is about the thing itself or
    the person, judged on what follows it (``rest``)."""
    verb = verb.lower()
    if verb == "bring":
        return _BROUGHT.search(rest) is not None
    if neg.lower() == "without":
        return verb.endswith("ing") and _OBJECT_NAMED.search(rest) is not None
    return _OBJECT.search(rest) is not None


def _needless(s: str, toks: list[re.Match[str]]) -> tuple[int, int] | None:
    """A person who need not know, hear or find out about it ("the user need not hear of it")."""
    for t in toks:
        if not _of("English", "person", t.group(0)):
            continue
        rest = s[t.end() : t.end() + _AHEAD]
        m = _NEEDLESS.match(rest.lstrip()) if rest[:1].isspace() else None
        if m is None:
            continue
        at = t.end() + (len(rest) - len(rest.lstrip())) + m.end()
        verb = _TOKEN.match(s, at)
        if (
            verb is not None
            and _of("English", "learn", verb.group(0))
            and _OBJECT.search(s[verb.end() : verb.end() + _AHEAD])
        ):
            return t.start(), verb.end()
    return None


# the thing itself as a pronoun: carried by the verb ("comentarlo", "decírselo", "dirglielo"), just
# before it in the Romance languages ("ne le dis pas", "no se lo digas"), just after it ("contar isso",
# "ne dis rien"), anywhere in a German clause ("das musst du nicht sagen")
_CARRIED = lazy(r"(?:r|ndo|[aeiíé])(?:se|me|te|gl[ie])?(?:lo|la|los|las|le|les|ne)$", re.I)
_BEFORE = lazy(r"^(?:se|lo|le|la|les|lui|leur|gli|glielo|ne|[dln]['’]en|en)$", re.I)
_AFTER = lazy(r"^(?:isso|isto|aquilo|eso|esto|ello|nada|rien|cela|ça|ciò|questo|niente|nulla)$", re.I)
_GERMAN = frozenset({"es", "das", "dies", "davon", "darüber", "nichts"})


def _carried(language: str, words: list[str], i: int, pronoun: bool) -> bool:
    """Whether the verb of telling ``words[i]`` is about the thing itself (a pronoun, see above;
    ``pronoun``: the clause holds a German one)."""
    if language == "German":
        return pronoun
    if len(words[i]) >= 5 and _CARRIED.search(words[i]) is not None:
        return True
    before = i > 0 and _BEFORE.match(words[i - 1]) is not None
    return before or any(_AFTER.match(w) for w in words[i + 1 : i + 3])


def _other_hidden(language: str, s: str) -> tuple[int, int] | None:
    """The span of an order to conceal in ``s`` in a language other than English: a negation near
    a verb of telling that is about the thing itself, or a waiver ("no hace falta") beside the person."""
    toks = _tokens(s)
    starts = [t.start() for t in toks]
    words = [t.group(0).lower() for t in toks]
    person = any(_of(language, "person", w) for w in words)
    pronoun = not _GERMAN.isdisjoint(words)
    for neg in _negation(language).finditer(s):
        if described(language, s, neg.start()):
            continue
        # the words within a few of the negation (German and Romance put it before or after the verb)
        near = range(bisect.bisect_left(starts, neg.start() - 30), bisect.bisect_left(starts, neg.end() + 40))
        for i in near:
            if not _told(language, s, toks, i):
                continue
            if _carried(language, words, i, pronoun) or (person and " " in neg.group(0).strip()):
                return min(neg.start(), toks[i].start()), max(neg.end(), toks[i].end())
    return None


def _in_charge(language: str, s: str, toks: list[re.Match[str]]) -> tuple[int, int] | None:
    """Someone in charge who approved or requires it, said as a fact ("Management has signed off")."""
    for i, t in enumerate(toks):
        if not _of(language, "role", t.group(0)) or t.group(0) in ("it", "It"):  # the pronoun, not IT
            continue
        for j in range(i + 1, min(i + 5, len(toks))):
            w = toks[j].group(0).lower()
            if w in _MODAL:
                break
            if _did(language, w):
                return t.start(), toks[j].end()
    return None


# the nouns made from verbs of approving and requiring ("the approval queue", "security requirements")
_NOUN = lazy(r"(?:ment|ments|al|als|ation|ations)$")


def _did(language: str, w: str) -> bool:
    """Whether the word ``w`` (lower case) says that someone approved, required or ordered it."""
    if language != "English":
        return _of(language, "approve", w)
    if _NOUN.search(w) is not None:
        return False
    return (
        _of(language, "approve", w) or _of(language, "require", w) or (w.endswith("ed") and _of(language, "ordered", w))
    )


# "this was cleared by the CISO", "has been signed off by legal": approval in the past, by someone
_BY_ROLE = lazy(
    r"\b(?:was|were|has\s+been|have\s+been|had\s+been)\s+(?:already\s+|personally\s+|explicitly\s+)?(\w+)"
    r"(?:\s+off)?\s+by\s+(?:the\s+|our\s+|your\s+)?(?:\w+\s+)?(\w+)",
    re.I,
)


_IN_ADVANCE = lazy(r"\s+(?:in\s+advance|beforehand|ahead\s+of\s+time)\b", re.I)


def _given(language: str, s: str, toks: list[re.Match[str]]) -> tuple[int, int] | None:
    """Approval said to be given already ("already been approved", "pre-cleared", "approved in advance")."""
    if language != "English":
        return None
    for m in _BY_ROLE.finditer(s):
        if _did(language, m.group(1).lower()) and _of(language, "role", m.group(2)):
            return m.span()
    for m in _PRIOR.finditer(s):
        after = _tokens(s[m.start() : m.end() + 40])
        for t in after[1:5]:
            if _of(language, "approve", t.group(0)):
                return m.start(), m.start() + t.end()
    for t in toks:
        if _of(language, "approve", t.group(0)) and _IN_ADVANCE.match(s, t.end()):
            return t.start(), t.end()
    return None


def _span(kind: str, language: str, clause: str) -> tuple[int, int] | None:
    if kind == "conceal":
        return _english_hidden(clause) if language == "English" else _other_hidden(language, clause)
    toks = _tokens(clause)
    return _in_charge(language, clause, toks) or _given(language, clause, toks)


_CLAUSE = lazy(r"[^;:—–()\n]+")
_KEYS = {
    "conceal": lazy(
        r"n['’]t\b|\b(?:not|never|no|need|without|keep|leave|hold|omit|exclude|avoid|refrain|stays?|remain|nobody"
        r"|unaware|sin|nunca|jamás|não|sem"
        r"|ne|n['’]|jamais|sans|pas|inutile|non|mai|senza|nicht|nie|niemals|ohne|kein\w*)\b",
        re.I,
    ),
    "authority": lazy(r"\w", re.I),
}


def meaning(kind: str, s: str, languages: tuple[str, ...]) -> str:
    """The words of ``s`` that conceal (``kind`` "conceal") or claim authority ("authority"), read as
    a meaning class in those of ``languages`` this module knows; '' when none. The trigger ("trigger")
    and urgency ("urgent") classes are :mod:`mcplock.lint.pressure`'s."""
    if kind in ("trigger", "urgent"):
        return pressure(kind, s, languages)
    if _KEYS[kind].search(s) is None:
        return ""
    for language in languages:
        if language not in _WORDS:
            continue
        for clause in _CLAUSE.finditer(s):
            span = _span(kind, language, clause.group(0))
            if span is not None:
                return clause.group(0)[span[0] : span[1]].strip()
    return ""
