"""Trigger and urgency as meaning classes, matched on stems (issue 45 items 3 and 5; docs/severity.md).

The lexicon's phrases (:mod:`mcplock.lint.lexicon`) name "whenever", "each time", "immediately";
a writer who means the same says "any time the user brings up money", "every single time",
"todas las veces que", "jedesmal wenn", "instantly", "without any delay", "urgentemente", "sans
tarder", "umgehend". What they share is read here on words reduced to their Snowball stems
(``snowballstemmer``, as :mod:`mcplock.lint.stems`), in English, Spanish, Portuguese, French,
Italian and German:

- **trigger**: a quantifier (each, every, any, cada, toda, chaque, jede, ogni …) within two words
  before a noun of occasion (time, occasion, vez, fois, Mal, volta …) that is not the head of a
  compound ("every time zone", "each time stamp"); a conjunction of recurrence (whenever, "siempre
  que", "sempre que", "immer wenn", "wann immer", "ogniqualvolta", "dès que");
- **urgency**: a word whose stem says haste (immediate, urgent, instant, sofort, unverzüglich,
  umgehend, inmediato, imediato, immédiat, subito …) — in English the adjective only when it is
  not before its noun ("an immediate parent" describes, "this is urgent" presses) —; "without"
  (sin, sem, sans, senza, ohne) before a noun of delay within two words ("without any delay",
  "sin demora", "sans tarder", "ohne Verzögerung"); a few fixed phrases per language ("right
  away", "at once", "tout de suite", "ahora mismo", "cuanto antes", "so schnell wie möglich").

Both only shape the message (``trigger «…»``, ``urgency «…»``), never the severity. The reading
is one pass over a clause's words with a window of two words: linear in the text.
"""

from __future__ import annotations

import functools
import re

from mcplock.lint.stems import stem
from mcplock.lint.text import lazy

