"""Every question mcplock asks a person goes through here, and is answered one way.

At a terminal (stdin and stdout both one) a question is answered with **one key, no Enter**: its
keys are shown in brackets, ``[y/N]``, ``[Y/n]``, ``[a/r/s/A/q/?]``, and Enter takes the capital
letter's answer where there is one. A key that is no answer says which keys are, and asks again.
Off a terminal (a pipe, a script) the same question reads a line: ``y``/``yes``/``n``/``no``, or
the key, then Enter. The one line typed at a terminal is an item's name, to accept an item with
critical findings (docs/review.md, "Answering questions").

A key typed before its question shows is dropped (:func:`mcplock.cli.keys.read_key`): every
answer answers what is on the screen, and the Enter a hand used to line questions adds after
``y`` does not answer the next question. Ctrl-C at any question is a KeyboardInterrupt (waiting:
:mod:`mcplock.cli.waiting`); what each command keeps then is its own to say.
"""

from __future__ import annotations

import sys
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING

from mcplock.cli import keys
from mcplock.cli.waiting import interruptible, wait_readable

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

__all__ = ["choose_key", "confirm", "interruptible", "read_line", "wait_readable"]


def read_line() -> str | None:
    """The line typed (with its newline), or None at the end of input."""
    with interruptible():
        if _stdin_is_terminal():  # a terminal's read gives one line at most: nothing is left buffered
            wait_readable(sys.stdin.fileno())
        line = sys.stdin.readline()
    return line or None


def _stdin_is_terminal() -> bool:
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):  # closed or replaced streams
        return False


def confirm(console: Console, question: str, *, default: bool = False) -> bool:
    """Ask ``question`` (bold, on ``console``; it ends in ``[y/N] `` or ``[Y/n] ``) and read the
    answer: at a terminal one key, ``y`` or ``n``, Enter (or Ctrl-D) for ``default``; off it a
    line, yes for ``y`` or ``yes``, and for Enter alone (or the end of input) when ``default``."""
    from rich.text import Text

    if keys.available():
        choices = {"y": "y", "n": "n", keys.ENTER: ""}
        got = choose_key(console, question, choices, default="", enter="y" if default else "n")
        return got == "y" or (default and not got)
    with interruptible():  # before the question shows: a Ctrl-C typed as soon as it does counts
        console.print(Text(question, style="bold"), end="")
        answer = read_line()
    got = (answer or "").strip().lower()
    return got in ("y", "yes") or (default and not got)


def choose_key(
    console: Console,
    question: str,
    choices: Mapping[str, str],
    *,
    default: str,
    help_key: str | None = None,
    enter: str = "",
) -> str:
    """One key at a terminal (no Enter after it): the answer ``choices`` maps it to; Ctrl-D gives
    ``default``. A key that is none of them says which are, and what Enter does (``enter``), or
    that ``help_key`` lists them; then the question is asked again."""
    from rich.text import Text

    from mcplock.text.untrusted import safe_text

    while True:
        keys.drop_typeahead()
        with interruptible():  # before the question shows: a Ctrl-C typed as soon as it does counts
            console.print(Text(question, style="bold"), end="")
            key = keys.read_key()
        if key == keys.EOF_KEY:
            console.print()
            return default
        console.print(safe_text(key if key != keys.ENTER else "", keep_newlines=False))
        if key in choices:
            return choices[key]
        console.print(how_to_answer(choices, help_key, enter))


def how_to_answer(choices: Collection[str], help_key: str | None = None, enter: str = "") -> Text:
    """After a key that is none of ``choices``: where the keys are explained (``help_key``), else
    which they are and what Enter does (a yes/no question: "press y or n (Enter: n)")."""
    from rich.text import Text

    if help_key is not None:
        return Text(f"{help_key} shows the keys")
    shown = [k for k in choices if k != keys.ENTER]
    said = "press " + (" or ".join(shown) if len(shown) == 2 else ", ".join(shown))
    return Text(said + (f" (Enter: {enter})" if keys.ENTER in choices and enter else ""))
