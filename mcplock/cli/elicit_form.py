"""`mcplock call`: the server's question (``elicitation/create``) asked on the terminal, or
answered off it (declined, or with its defaults under ``--answer-defaults``).

All of the form's text is the server's: it reaches the terminal only through ``safe_text``,
bounded. Field by field, the default pre-filled (Enter takes it); a typed value is checked
locally (type, choices, bounds) and asked again when it does not pass; a blank optional field
without a default is left out. At the end Enter sends the answers, ``n`` declines. Ctrl-C (or
the end of input) at any point cancels the question; the call goes on with the server's answer.
"""

from __future__ import annotations

import json
import signal
import sys
from typing import Any

from rich.text import Text

from mcplock.cli.context import Cli
from mcplock.cli.prompt import read_line
from mcplock.guard import elicit
from mcplock.text.untrusted import safe_text

LIMIT = 300  # characters of the server's text shown per item


def _shown(s: object, style: str = "") -> Text:
    text = s if isinstance(s, str) else json.dumps(s, ensure_ascii=False)
    if len(text) > LIMIT:
        text = text[: LIMIT - 1] + "…"
    return safe_text(text, style, keep_newlines=False)


def _value(f: elicit.Field, v: Any) -> Any:
    return ("yes" if v else "no") if f.kind == "boolean" and isinstance(v, bool) else v


def on_terminal(cli: Cli) -> elicit.Elicitor:
    """The form, asked on this terminal (stderr for the questions, stdin for the answers)."""

    def ask(server: str, params: dict[str, Any]) -> dict[str, Any]:
        form = elicit.parse(params)
        if isinstance(form, str):
            return dict(elicit.DECLINE)
        cli.err.print(
            Text.assemble(("question", "bold"), " from `")
            .append_text(_shown(server))
            .append("`: ")
            .append_text(_shown(form.message))
        )
        old = signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C stops reading at once
        try:
            content = {}
            for f in form.fields:
                v = _ask_field(cli, f)
                if v is not elicit.MISSING:
                    content[f.name] = v
            send = _line(cli, Text("send these answers? [Y = send, n = decline] ")).strip().lower()
        except (KeyboardInterrupt, EOFError):
            cli.err.print(Text("\ncancelled: the server is told you dismissed the question", style="yellow"))
            return dict(elicit.CANCEL)
        finally:
            signal.signal(signal.SIGINT, old)
        if send in ("n", "no"):
            cli.err.print(Text("declined", style="yellow"))
            return dict(elicit.DECLINE)
        return {"action": "accept", "content": content}

    return ask


def _ask_field(cli: Cli, f: elicit.Field) -> Any:
    """One field: its label (and choices), then its prompt until an answer passes."""
    cli.err.print(_label(f))
    if f.kind == "enum":
        for line in _choice_lines(f):
            cli.err.print(line)
    prompt = _prompt(f)
    while True:
        typed = _line(cli, prompt)
        value, complaint = _typed(f, typed) if typed.strip() else _blank(f)
        if complaint is None:
            return value
        cli.err.print(Text(f"    {complaint}", style="yellow"))


def _label(f: elicit.Field) -> Text:
    label = Text("  ").append_text(_shown(f.title or f.name, "bold"))
    if f.title and f.title != f.name:
        label.append(" (").append_text(_shown(f.name)).append(")")
    if f.description:
        label.append(" - ").append_text(_shown(f.description, "dim"))
    return label


def _choice_lines(f: elicit.Field) -> list[Text]:
    lines = []
    for i, choice in enumerate(f.choices, 1):
        line = Text(f"    {i}. ").append_text(_shown(choice))
        if f.labels and f.labels[i - 1] != choice:
            line.append(" - ").append_text(_shown(f.labels[i - 1], "dim"))
        lines.append(line)
    return lines


HINTS = {
    "boolean": "yes/no",
    "integer": "whole number",
    "number": "number",
    "enum": "choice or its number",
    "string": "text",
}


def _prompt(f: elicit.Field) -> Text:
    """What the field takes, its bounds, and what Enter alone does (the default, or a skip)."""
    bounds = [f"{k} {v:g}" for k, v in (("min", f.minimum), ("max", f.maximum)) if v is not None]
    prompt = Text(f"    {HINTS[f.kind]}{', ' + ', '.join(bounds) if bounds else ''}")
    if f.default is not elicit.MISSING:
        prompt.append(" [").append_text(_shown(_value(f, f.default))).append("]")
    elif not f.required:
        prompt.append(" [Enter skips]")
    return prompt.append(": ")


def _blank(f: elicit.Field) -> tuple[Any, str | None]:
    """Enter alone: the default where it passes, nothing for an optional field without one; else
    (None, what to say)."""
    if f.default is not elicit.MISSING:
        why = elicit.problem(f, f.default)
        return (f.default, None) if why is None else (None, f"the default is {why}: type a value")
    if not f.required:
        return elicit.MISSING, None
    return None, "required: type a value (Ctrl-C cancels)"


def _typed(f: elicit.Field, typed: str) -> tuple[Any, str | None]:
    """A typed answer, checked locally (type, choices, bounds): (the value, None), or (None, why not)."""
    try:
        v = elicit.coerce(f, typed)
    except ValueError as e:
        return None, str(e)
    why = elicit.problem(f, v)
    return (v, None) if why is None else (None, why)


def _line(cli: Cli, prompt: Text) -> str:
    cli.err.print(prompt, end="")
    sys.stderr.flush()
    line = read_line()  # Ctrl-C reaches it even when the kernel hands it to another thread
    if line is None:
        raise EOFError
    return line.rstrip("\n")


def off_terminal(cli: Cli, answer_defaults: bool) -> elicit.Elicitor:
    """Off a terminal: decline (said once on stderr), or with ``answer_defaults`` accept with
    the form's defaults (declined when a required field has none), said each time."""
    told = False

    def answer(server: str, params: dict[str, Any]) -> dict[str, Any]:
        nonlocal told
        form = elicit.parse(params)
        head = Text("`").append_text(_shown(server)).append("` asked: ")
        if isinstance(form, str):
            cli.err.print(head.append_text(_shown(form)).append(": declined"))
            return dict(elicit.DECLINE)
        head.append_text(_shown(form.message))
        if answer_defaults:
            content = elicit.complete(form, {})
            if isinstance(content, str):
                cli.err.print(head.append(": declined, ").append_text(_shown(content)))
                return dict(elicit.DECLINE)
            cli.err.print(head.append(": answered with its defaults ").append_text(_shown(content)))
            return {"action": "accept", "content": content}
        if not told:
            told = True
            cli.err.print(
                head.append(": declined (no terminal to ask on; --answer-defaults accepts the form's own defaults)")
            )
        return dict(elicit.DECLINE)

    return answer
