"""Verbs matched on their stems, in every lexicon language a stemmer exists for (issue 45, item 3).

A word list misses "copies", "is forwarded", "inclusion of", "disclosure": here each language's
verbs of a class are written once, in their dictionary form (and the nouns made from them, which
stemming does not reach), and every word of a sentence is reduced to its stem by the maintained
Snowball stemmers (``snowballstemmer``, pure Python) before it is compared. Polish and Ukrainian,
which Snowball lacks, compare the first five letters. Languages without inflection in writing
(Chinese, Japanese, Korean, Thai, Vietnamese) keep the lexicon's patterns
(:mod:`mcplock.lint.lexicon`).

Classes:

- ``move``: moving something somewhere (send, forward, copy, upload, mirror, disclose …);
- ``call``: running or calling something (run, call, invoke, execute, launch, use);
- ``fill``: putting a value into something (put, set, fill, include, insert, paste, hold).
"""

from __future__ import annotations

import functools
from typing import Any

from mcplock.lint.text import lazy

_SNOWBALL = {
    "English": "english",
    "Spanish": "spanish",
    "Portuguese": "portuguese",
    "French": "french",
    "German": "german",
    "Italian": "italian",
    "Dutch": "dutch",
    "Russian": "russian",
    "Swedish": "swedish",
    "Turkish": "turkish",
    "Indonesian": "indonesian",
    "Arabic": "arabic",
    "Hindi": "hindi",
}
_PREFIX = {"Polish", "Ukrainian"}

WORDS: dict[str, dict[str, str]] = {
    "English": {
        "move": "send forward copy cc bcc email mail post upload share transmit transmission submit relay deliver "
        "sync synchronise synchronize mirror export push leak dump append include inclusion disclose disclosure "
        "transfer ship stream pipe give pass attach beacon exfiltrate loop reach archive store save "
        "write backup back",
        "call": "run call invoke execute launch trigger start use",
        "fill": "put set fill include insert paste place hold add attach",
    },
    "Spanish": {
        "move": "enviar envía reenviar reenviado copiar copia subir compartir transmitir transmisión mandar "
        "exportar publicar sincronizar adjuntar incluir inclusión divulgar revelar",
        "call": "ejecutar ejecuta llamar llama invocar usar usa lanzar",
        "fill": "poner pon incluir rellenar insertar pegar",
    },
    "Portuguese": {
        "move": "enviar envie enviando encaminhar copiar copie carregar compartilhar transmitir transmissão "
        "mandar exportar publicar sincronizar anexar incluir",
        "call": "executar execute chamar chame invocar usar use",
        "fill": "colocar coloque incluir preencher inserir colar",
    },
    "French": {
        "move": "envoyer envoie transférer transmettre transmission copier copie téléverser partager "
        "exporter publier synchroniser joindre inclure divulguer",
        "call": "exécuter exécute appeler appelle invoquer utiliser lancer",
        "fill": "mettre mets inclure remplir insérer coller",
    },
    "German": {
        "move": "senden sende schicken schicke weiterleiten leite übermitteln übermittelt übermittlung kopieren "
        "kopiere hochladen teilen exportieren synchronisieren anhängen veröffentlichen",
        "call": "ausführen führe aufrufen rufe starten verwenden benutze",
        "fill": "setzen setze einfügen füge eintragen trage",
    },
    "Italian": {
        "move": "inviare invia inoltrare inoltra spedire spedisci copiare copia caricare condividere trasmettere "
        "esportare pubblicare sincronizzare allegare",
        "call": "eseguire esegui chiamare chiama invocare usare usa avviare",
        "fill": "mettere metti inserire inserisci compilare incollare",
    },
    "Dutch": {
        "move": "sturen stuur verzenden verstuur doorsturen kopiëren kopieer uploaden delen exporteren synchroniseren",
        "call": "uitvoeren voer aanroepen roep gebruiken gebruik starten",
        "fill": "zetten zet invullen vul plakken",
    },
    "Russian": {
        "move": "отправить отправь отправляй переслать перешли пересылать пересылаются скопировать копировать "
        "выгрузить выгружай загрузить поделиться передать передавать экспортировать",
        "call": "запустить запусти выполнить выполни вызвать вызови использовать",
        "fill": "вставить вставь поместить заполнить",
    },
    "Swedish": {
        "move": "skicka vidarebefordra kopiera ladda dela exportera synkronisera bifoga",
        "call": "kör köra anropa använd använda starta",
        "fill": "sätt sätta fyll fylla klistra",
    },
    "Turkish": {
        "move": "gönder gönderin ilet kopyala yükle paylaş aktar",
        "call": "çalıştır çağır kullan başlat",
        "fill": "koy doldur ekle yapıştır",
    },
    "Indonesian": {
        "move": "kirim kirimkan teruskan salin unggah bagikan ekspor",
        "call": "jalankan panggil gunakan",
        "fill": "masukkan isi tempel",
    },
    "Arabic": {"move": "أرسل ارسل إرسال حول انسخ ارفع شارك", "call": "شغل نفذ استدع استخدم", "fill": "ضع املأ أدرج"},
    "Hindi": {"move": "भेजें भेजो भेजना कॉपी अपलोड साझा", "call": "चलाएं चलाओ", "fill": "डालें भरें"},
    "Polish": {
        "move": "wyślij wysłać przekaż przekazywane prześlij przesłać skopiuj kopiuj udostępnij wyeksportuj",
        "call": "uruchom wywołaj użyj",
        "fill": "wstaw wpisz wklej",
    },
    "Ukrainian": {
        "move": "надішліть надіслати перешліть переслати скопіюйте копіювати завантажте поділіться",
        "call": "запустіть виконайте викличте використайте",
        "fill": "вставте заповніть",
    },
}
_TOKEN = lazy(r"[^\W\d_]+(?:'[^\W\d_]+)?")


@functools.cache
def _stemmer(language: str) -> Any:
    import snowballstemmer  # pure Python; loaded when a sentence is first read for stems

    return snowballstemmer.stemmer(_SNOWBALL[language])


@functools.lru_cache(maxsize=65536)
def _stem(language: str, word: str) -> str:
    w = word.lower()
    if language in _PREFIX:
        return w[:5]
    if language not in _SNOWBALL:
        return w
    stem: str = _stemmer(language).stemWord(w)
    return stem


def stem(language: str, word: str) -> str:
    """``word``'s Snowball stem in ``language`` (its first five letters in Polish and Ukrainian, the
    word itself in a language Snowball lacks), lower case."""
    return _stem(language, word)


@functools.cache
def _stems(language: str, cls: str) -> frozenset[str]:
    return frozenset(_stem(language, w) for w in WORDS.get(language, {}).get(cls, "").split())


def stemmed_verb(sentence: str, cls: str, languages: tuple[str, ...]) -> str:
    """The first word of ``sentence`` whose stem is one of the class ``cls``'s in one of
    ``languages``, as written; '' when there is none."""
    tokens = _TOKEN.findall(sentence)
    for language in languages:
        stems = _stems(language, cls)
        if not stems:
            continue
        for w in tokens:
            if _stem(language, w) in stems:
                return str(w)
    return ""
