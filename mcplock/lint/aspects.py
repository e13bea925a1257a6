"""The lexicon's words searched in a text (docs/severity.md, "the intent model"): which languages of
:mod:`mcplock.lint.lexicon` a text is tried in (:func:`candidates`), each aspect's alternatives
compiled on first use with a literal pre-check derived from the pattern itself (:func:`keys`), so
a sentence is searched only for the words it could hold (:class:`Reader`), and the questions one
aspect answers on its own: which language said it, whether a tool's text says it deletes, whether
a parameter asks for the conversation, what conceals or claims authority.
"""

from __future__ import annotations

import functools
import re

from mcplock.lint.addressed import described
from mcplock.lint.destinations import without_references
from mcplock.lint.lexicon import ASPECTS, LEXICON
from mcplock.lint.text import SENTENCE, excerpt, lazy, visible

# the words that tell a Latin-script language is there (English is always tried); a language in
# its own script is tried when its script is (``script`` in the table)
_MARKERS: dict[str, frozenset[str]] = {
    name: frozenset(words.split())
    for name, words in {
        "Spanish": "el los las del una para que por con cada este esta todos sin su usuario resultados envía "
        "herramienta también",
        "Portuguese": "os da dos das um uma para que com não cada este esta sem você usuário resultados em ao pelo "
        "pela dele ferramenta também",
        "French": "le les la des du une pour que avec chaque sans ce cette cet est vous tu utilisateur résultats "
        "toujours outil votre",
        "German": "der die das und den dem ein eine mit für nicht jedes jede ohne ist sie du benutzer nutzer dieses "
        "diesen dieser immer statt auch von auf im oder bitte werkzeug",
        "Italian": "il lo gli di della del che per con ogni non senza una utente risultati questo questa sempre "
        "strumento",
        "Dutch": "het een van voor met niet elke zonder je gebruiker resultaten",
        "Polish": "się jest nie każdy każdego bez oraz użytkownik że dla przez wszystkie",
        "Turkish": "ve bir bu için ile her değil olarak kullanıcı kullanıcıya sonuçları",
        "Vietnamese": "và của các cho một là với không người dùng mỗi",
        "Indonesian": "dan yang untuk dengan ini itu tidak setiap ke pengguna dari",
        "Swedish": "och att det ett för med inte varje utan är användaren",
    }.items()
}
_WORDS = lazy(r"\w+")


@functools.cache
def _scripts() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((name, re.compile(table["script"])) for name, table in LEXICON.items() if "script" in table)


def candidates(t: str, low: str) -> tuple[str, ...]:
    """The languages of the table worth trying on ``t`` (``low``: its lower case), in table order."""
    found = {"English", *_marked(low)}
    if not t.isascii():
        found.update(_in_script(t))
    return tuple(name for name in LEXICON if name in found)


def _in_script(t: str) -> list[str]:
    """The languages written in a script of their own whose script ``t`` holds."""
    return [name for name, rx in _scripts() if rx.search(t)]


def _marked(low: str) -> list[str]:
    """The Latin-script languages some of whose marker words ``low`` holds."""
    words = set(_WORDS.findall(low))
    return [name for name, markers in _MARKERS.items() if not words.isdisjoint(markers)]


_META = set("\\()[]{}|?*+.^$")


def _skip(p: str, i: int) -> int | None:
    """The index just past the escape or the character class at ``p[i]``; None at any other character."""
    if p[i] == "\\":
        return i + 2
    if p[i] == "[":
        return p.index("]", i + 2 if p[i + 1 : i + 2] == "]" else i + 1) + 1
    return None


def _alternatives(p: str) -> list[str]:
    """The top-level alternatives of the pattern ``p``."""
    out, depth, start, i = [], 0, 0, 0
    while i < len(p):
        skip = _skip(p, i)
        if skip is not None:
            i = skip
            continue
        depth += (p[i] == "(") - (p[i] == ")")
        if p[i] == "|" and depth == 0:
            out.append(p[start:i])
            start = i + 1
        i += 1
    out.append(p[start:])
    return out


def _group_end(p: str, i: int) -> int:
    """The index just past the group opening at ``p[i]``."""
    depth = 0
    while i < len(p):
        skip = _skip(p, i)
        if skip is not None:
            i = skip
            continue
        depth += (p[i] == "(") - (p[i] == ")")
        i += 1
        if depth == 0:
            return i
    return i


