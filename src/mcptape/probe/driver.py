"""A minimal MCP client over the recorder's `Harness`: send requests, wait (bounded) for answers.

Every wait has a deadline; a server that does not answer in time is reported as such, never
waited on forever. The server's stdout frames are judged by the check core's `classify` (this
module parses nothing itself); a request the server sends is answered (`ping` with an empty
result, anything else with "method not found") so that no server stalls on the probe.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import orjson

from mcptape.check.classify import classify
from mcptape.check.model import Frame, Kind, Message
from mcptape.check.protocol import META_VERSION_KEY, STATELESS_VERSION
from mcptape.harness import Harness, ServerGone
from mcptape.probe import live
from mcptape.probe.safety import Reach
from mcptape.textsafe import escape_text

PROPOSED_VERSION = "2025-06-18"
CLIENT_INFO = {"name": "mcptape-probe", "version": "1"}
# The envelope every request of the stateless revision carries in `params._meta`.
STATELESS_META = {
    META_VERSION_KEY: STATELESS_VERSION,
    "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
    "io.modelcontextprotocol/clientCapabilities": {},
}


class Status(StrEnum):
    ANSWERED = "answered"
    TIMEOUT = "timeout"
    GONE = "gone"  # the server closed stdout or stopped reading stdin


@dataclass(frozen=True)
class Reply:
    """How a request ended: its answer (`message`), or a timeout, or the server gone."""

    status: Status
    message: Message | None = None
    waited: float = 0.0

    @property
    def value(self) -> dict[str, Any]:
        value = self.message.value if self.message is not None else None
        return value if isinstance(value, dict) else {}

    @property
    def result(self) -> dict[str, Any] | None:
        result = self.value.get("result")
        return result if isinstance(result, dict) else None

    @property
    def error(self) -> dict[str, Any] | None:
        error = self.value.get("error")
        return error if isinstance(error, dict) else None


def same_id(a: Any, b: Any) -> bool:
    """JSON-RPC id equality: `true` is never `1`, and `9` is not `"9"`."""
    return type(a) is type(b) and a == b


class Driver:
    """Drives one server under a `Harness` with bounded waits."""

    def __init__(
        self,
        harness: Harness,
        timeout: float,
        start_timeout: float | None = None,
        reach: Reach | None = None,
        case: str = "",
    ) -> None:
        self.h = harness
        self.reach = reach  # every frame goes through its guard, and is counted per case
        self.case = case  # the case the frames sent now belong to (the reach table's row)
        self.timeout = timeout
        self.start_timeout = max(timeout, start_timeout or timeout)  # the first answer waits for start-up
        self.version: str | None = None
        self.stateless = False
        self.answered: list[Any] = []  # the id of every response seen, in order (None: a null id)

    # -- sending ---------------------------------------------------------------------------
    def send(self, data: bytes) -> Status | None:
        """Write bytes to the server: None once written, GONE when it is gone, TIMEOUT when it stopped
        reading (the write did not complete within the timeout; it is abandoned, and ends when the
        harness stops the server). A frame naming a tool the probe may not call is never written
        (`safety.UnsafeFrame`)."""
        if self.reach is not None:
            self.reach.sent(self.case, data)
        outcome: list[Status | None] = []

        def write() -> None:
            try:
                self.h.send(data)
                outcome.append(None)
            except ServerGone:
                outcome.append(Status.GONE)

        writer = threading.Thread(target=write, name="mcptape-probe-send", daemon=True)
        writer.start()
        writer.join(self.timeout)
        return outcome[0] if outcome else Status.TIMEOUT

    def send_json(self, message: Any) -> Status | None:
        return self.send(orjson.dumps(message) + b"\n")

    def request(
        self, method: str, rid: Any, params: dict[str, Any] | None = None, timeout: float | None = None
    ) -> Reply:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None or self.stateless:
            message["params"] = self.with_meta(params or {})
        reply = self.call(message, timeout)
        if method == "tools/list" and self.reach is not None and reply.result is not None:
            tools = reply.result.get("tools")
            self.reach.learn(tools if isinstance(tools, list) else [])
        return reply

    def call(self, message: dict[str, Any], timeout: float | None = None) -> Reply:
        """Send a request object and wait for the answer with its id."""
        if self.stateless:
            message = {**message, "params": self.with_meta(message.get("params") or {})}
        failed = self.send_json(message)
        reply = Reply(failed) if failed is not None else self.wait_for(message["id"], timeout)
        live.started(self.h)  # answered (or never will be): its start-up is over
        return reply

    def notify(self, method: str) -> Status | None:
        return self.send_json({"jsonrpc": "2.0", "method": method})

    def with_meta(self, params: dict[str, Any]) -> dict[str, Any]:
        if not self.stateless:
            return params
        meta = {**STATELESS_META, **(params.get("_meta") or {})}
        return {**params, "_meta": meta}

    # -- waiting ---------------------------------------------------------------------------
    def wait_for(self, rid: Any, timeout: float | None = None) -> Reply:
        """The server's answer to request `rid`, within `timeout` (default: the driver's)."""
        start = time.monotonic()
        deadline = start + (self.timeout if timeout is None else timeout)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return Reply(Status.TIMEOUT, waited=time.monotonic() - start)
            frame = self.h.next_frame(remaining)
            if frame is None:
                if self.h.at_eof:  # every frame was handed out before the end is
                    return Reply(Status.GONE, waited=time.monotonic() - start)
                continue
            message = self._take(frame)
            if message.kind in (Kind.RESPONSE, Kind.ERROR_RESPONSE) and same_id(message.id, rid):
                return Reply(Status.ANSWERED, message, time.monotonic() - start)

    def mark(self) -> int:
        """Where the answers seen so far end: `settle(..., since=mark())` looks only after it."""
        return len(self.answered)

    def settle(self, ids: Sequence[Any], timeout: float, *, since: int = 0) -> bool:
        """Wait, at most `timeout`, until each of `ids` is answered or an error with a null id came
        after `since` (a frame refused whole). True when it did; False at the limit or the end.

        The ping barrier says the server has read a frame, not that it is done with it: a server
        that works concurrently answers the ping while the frame's action still runs."""
        deadline = time.monotonic() + timeout
        while not self._settled(ids, since):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            frame = self.h.next_frame(remaining)
            if frame is None:
                if self.h.at_eof:
                    return False
                continue
            self._take(frame)
        return True

    def _settled(self, ids: Sequence[Any], since: int) -> bool:
        if any(a is None for a in self.answered[since:]):
            return True
        return all(any(same_id(a, i) for a in self.answered) for i in ids)

    def _take(self, frame: Frame) -> Message:
        """Classify one stdout frame: note an answer's id, answer a request of the server."""
        message = classify(frame, self.version)
        if message.kind in (Kind.RESPONSE, Kind.ERROR_RESPONSE):
            self.answered.append(message.id)
        elif message.kind is Kind.REQUEST:
            self._answer_server(message)
        return message

    def _answer_server(self, message: Message) -> None:
        if message.method == "ping":
            self.send_json({"jsonrpc": "2.0", "id": message.id, "result": {}})
        else:
            error = {"code": -32601, "message": f"mcptape probe does not implement {message.method}"}
            self.send_json({"jsonrpc": "2.0", "id": message.id, "error": error})

    # -- the handshakes --------------------------------------------------------------------
    def initialize(self, rid: Any = 1) -> Reply:
        """initialize, then notifications/initialized; learns the negotiated version."""
        params = {"protocolVersion": PROPOSED_VERSION, "capabilities": {}, "clientInfo": CLIENT_INFO}
        reply = self.request("initialize", rid, params, self.start_timeout)
        result = reply.result
        if result is not None:
            version = result.get("protocolVersion")
            self.version = version if isinstance(version, str) else PROPOSED_VERSION
            self.notify("notifications/initialized")
        return reply

    def discover(self, rid: Any = 1) -> Reply:
        """server/discover at the stateless revision; on a result, later requests carry `_meta`."""
        reply = self.request("server/discover", rid, {"_meta": STATELESS_META}, self.start_timeout)
        if reply.result is not None:
            self.version = STATELESS_VERSION
            self.stateless = True
        return reply


def refusal(reply: Reply) -> str | None:
    """Why a call was not a success (an error, `isError`, `input_required`), or None."""
    result = reply.result
    if result is None:
        error = reply.error or {}
        return f"error {error.get('code')}: {escape_text(str(error.get('message')))[:80]}"
    if result.get("isError") is True:
        return "a result with isError: true"
    if result.get("resultType") == "input_required":
        return "input_required (it asks the user first)"
    return None
