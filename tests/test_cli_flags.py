"""mcplock/cli/flags.py: the command line's values for one server, parsed and checked (no
process: the functions themselves; `add`'s and `inspect`'s end-to-end errors are in
tests/test_cli_usage.py)."""

from __future__ import annotations

import pytest

from mcplock.cli import flags
from mcplock.errors import SecretError, UsageError
from mcplock.lock.spec import Transport

SECRET = "sk-live-0123456789abcdefghijklmnop"


def test_env_and_headers_split_once_and_refuse_a_literal_secret_where_it_would_be_locked():
    assert flags.parse_headers(["X-A:  1 "]) == {"X-A": "1"}
    assert flags.parse_env(["A=b=c"]) == {"A": "b=c"}
    with pytest.raises(SecretError):
        flags.parse_headers([f"Authorization: Bearer {SECRET}"])
    assert flags.parse_headers([f"Authorization: Bearer {SECRET}"], refuse_secrets=False)
    with pytest.raises(SecretError):
        flags.parse_env([f"API_KEY={SECRET}"])
    assert flags.parse_env(["API_KEY=${API_KEY}"]) == {"API_KEY": "${API_KEY}"}
    with pytest.raises(UsageError, match="KEY=VALUE"):
        flags.parse_env(["NOEQUALS"])
    with pytest.raises(UsageError, match="Name: value"):
        flags.parse_headers(["no colon"])


def test_pass_env_takes_names_and_never_echoes_a_value():
    assert flags.parse_pass_env(["B", "A", "B"]) == ("A", "B")
    with pytest.raises(UsageError) as e:
        flags.parse_pass_env([f"TOKEN={SECRET}"])
    assert SECRET not in e.value.message and "TOKEN=…" in e.value.message
    with pytest.raises(UsageError) as e:
        flags.parse_pass_env([SECRET])
    assert SECRET not in e.value.message


def test_transport_follows_the_target_and_args_refuse_secrets():
    assert flags.check_transport(None, remote=True) is Transport.HTTP
    assert flags.check_transport(None, remote=False) is Transport.STDIO
    assert flags.check_transport("sse", remote=True) is Transport.SSE
    with pytest.raises(UsageError, match="is not for a URL"):
        flags.check_transport("stdio", remote=True)
    with pytest.raises(UsageError, match="needs a URL"):
        flags.check_transport("http", remote=False)
    flags.check_args(["--port", "3000"])
    with pytest.raises(SecretError):
        flags.check_args([f"--token={SECRET}"])
