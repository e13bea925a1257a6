"""mcplock/model/client_capabilities.py, in-process: `--client-capabilities` read and checked."""

from __future__ import annotations

import pytest

from mcplock.errors import UsageError
from mcplock.model.client_capabilities import chosen, parse


def test_parse_reads_none_names_and_one_order():
    assert parse(None) is None
    assert parse(" NONE ") == ()
    assert parse("sampling, roots") == ("roots", "sampling")
    assert parse("elicitation,,roots,roots") == ("roots", "elicitation")


@pytest.mark.parametrize(
    ("text", "named"), [("telepathy", "telepathy"), ("roots,x,y", "x, y"), (" , ", "(empty)"), ("", "(empty)")]
)
def test_parse_refuses_unknown_or_empty_names_and_says_what_to_type(text, named):
    with pytest.raises(UsageError) as err:
        parse(text)
    assert str(err.value) == f"--client-capabilities: unknown capability {named}"
    assert "roots, sampling, elicitation" in (err.value.hint or "")


def test_chosen_prefers_the_run_then_the_lock_then_the_default():
    assert chosen((), ("roots",)) == ()
    assert chosen(None, ["roots"]) == ("roots",)
    assert chosen(None, None) == ("roots", "sampling", "elicitation")
