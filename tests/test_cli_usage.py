"""Usage errors read as usage errors: click's own message (or mcplock's), exit 2, never
"a bug"; and the inspect options that used to be dropped silently."""

from __future__ import annotations

import json

import pytest

from mcplock.cli.app import run

from lockdata import make_lock


def _run(capsys, *args: str) -> tuple[int, str, str]:
    code = run(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _usage(code: int, err: str, *words: str) -> None:
    assert code == 2, err
    for w in words:
        assert w in err, err
    assert "bug" not in err and "unexpectedly" not in err and "Traceback" not in err


@pytest.mark.parametrize(
    "args, words",
    [
        (["list", "--bogus"], ["No such option: --bogus"]),  # unknown option
        (["bogus"], ["No such command 'bogus'"]),  # unknown command
        (["auth", "bogus"], ["No such command 'bogus'"]),  # unknown subcommand
        (["list", "--format"], ["Option '--format' requires an argument"]),  # missing option value
        (["show"], ["Missing argument"]),  # missing argument
        (["diff", "--timeout", "soon"], ["Invalid value for '--timeout'"]),  # a value of the wrong type
        (["list", "--format", "xml"], ["unknown format `xml`"]),  # a choice not offered
        (["approval", "docs/search_docs", "sometimes"], ["always|never"]),
    ],
)
def test_usage_errors_are_not_bugs(capsys, args, words):
    make_lock()
    code, _, err = _run(capsys, *args)
    _usage(code, err, *words)


def test_usage_errors_through_the_console_script(cli):
    r = cli("list", "--bogus")
    _usage(r.returncode, r.stderr, "No such option: --bogus", "Usage: mcplock list")


def test_no_command_shows_the_help(capsys):
    code, out, err = _run(capsys)
    assert code == 2 and "Commands" in out + err and "bug" not in out + err


@pytest.mark.parametrize(
    "args, words",
    [
        (["inspect", "--header", "Authorization Bearer x", "http://127.0.0.1:9/mcp"], ["--header takes 'Name: value'"]),
        (["inspect", "--header", ": value", "http://127.0.0.1:9/mcp"], ["--header takes 'Name: value'"]),
        (["inspect", "--env", "NOVALUE", "--", "python", "-c", "pass"], ["--env takes KEY=VALUE"]),
        (["inspect", "--transport", "stdio", "http://127.0.0.1:9/mcp"], ["--transport stdio is not for a URL"]),
        (["inspect", "--transport", "smoke", "http://127.0.0.1:9/mcp"], ["--transport smoke is not for a URL"]),
        (["inspect", "--transport", "sse", "--", "python", "-c", "pass"], ["--transport sse needs a URL"]),
        (["inspect", "--env", "A=1", "http://127.0.0.1:9/mcp"], ["--env is for stdio servers"]),
        (["inspect", "--header", "A: 1", "--", "python", "-c", "pass"], ["--header is for remote servers"]),
        (["add", "web", "http://127.0.0.1:9/mcp", "--transport", "stdio"], ["--transport stdio is not for a URL"]),
    ],
)
def test_inspect_and_add_refuse_malformed_options(capsys, args, words):
    code, _, err = _run(capsys, *args)
    _usage(code, err, *words)


def test_usage_error_in_json_mode_is_json(capsys):
    code, out, _ = _run(capsys, "inspect", "--format", "json", "--header", "nocolon", "http://127.0.0.1:9/mcp")
    doc = json.loads(out)
    assert code == 2 and doc["command"] == "inspect" and doc["error"]["code"] == "usage"


def test_runs_share_no_state(capsys):
    """A JSON-mode run leaves nothing behind for the next run (no module-level state)."""
    make_lock()
    assert _run(capsys, "list", "--format", "json")[0] == 0
    code, out, err = _run(capsys, "show", "nope")
    assert code == 2 and out == "" and "no server `nope`" in err