_WORDS: dict[str, dict[str, str]] = {
    "English": {
        "each": "each every any all",
        "time": "time times occasion occasions",
        "haste": "immediately immediate urgently urgent urgency instantly instant asap forthwith straightaway hurry",
        "without": "without",
        "delay": "delay delays waiting hesitation hesitating",
    },
    "Spanish": {
        "each": "cada toda todas todo todos cualquier",
        "time": "vez veces ocasión ocasiones momento",
        "haste": "inmediato inmediata inmediatamente urgente urgentemente urgencia enseguida",
        "without": "sin",
        "delay": "demora demoras dilación retraso esperar tardar",
    },
    "Portuguese": {
        "each": "cada toda todas todo todos qualquer",
        "time": "vez vezes ocasião momento",
        "haste": "imediato imediata imediatamente urgente urgentemente urgência",
        "without": "sem",
        "delay": "demora atraso esperar tardar",
    },
    "French": {
        "each": "chaque toute toutes tout",
        "time": "fois occasion moment",
        "haste": "immédiat immédiate immédiatement urgent urgente urgemment urgence instantanément sur-le-champ",
        "without": "sans",
        "delay": "délai délais tarder attendre retard",
    },
    "Italian": {
        "each": "ogni qualunque qualsiasi tutte",
        "time": "volta volte occasione momento",
        "haste": "immediato immediata immediatamente urgente urgentemente urgenza subito istantaneamente",
        "without": "senza",
        "delay": "indugio indugi ritardo ritardi attendere aspettare",
    },
    "German": {
        "each": "jedes jede jeden jeder jedesmal",
        "time": "mal male gelegenheit",
        "haste": "sofort sofortig sofortige unverzüglich umgehend dringend dringlich eilig schnellstmöglich",
        "without": "ohne",
        "delay": "verzögerung aufschub verzug zögern warten",
    },
}
# conjunctions of recurrence and fixed phrases of haste, per language (a few words each)
_PHRASES = {
    "trigger": {
        "English": r"\b(?:whenever|any\s*time|each\s+and\s+every\s+time|from\s+now\s+on)\b",
        "Spanish": r"\b(?:siempre\s+que|cada\s+que|en\s+cuanto)\b",
        "Portuguese": r"\b(?:sempre\s+que|toda\s+vez\s+que|assim\s+que)\b",
        "French": r"\b(?:dès\s+que|chaque\s+fois\s+que|à\s+chaque\s+fois|toutes\s+les\s+fois)\b",
        "Italian": r"\b(?:ogniqualvolta|ogni\s+qualvolta|non\s+appena)\b",
        "German": r"\b(?:immer\s+wenn|wann\s+immer|jedesmal|jederzeit|sobald)\b",
    },
    "urgent": {
        "English": r"\b(?:right\s+(?:away|now)|at\s+once|as\s+soon\s+as\s+(?:possible|you\s+can)|asap)\b",
        "Spanish": r"\b(?:de\s+inmediato|ahora\s+mismo|cuanto\s+antes|lo\s+antes\s+posible)\b",
        "Portuguese": r"\b(?:de\s+imediato|agora\s+mesmo|o\s+quanto\s+antes|o\s+mais\s+rápido\s+possível)\b",
        "French": r"\b(?:tout\s+de\s+suite|dès\s+que\s+possible|au\s+plus\s+vite|sur-le-champ)\b",
        "Italian": r"\b(?:al\s+più\s+presto|il\s+prima\s+possibile|quanto\s+prima)\b",
        "German": r"\b(?:so\s+schnell\s+wie\s+möglich|auf\s+der\s+stelle|ohne\s+weiteres)\b",
    },
}
LANGUAGES = tuple(_WORDS)
_TOKEN = lazy(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
# the heads of compounds a noun of occasion may start ("every time zone"): no trigger
_COMPOUND = frozenset(
    "zone zones stamp stamps series frame frames window windows slot slots unit units limit".split()  # noqa: SIM905
)


@functools.cache
def _stems(language: str, cls: str) -> frozenset[str]:
    return frozenset(stem(language, w) for w in _WORDS[language][cls].split())


@functools.cache
def _phrase(kind: str, language: str) -> re.Pattern[str]:
    return re.compile(_PHRASES[kind][language], re.I)


def _marked(language: str, cls: str, distinct: set[str]) -> set[str]:
    """Those of a clause's ``distinct`` lower-case words that are of the class ``cls`` (each distinct
    word is stemmed once, so a clause of one word repeated costs one look-up per word)."""
    stems = _stems(language, cls)
    return {w for w in distinct if stem(language, w) in stems}


def _trigger(language: str, s: str, toks: list[re.Match[str]], words: list[str]) -> tuple[int, int] | None:
    """A quantifier within two words before a noun of occasion that heads no compound ("each time")."""
    distinct = set(words)
    each = _marked(language, "each", distinct)
    time = _marked(language, "time", distinct) if each else set()
    if not time:
        return None
    for i, w in enumerate(words):
        if w not in each:
            continue
        for j in range(i + 1, min(i + 3, len(toks))):
            if words[j] in time:
                after = words[j + 1] if j + 1 < len(toks) else ""
                if after in _COMPOUND and s[toks[j].end() : toks[j + 1].start()].isspace():
                    break
                return toks[i].start(), toks[j].end()
    return None


def _attributive(s: str, t: re.Match[str]) -> bool:
    """An English adjective before its noun ("the immediate parent", "an urgent ticket"): it describes."""
    w = t.group(0).lower()
    return (
        not w.endswith("ly")
        and w not in ("asap", "forthwith", "straightaway")
        and re.match(r" +[a-z]", s[t.end() : t.end() + 3]) is not None
    )


def _haste(language: str, s: str, toks: list[re.Match[str]], words: list[str]) -> tuple[int, int] | None:
    """A word of haste ("instantly", "urgentemente", "umgehend") or "without" before a noun of delay."""
    distinct = set(words)
    haste = _marked(language, "haste", distinct)
    without = _marked(language, "without", distinct)
    delay = _marked(language, "delay", distinct) if without else set()
    if not haste and not delay:
        return None
    for i, w in enumerate(words):
        if w in haste and not (language == "English" and _attributive(s, toks[i])):
            return toks[i].span()
        if w in without:
            for j in range(i + 1, min(i + 3, len(toks))):
                if words[j] in delay:
                    return toks[i].start(), toks[j].end()
    return None


_CLAUSE = lazy(r"[^;:—–()\n]+")


def pressure(kind: str, s: str, languages: tuple[str, ...]) -> str:
    """The words of ``s`` that say when the order fires (``kind`` "trigger") or press for haste
    ("urgent"), read as a meaning class in those of ``languages`` this module knows; '' when none."""
    known = [language for language in languages if language in _WORDS]
    for language in known:
        phrase = _phrase(kind, language).search(s)
        if phrase is not None:
            return phrase.group(0).strip()
    read = _trigger if kind == "trigger" else _haste
    for clause in _CLAUSE.finditer(s) if known else ():
        c = clause.group(0)
        toks = list(_TOKEN.finditer(c))
        words = [t.group(0).lower() for t in toks]
        for language in known:
            span = read(language, c, toks, words)
            if span is not None:
                return c[span[0] : span[1]].strip()
    return ""
