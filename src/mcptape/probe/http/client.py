"""The probe's HTTP client: one request's exact bytes on a fresh connection, its answer read with a
deadline.

The hard inputs of Streamable HTTP are requests a well-behaved client never sends (a body that is
not JSON, a missing Content-Type, a foreign session id...), so the bytes are built here, header by
header, and written on a socket; the answer is read by the recorder's `ResponseReader` (h11, and the
one SSE decoder), which hands over each JSON-RPC message it carries as the `out` line the recorder
writes. Every wait is bounded: an answer not complete by the deadline is reported as such.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from mcptape.check.classify import classify_line
from mcptape.check.model import Kind, Message
from mcptape.recorder.http.clientread import ResponseReader

ACCEPT = "application/json, text/event-stream"
JSON = "application/json"
READ = 1 << 16


@dataclass(frozen=True)
class HttpRequest:
    """A request to the MCP endpoint: method, headers in order (a None value: left out), body."""

    method: str
    headers: Sequence[tuple[str, str | None]]
    body: bytes = b""

    def data(self, host: str, target: str) -> bytes:
        """Its bytes on the wire (HTTP/1.1, `Connection: close`, the body's length)."""
        lines = [f"{self.method} {target} HTTP/1.1", f"Host: {host}"]
        lines += [f"{name}: {value}" for name, value in self.headers if value is not None]
        if self.body or self.method == "POST":
            lines.append(f"Content-Length: {len(self.body)}")
        lines.append("Connection: close")
        return "\r\n".join(lines).encode("latin-1") + b"\r\n\r\n" + self.body


@dataclass
class Answer:
    """What came back: the status (None: no answer in time, or the connection closed first), the
    headers, the JSON-RPC messages it carried, and how the wait ended."""

    status: int | None = None
    headers: list[tuple[str, str]] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    ended: bool = False  # the whole response was read
    timed_out: bool = False
    refused: str | None = None  # the connection could not be made or was reset: why
    waited: float = 0.0

    def header(self, name: str) -> str | None:
        found = None
        for key, value in self.headers:
            if key.lower() == name.lower():
                found = value
        return found

    def answer_to(self, rid: Any) -> Message | None:
        """The response (or error response) carrying id `rid`."""
        for message in self.messages:
            if message.kind in (Kind.RESPONSE, Kind.ERROR_RESPONSE) and _same(message.id, rid):
                return message
            if isinstance(message.value, list):  # a batch answer: its member with that id
                for part in message.value:
                    if isinstance(part, dict) and "method" not in part and _same(part.get("id"), rid):
                        return classify_line(orjson.dumps(part), "out")
        return None

    @property
    def media(self) -> str:
        value = self.header("content-type") or ""
        return value.partition(";")[0].strip().lower()


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def exchange(
    address: tuple[str, int],
    target: str,
    request: HttpRequest,
    timeout: float,
    *,
    until: Any = None,
    head_only: bool = False,
) -> Answer:
    """Send `request` to `address` and read its answer for at most `timeout` seconds: to its end,
    or until the message answering `until` came (an SSE stream kept open after it is not waited
    on), or, `head_only`, until the status line and headers came (a GET's event stream)."""
    started = time.monotonic()
    answer = Answer()

    def on_line(line: bytes) -> None:
        answer.messages.append(classify_line(line, "out"))

    reader = ResponseReader(request.method, on_line)
    host = f"{address[0]}:{address[1]}"
    try:
        sock = socket.create_connection(address, timeout=timeout)
    except OSError as exc:
        answer.refused = exc.strerror or str(exc)
        return answer
    try:
        sock.sendall(request.data(host, target))
        while True:
            remaining = timeout - (time.monotonic() - started)
            if remaining <= 0:
                answer.timed_out = True
                break
            sock.settimeout(remaining)
            chunk = sock.recv(READ)
            if not chunk:
                reader.close()
                break
            reader.feed(chunk)
            if reader.ended or reader.failed:
                break
            if head_only and reader.status is not None:
                break
            if until is not None and answer.answer_to(until) is not None:
                break
    except TimeoutError:
        answer.timed_out = True
    except OSError as exc:
        answer.refused = exc.strerror or str(exc)
    finally:
        sock.close()
    answer.status = reader.status
    answer.headers = reader.headers
    answer.ended = reader.ended
    answer.waited = time.monotonic() - started
    return answer
