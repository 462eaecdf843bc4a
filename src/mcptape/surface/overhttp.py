"""The `Lines` of a Streamable HTTP server: each line sent is one POST, the JSON-RPC messages its
answer carries (a JSON body, or the events of an SSE stream, read with the one SSE decoder of
`transcript.wire`) are the lines read back. The session id the server gives (`Mcp-Session-Id`) and
the negotiated protocol version (`MCP-Protocol-Version`) go on every later request, as the
transport says; `close` ends the session with a DELETE. Nothing but the listing is sent."""

from __future__ import annotations

import collections
import http.client
import re
import ssl
import time
from urllib.parse import urlsplit

import orjson

from mcptape.surface.live import Gone, ListingError
from mcptape.textsafe import escape_controls
from mcptape.transcript.wire import SSE_TYPE, SseDecoder, carried_line, is_json_type, media_type

MAX_BODY = 64 << 20
ACCEPT = "application/json, text/event-stream"
_HEADER_VALUE = re.compile(r"[!-~]{1,128}")  # what may go back as MCP-Protocol-Version


class HttpLines:
    """One MCP session with the server at `url` (http or https), each POST waiting `timeout` s."""

    def __init__(self, url: str, timeout: float) -> None:
        try:  # urlsplit raises on a bracket left open, .port on a port that is no port
            parts = urlsplit(url)
            port = parts.port
        except ValueError:
            parts, port = urlsplit(""), None
        sendable = url.isascii() and url.isprintable() and " " not in url  # in a request line
        if parts.scheme not in ("http", "https") or not parts.hostname or not sendable:
            raise ListingError(
                f"--url {escape_controls(url)} is not an http:// or https:// URL http.client can send",
                hint="e.g. http://127.0.0.1:8000/mcp (percent-encode spaces and non-ASCII text)",
            )
        self.url = re.sub(r"//[^/?#]*@", "//***@", url)  # for messages: a password is never shown
        self.https = parts.scheme == "https"
        self.host = parts.hostname
        self.port = port or (443 if self.https else 80)
        self.target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self.timeout = timeout
        self.session: str | None = None
        self.version: str | None = None
        self.queue: collections.deque[bytes] = collections.deque()

    def _connection(self) -> http.client.HTTPConnection:
        if self.https:
            return http.client.HTTPSConnection(
                self.host, self.port, timeout=self.timeout, context=ssl.create_default_context()
            )
        return http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": ACCEPT}
        if self.session is not None:
            headers["Mcp-Session-Id"] = self.session
        if self.version is not None:
            headers["MCP-Protocol-Version"] = self.version
        return headers

    def send(self, data: bytes) -> None:
        """POST one message; queue the messages the answer carries."""
        connection = self._connection()
        try:
            connection.request("POST", self.target, body=data, headers=self._headers())
            response = connection.getresponse()
            self._read(response, _request_id(data))
        except TimeoutError:
            raise ListingError(
                f"{escape_controls(self.url)} did not answer within {self.timeout:g} s"
            ) from None
        except (OSError, http.client.HTTPException) as exc:
            raise ListingError(
                f"cannot reach {escape_controls(self.url)}: {escape_controls(str(exc))}"
            ) from None
        except ValueError as exc:  # a header value the server gave that http.client will not send
            raise ListingError(
                f"{escape_controls(self.url)} gave a header value that cannot be sent back: "
                f"{escape_controls(str(exc))[:200]}"
            ) from None
        finally:
            connection.close()

    def _read(self, response: http.client.HTTPResponse, rid: object) -> None:
        """Queue what the answer carries; an SSE stream is read until the answer to `rid` (a server
        that keeps the stream open after it is not waited on)."""
        session = response.getheader("Mcp-Session-Id")
        if session and self.session is None:
            self.session = session
        media = media_type(response.getheader("Content-Type"))
        if response.status == 202:
            return
        if response.status >= 300 and not is_json_type(media):
            body = response.read(200)
            raise ListingError(
                f"{escape_controls(self.url)} answered HTTP {response.status}: "
                f"{escape_controls(body.decode('utf-8', 'replace'))}"
            )
        if media == SSE_TYPE:
            decoder = SseDecoder()
            read = 0
            deadline = time.monotonic() + self.timeout  # a stream that trickles keep-alives forever
            while chunk := response.read1(1 << 16):
                if time.monotonic() > deadline:
                    raise ListingError(
                        f"{escape_controls(self.url)} kept its event stream open for {self.timeout:g} s "
                        "without answering",
                        hint="see --timeout",
                    )
                read += len(chunk)
                answered = False
                for event in decoder.feed(chunk):
                    if event.data.strip():
                        self.queue.append(carried_line(event.data))
                        answered = answered or (rid is not None and _answers(event.data, rid))
                if answered or read > MAX_BODY:
                    break
        elif is_json_type(media):
            body = response.read(MAX_BODY)
            if body.strip():
                self.queue.append(carried_line(body))

    def next_line(self, timeout: float) -> bytes | None:
        if self.queue:
            line = self.queue.popleft()
            self._learn_version(line)
            return line
        return None

    @property
    def ended(self) -> bool:
        """Each answer comes whole with its POST: nothing more will come once the queue is empty."""
        return not self.queue

    def _learn_version(self, line: bytes) -> None:
        """The version initialize's answer negotiated goes on every later request."""
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            return
        result = value.get("result") if type(value) is dict else None
        version = result.get("protocolVersion") if type(result) is dict else None
        if self.version is None and type(version) is str and _HEADER_VALUE.fullmatch(version):
            self.version = version  # a version with a line break or non-Latin-1 text is no header

    def close(self) -> None:
        """End the session (DELETE with its id), best-effort."""
        if self.session is None:
            return
        connection = self._connection()
        try:
            connection.request("DELETE", self.target, headers=self._headers())
            connection.getresponse().read(1 << 16)
        except (OSError, http.client.HTTPException):
            pass
        finally:
            connection.close()


def _request_id(data: bytes) -> object:
    """The id of the request `data` carries (None for a notification or a response)."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    return value.get("id") if type(value) is dict and "method" in value else None


def _answers(data: bytes, rid: object) -> bool:
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return False
    if type(value) is not dict or "method" in value:
        return False
    found = value.get("id")
    return type(found) is type(rid) and found == rid


__all__ = ["Gone", "HttpLines"]