def _required_group(alt: str, i: int, end: int) -> frozenset[str] | None:
    """The keys of the group ``alt[i:end]``; None when the group may be absent (``?``, ``*``,
    ``{0,…}``), is a lookaround, or has none of its own."""
    optional = alt[end : end + 1] in ("?", "*") or alt[end : end + 2] == "{0"
    if optional or alt.startswith(("(?<", "(?=", "(?!"), i):
        return None
    return keys(alt[i + 3 : end - 1] if alt.startswith("(?:", i) else alt[i + 1 : end - 1])


def _token(alt: str, i: int) -> tuple[str, int]:
    """What the token at ``alt[i]`` is to a literal — "plain" (a character it holds), "optional"
    (``?``, ``*``, ``{0,…}``: the character before may be absent), "group", or "other" (an escape,
    a class, a count, an anchor …) — and the index just past it."""
    c = alt[i]
    if c == "(":
        return "group", _group_end(alt, i)
    if c == "{":
        return ("optional" if alt.startswith("{0", i) else "other"), alt.index("}", i) + 1
    if c in "?*":
        return "optional", i + 1
    skip = _skip(alt, i)
    if skip is not None:
        return "other", skip
    return ("other" if c in "+.^$|)" else "plain"), i + 1


def _literals(alt: str) -> tuple[list[str], list[frozenset[str]]]:
    """The runs of plain characters (lower case) of the alternative ``alt``, and the keys of each
    of its groups that must match."""
    runs, groups, run, i = [], [], "", 0
    while i < len(alt):
        kind, end = _token(alt, i)
        if kind == "plain":
            run += alt[i].lower()
        else:
            runs.append(run[:-1] if kind == "optional" else run)
            run = ""
            inner = _required_group(alt, i, end) if kind == "group" else None
            if inner is not None:
                groups.append(inner)
        i = end
    runs.append(run)
    return runs, groups


def _alt_keys(alt: str) -> frozenset[str] | None:
    """Literals one of which any match of the alternative ``alt`` holds: its longest run of
    plain characters, else the keys of its first group that must match; None without either."""
    runs, groups = _literals(alt)
    return _most_selective([frozenset({r}) for r in runs if len(r) >= 2] + groups)


def _most_selective(options: list[frozenset[str]]) -> frozenset[str] | None:
    """The option whose shortest literal is longest: the most selective pre-check (None without any)."""
    if not options:
        return None
    return max(options, key=lambda g: (min(map(len, g)), sum(map(len, g)) / len(g)))


def keys(p: str) -> frozenset[str] | None:
    """Lower-case literals one of which is in any text ``p`` matches (a cheap pre-check), or None
    when some alternative has none."""
    out: set[str] = set()
    for alt in _alternatives(p):
        k = _alt_keys(alt)
        if k is None:
            return None
        out |= k
    return frozenset(out)


Piece = tuple[frozenset[str] | None, re.Pattern[str]]


@functools.lru_cache(maxsize=1024)
def _pieces(name: str, aspect: str) -> tuple[Piece, ...]:
    """The top-level alternatives of a language's ``aspect``, each compiled with its pre-check keys:
    a text is searched only for the alternatives whose keys it holds."""
    p = LEXICON[name].get(aspect)
    if p is None:
        return ()
    return tuple((_alt_keys(alt), re.compile(alt, re.I)) for alt in _alternatives(p))


@functools.lru_cache(maxsize=256)
def _union(languages: tuple[str, ...]) -> dict[str, tuple[Piece, ...]]:
    """aspect -> the pieces of every one of ``languages``."""
    return {aspect: tuple(piece for name in languages for piece in _pieces(name, aspect)) for aspect in ASPECTS}


@functools.lru_cache(maxsize=1024)
def _pattern(name: str, aspect: str) -> re.Pattern[str] | None:
    p = LEXICON[name].get(aspect)
    return re.compile(p, re.I) if p is not None else None


_ENGLISH = frozenset(
    [
        "the",
        "and",
        "to",
        "of",
        "you",
        "your",
        "this",
        "that",
        "with",
        "for",
        "is",
        "are",
        "each",
        "every",
        "all",
        "before",
        "after",
    ]
)


