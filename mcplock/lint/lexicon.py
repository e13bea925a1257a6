"""The intent analysis' words, one table entry per language (docs/severity.md: how to add one).

:mod:`mcplock.lint.intent` reads each added sentence for what it asks the model to do. The
grammar is language-neutral (a verb that moves data, the data it names, a destination; a claim
on another tool's turf; concealment; authority); the words are here. Each entry maps an
*aspect* to a regular expression (alternatives of that language's words and phrases, matched
case-insensitively against the text as the model reads it):

- ``move``: verbs that move data away (send, forward, copy, cc, upload, share, post, report …),
  in the forms an order takes (imperative, infinitive, "must be copied");
- ``data``: what is moved (results, the conversation, messages, files, contacts, credentials …);
- ``secret``: data that is a secret on its own (passwords, API keys, tokens): moving it needs no
  destination to be an act beyond a tool's job;
- ``whole``: the whole conversation or its history (what a parameter the model fills should not
  ask for);
- ``conceal``: an order to keep something from the person ("keep it out of what you tell the
  person", "without telling the user", "the user doesn't need to know");
- ``quiet``: adverbs of stealth (silently, secretly): concealment only beside an act;
- ``authority``: a claim of authority or prior consent (security team, compliance, audit,
  already approved, the owner has agreed, required);
- ``skip``: an order to skip a check or a confirmation;
- ``turf``: a claim on another tool's turf (replaces, supersedes, instead of, deprecated, in
  favour of) — an act only beside ``other``;
- ``other``: another tool or server (another server, the mail server's, the built-in tool);
- ``trigger``: when the order fires (always, before, after, whenever, each time, first);
- ``urgent``: urgency (immediately, right away);
- ``destroy``: verbs and adverbs of destruction (deletes, permanently), for a tool whose text
  contradicts a ``readOnlyHint: true``.

A language lacking an aspect skips it. ``script`` (a character class) is the cheap pre-check of
a language in its own script; a Latin-script language is tried when its words match. Patterns
are compiled on first use (:mod:`mcplock.lint.intent`), never at import.
"""

from __future__ import annotations

from mcplock.lint.lexicon_latin import LATIN
from mcplock.lint.lexicon_scripts import OWN_SCRIPT

# aspects every entry may have (``script`` is a pre-check, not an aspect)
ASPECTS = (
    "move",
    "data",
    "secret",
    "whole",
    "conceal",
    "quiet",
    "authority",
    "skip",
    "turf",
    "other",
    "trigger",
    "urgent",
    "destroy",
)


# the table, one entry per language, in the order that breaks ties (mcplock.lint.aspects.language_of);
# the words are in lexicon_latin.py (Latin-script languages) and lexicon_scripts.py (their own script)
_ORDER = (
    "English",
    "Spanish",
    "Portuguese",
    "French",
    "German",
    "Italian",
    "Dutch",
    "Polish",
    "Russian",
    "Ukrainian",
    "Chinese",
    "Japanese",
    "Korean",
    "Arabic",
    "Persian",
    "Hindi",
    "Turkish",
    "Vietnamese",
    "Indonesian",
    "Thai",
    "Swedish",
)
LEXICON: dict[str, dict[str, str]] = {name: {**LATIN, **OWN_SCRIPT}[name] for name in _ORDER}
