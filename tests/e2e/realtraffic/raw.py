"""A raw stdio client for the verdict sweep: JSON-RPC lines written by hand to a real server run
under the installed `mcptape record`, for the mistakes no SDK client makes on purpose (a batch, an
unknown method, a cancel of a request never sent, a switch of revision mid-session)."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from tests.clients import recorded

Answer = dict[str, Any] | list[Any] | None
META = "io.modelcontextprotocol/"


def modern_meta(version: str = "2026-07-28", **extra: Any) -> dict[str, Any]:
    """The `_meta` a 2026-07-28 request carries (the required pair, plus `extra`)."""
    return {f"{META}protocolVersion": version, f"{META}clientCapabilities": {}, **extra}


class Raw:
    """`command` under `mcptape record -o path`; `request` waits for the answer to its id and
    answers the server's own requests with `on_request` (or an empty roots list)."""

    def __init__(self, command: list[str], path: Path, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            recorded(command, path), stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
        )
        self.inbox: queue.Queue[Any] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            try:
                self.inbox.put(json.loads(line))
            except ValueError:
                self.inbox.put({"unreadable": line})

    def send(self, message: Any) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, **({"params": params} if params is not None else {})})

    def wait(self, rid: Any, timeout: float = 10.0) -> Answer:
        """The answer to `rid` (a batch answer holding it, too), or None after `timeout`."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                message = self.inbox.get(timeout=0.05)
            except queue.Empty:
                continue
            if isinstance(message, list):
                if any(isinstance(one, dict) and one.get("id") == rid for one in message):
                    return message
            elif "method" in message and "id" in message:  # the server's request: answered
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": {"roots": []}})
            elif "method" not in message and message.get("id") == rid:
                return dict(message)
        return None

    def request(
        self, rid: Any, method: str, params: dict[str, Any] | None = None, timeout: float = 10.0
    ) -> Answer:
        self.send(
            {
                "jsonrpc": "2.0",
                "id": rid,
                "method": method,
                **({"params": params} if params is not None else {}),
            }
        )
        return self.wait(rid, timeout)

    def handshake(self, version: str, capabilities: dict[str, Any] | None = None, rid: Any = 0) -> Answer:
        answer = self.request(
            rid,
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": capabilities or {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        )
        self.notify("notifications/initialized")
        return answer

    def close(self) -> int:
        """Close the server's stdin (the recorder ends the server) and wait for the recorder."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(20)