def language_of(aspect: str, s: str, languages: tuple[str, ...]) -> str:
    """Which of ``languages`` ``s`` is written in, among those whose ``aspect`` words are in it:
    the one with most of its marker words in ``s`` (table order breaks ties); '' if none."""
    words = set(_WORDS.findall(s.lower()))
    best, score = "", -1
    for name in languages:
        p = _pattern(name, aspect)
        if p is None or p.search(s) is None:
            continue
        n = _marker_score(name, words)
        if n > score:
            best, score = name, n
    return best


def _marker_score(name: str, words: set[str]) -> int:
    """How many of the language ``name``'s marker words are among ``words`` (1 for a language without any)."""
    markers = _ENGLISH if name == "English" else _MARKERS.get(name)
    return len(words & markers) if markers is not None else 1


class Reader:
    """The aspects of one text's candidate languages, searched in its sentences."""

    def __init__(self, languages: tuple[str, ...]):
        self.languages = languages
        self.rx = _union(languages)

    def search(self, aspect: str, s: str, low: str = "") -> re.Match[str] | None:
        low = low or s.lower()
        for ks, rx in self.rx[aspect]:
            if ks is None or any(map(low.__contains__, ks)):
                m = rx.search(s)
                if m is not None and aspect == "conceal" and _stated(s, m):
                    m = next((x for x in rx.finditer(s) if not _stated(s, x)), None)
                if m is not None:
                    return m
        return _meant(aspect, s, self.languages) if aspect in _MEANT else None


def _stated(s: str, m: re.Match[str]) -> bool:
    """Whether the French negation ``m`` matched in ``s`` says what a third person does ("Il ne signale pas
    les erreurs à l'utilisateur" describes the tool), not an order (:func:`mcplock.lint.addressed.described`)."""
    if m.group(0)[:2].lower() not in ("ne", "n'", "n’"):
        return False
    return described("French", s, m.start())


# the aspects also read as meaning classes on stems when the lexicon's words miss (mcplock.lint.meaning)
_MEANT = frozenset({"conceal", "authority", "trigger", "urgent"})


def _meant(aspect: str, s: str, languages: tuple[str, ...]) -> re.Match[str] | None:
    """The words of ``s`` that say ``aspect`` as a meaning class, as a match in ``s`` (None: none)."""
    from mcplock.lint.meaning import meaning

    words = meaning(aspect, s, languages)
    return re.compile(re.escape(words)).search(s) if words else None


def _q(s: str) -> str:
    return "«" + excerpt(s.strip(), 0, 0, 60) + "»"


def contradicts_read_only(name: str, description: str) -> str:
    """What in a tool's ``name`` or ``description`` says it changes or deletes ('' if nothing)."""
    n = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()
    m = re.search(
        r"(?:^|[_\-.])(delete|remove|drop|purge|wipe|erase|destroy|overwrite|truncate|kill|rm)"
        r"(?:$|[_\-.])",
        n,
    )
    if m:
        return f"its name `{name}`"
    first = next(iter(SENTENCE.finditer(description)), None)
    if first is None:
        return ""
    s = first.group(0)
    hit = Reader(candidates(s, s.lower())).search("destroy", s)
    if hit is None or re.search(r"\b(?:not|never|no|without|cannot|can't|won't)\b|\bnicht\b|\bne\b|\bno\b", s, re.I):
        return ""
    return f"its description ({_q(s)})"


def asks_for_context(text: str) -> str:
    """The words of ``text`` that ask for the whole conversation (any language of the table), or ''."""
    r = Reader(candidates(text, text.lower()))
    hit = r.search("whole", text)
    return f"«{visible(hit.group(0))}»" if hit is not None else ""


def concealment_and_authority(t: str) -> tuple[str, str]:
    """The first words of ``t`` (cleaned text) that conceal (an order to, or a stealth adverb) and
    that claim authority or prior consent, in any language of the table: ('', '') when none."""
    r = Reader(candidates(t, t.lower()))
    hide = authority = ""
    for m in SENTENCE.finditer(t):
        bare = without_references(m.group(0))
        if not hide:
            hit = r.search("conceal", bare) or r.search("quiet", bare)
            hide = hit.group(0) if hit is not None else ""
        if not authority:
            hit = r.search("authority", bare)
            authority = hit.group(0) if hit is not None else ""
    return hide, authority
