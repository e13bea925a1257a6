"""mcplock.probe.errors in-process: the server's own words in an error body, and what a failed
connection is called (tests/test_probe.py reaches the same through real servers and sockets)."""

from __future__ import annotations

import socket
import ssl
from types import SimpleNamespace

import httpx2
import pytest

from mcplock.lock.spec import ServerSpec
from mcplock.probe.errors import HttpErrors, body_explanation


@pytest.mark.parametrize(
    ("body", "ctype", "words"),
    [
        (b'{"jsonrpc": "2.0", "error": {"code": -1, "message": " no such session "}}', "", "no such session"),
        (b'{"error": "invalid_token", "error_description": "expired"}', "", "expired"),
        (b'{"error": {"code": 1, "message": ""}, "detail": "d"}', "", "d"),  # an empty message: the next field
        (b'{"title": "Forbidden"}', "", "Forbidden"),
        (b'{"other": 1}', "", None),
        (b"[1, 2]", "", None),
        (b"  plain\n words  ", "text/plain", "plain words"),
        (b"<html>login</html>", "", None),
        (b"login page", "text/html; charset=utf-8", None),
        (b"   ", "", None),
    ],
)
def test_the_server_s_own_words(body, ctype, words):
    assert body_explanation(body, ctype) == words


def _errors() -> HttpErrors:
    spec = ServerSpec("api", transport="http", url="https://api.example/mcp")
    return HttpErrors(spec, 5.0, 1 << 20, SimpleNamespace(step="the answer to initialize"))


def _connect_error(cause: BaseException | None, text: str = "boom") -> httpx2.ConnectError:
    e = httpx2.ConnectError(text)
    e.__cause__ = cause
    return e


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (_connect_error(socket.gaierror(-2, "x")), "dns"),
        (_connect_error(None, "[Errno -3] Temporary failure in name resolution"), "dns"),
        (_connect_error(ssl.SSLError(1, "bad")), "tls"),
        (_connect_error(None, "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed"), "tls"),
        (_connect_error(ConnectionRefusedError(111, "refused")), "connect"),
        (httpx2.ReadTimeout("t"), "timeout"),
        (httpx2.UnsupportedProtocol("u"), "config"),
        (httpx2.RemoteProtocolError("r"), "connect"),
    ],
)
def test_what_a_failed_connection_is_called(exc, kind):
    err = _errors().exception(exc, "initialize")
    assert err.kind == kind, err.message
    assert "api" in err.message


def test_a_certificate_that_does_not_verify_is_named_so():
    err = _errors().exception(_connect_error(None, "[SSL: CERTIFICATE_VERIFY_FAILED]"), "initialize")
    assert "certificate verification failed for https://api.example/mcp" in err.message
    refused = _errors().exception(_connect_error(None), "initialize")
    assert refused.message.endswith("connection refused (initialize)") and refused.hint
