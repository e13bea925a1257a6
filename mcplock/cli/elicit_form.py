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
from mcplock.guard import elicit
from mcplock.untrusted import safe_text

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
    label = Text("  ").append_text(_shown(f.title or f.name, "bold"))
    if f.title and f.title != f.name:
        label.append(" (").append_text(_shown(f.name)).append(")")
    if f.description:
        label.append(" - ").append_text(_shown(f.description, "dim"))
    cli.err.print(label)
    if f.kind == "enum":
        for i, choice in enumerate(f.choices, 1):
            line = Text(f"    {i}. ").append_text(_shown(choice))
            if f.labels and f.labels[i - 1] != choice:
                line.append(" - ").append_text(_shown(f.labels[i - 1], "dim"))
            cli.err.print(line)
    bounds = [f"{k} {v:g}" for k, v in (("min", f.minimum), ("max", f.maximum)) if v is not None]
    hint = {
        "boolean": "yes/no",
        "integer": "whole number",
        "number": "number",
        "enum": "choice or its number",
        "string": "text",
    }[f.kind]
    prompt = Text(f"    {hint}{', ' + ', '.join(bounds) if bounds else ''}")
    if f.default is not elicit.MISSING:
        prompt.append(" [").append_text(_shown(_value(f, f.default))).append("]")
    elif not f.required:
        prompt.append(" [Enter skips]")
    prompt.append(": ")
    while True:
        typed = _line(cli, prompt)
        if not typed.strip():
            if f.default is not elicit.MISSING:
                why = elicit.problem(f, f.default)
                if why is None:
                    return f.default
                cli.err.print(Text(f"    the default is {why}: type a value", style="yellow"))
                continue
            if not f.required:
                return elicit.MISSING
            cli.err.print(Text("    required: type a value (Ctrl-C cancels)", style="yellow"))
            continue
        try:
            v = elicit.coerce(f, typed)
        except ValueError as e:
            cli.err.print(Text(f"    {e}", style="yellow"))
            continue
        why = elicit.problem(f, v)
        if why is None:
            return v
        cli.err.print(Text(f"    {why}", style="yellow"))


def _line(cli: Cli, prompt: Text) -> str:
    cli.err.print(prompt, end="")
    sys.stderr.flush()
    line = sys.stdin.readline()
    if not line:
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
