"""A minimal MCP host for tests: runs `mcplock run NAME` over real pipes and talks JSON-RPC
to it the way Claude Code or Cursor would (newline-delimited, ids of its own)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
from typing import Any

from conftest import MCPLOCK

WAIT = 30.0  # seconds before a test gives up waiting for a message (not a timing assertion)

INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test-host", "version": "1"}}


class Host:
    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        full_env = dict(os.environ)
        full_env.update(env or {})
        self.proc = subprocess.Popen(
            [MCPLOCK, "run", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=full_env
        )
        self.inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.seen: list[dict[str, Any]] = []  # everything read, in order
        self.raw: list[bytes] = []
        self.next_id = 100
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.raw.append(line)
            self.inbox.put(json.loads(line))
        self.inbox.put(None)

    def write(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, *msgs: dict[str, Any]) -> None:
        """Send messages in ONE write."""
        self.write(b"".join(json.dumps(m).encode() + b"\n" for m in msgs))

    def request_msg(self, method: str, params: Any = None) -> dict[str, Any]:
        self.next_id += 1
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        return msg

    def next(self) -> dict[str, Any] | None:
        msg = self.inbox.get(timeout=WAIT)
        if msg is not None:
            self.seen.append(msg)
        return msg

    def wait_for(self, pred: Any) -> dict[str, Any]:
        while True:
            msg = self.next()
            assert msg is not None, f"the guard closed stdout; stderr: {self.stderr()}"
            if pred(msg):
                return msg

    def response(self, rid: Any) -> dict[str, Any]:
        return self.wait_for(lambda m: m.get("id") == rid and "method" not in m)

    def request(self, method: str, params: Any = None) -> dict[str, Any]:
        msg = self.request_msg(method, params)
        self.send(msg)
        return self.response(msg["id"])

    def initialize(self, capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
        params = dict(INIT)
        if capabilities is not None:
            params["capabilities"] = capabilities
        resp = self.request("initialize", params)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return resp

    def call(self, name: str, arguments: Any = None, **params: Any) -> dict[str, Any]:
        return self.request("tools/call", {"name": name, "arguments": arguments or {}, **params})

    def close(self) -> int:
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=WAIT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()

    def stderr(self) -> str:
        if self.proc.poll() is None:
            return "(still running)"
        assert self.proc.stderr is not None
        return self.proc.stderr.read().decode("utf-8", "replace")

    def __enter__(self) -> Host:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
