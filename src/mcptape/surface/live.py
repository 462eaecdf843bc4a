"""List a running server's surface without calling any tool: the handshake, then every page of
`tools/list`, and `prompts/list`, `resources/list`, `resources/templates/list` when the server's
capabilities announce them. Nothing else is sent: no `tools/call`, no `prompts/get`, no read.

The conversation runs over a `Lines` transport (the command layer gives the harness of a stdio
server, or `overhttp.HttpLines` for Streamable HTTP): bytes out, the server's lines back. Every line
is classified by the check core (`check.classify`), and every request and answer goes to the same
`Extractor` a transcript's messages go to, so a live listing and a recording of it give one lock.
A request the server sends meanwhile is answered (`ping` with `{}`, anything else with "method not
found") so no server stalls; a wait never exceeds its timeout.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

import orjson

from mcptape.check.classify import classify_line
from mcptape.check.model import Kind as MessageKind
from mcptape.check.model import Message
from mcptape.check.protocol import META_VERSION_KEY, STATELESS_VERSION
from mcptape.errors import MCPTapeError
from mcptape.jsonsafe import dumps
from mcptape.surface.extract import Extractor
from mcptape.surface.model import KINDS, PROMPTS, RESOURCES, TEMPLATES, TOOLS, Kind, Surface
from mcptape.textsafe import escape, escape_controls

PROPOSED_VERSION = "2025-11-25"
CLIENT_INFO = {"name": "mcptape-tools-lock", "version": "1"}
STATELESS_META = {
    META_VERSION_KEY: STATELESS_VERSION,
    "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
    "io.modelcontextprotocol/clientCapabilities": {},
}
MAX_PAGES = 1000
SHOWN = 200  # bytes of an error answer quoted


class Gone(Exception):
    """The server stopped reading, or its output ended (raised by a `Lines.send`)."""


class ListingError(MCPTapeError):
    """A server whose surface could not be listed (it did not answer, or refused tools/list)."""


class Lines(Protocol):
    """A transport to one server: `send` one JSON-RPC line; `next_line` the server's next line
    (None after `timeout`, or at the end: then `ended` is True)."""

    def send(self, data: bytes) -> None: ...

    def next_line(self, timeout: float) -> bytes | None: ...

    @property
    def ended(self) -> bool: ...


class Lister:
    """One listing conversation over `lines` (see the module's docstring)."""

    def __init__(self, lines: Lines, timeout: float, start_timeout: float | None = None) -> None:
        self.lines = lines
        self.timeout = timeout
        self.start_timeout = max(timeout, start_timeout or timeout)
        self.extractor = Extractor()
        self.version: str | None = None
        self.next_id = 0
        self.meta: dict[str, Any] | None = None  # the `_meta` of every request (stateless revision)
        self.no_tools = False  # the server declared no tools capability

    def run(self) -> Surface:
        capabilities = self.handshake()
        kinds = [TOOLS]
        if type(capabilities) is dict:
            kinds += [PROMPTS] if "prompts" in capabilities else []
            kinds += [RESOURCES, TEMPLATES] if "resources" in capabilities else []
        self.no_tools = type(capabilities) is dict and "tools" not in capabilities
        for kind in kinds:
            self.list_all(kind)
        surface = self.extractor.finish()
        if self.no_tools and TOOLS.member not in surface.listed:
            surface.listed.add(TOOLS.member)  # no tools capability, tools/list refused: no tools
        return surface

    def handshake(self) -> Any:
        params = {"protocolVersion": PROPOSED_VERSION, "capabilities": {}, "clientInfo": CLIENT_INFO}
        answer = self.request("initialize", params, self.start_timeout)
        result = answer.get("result")
        if type(result) is not dict:
            refused = _error(answer)
            self.meta = dict(STATELESS_META)  # a server of the stateless revision only
            discovered = self.request("server/discover", {}, self.start_timeout).get("result")
            if type(discovered) is not dict:
                self.meta = None
                raise ListingError(
                    f"the server refused initialize ({refused}) and server/discover",
                    hint="is it an MCP server? see mcptape probe -- CMD",
                )
            self.version = STATELESS_VERSION
            return discovered.get("capabilities")
        version = result.get("protocolVersion")
        self.version = version if type(version) is str else PROPOSED_VERSION
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return result.get("capabilities")

    def list_all(self, kind: Kind) -> None:
        cursor: Any = None
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            params = {} if cursor is None else {"cursor": cursor}
            answer = self.request(kind.method, params, self.timeout)
            result = answer.get("result")
            if type(result) is not dict:
                if kind is TOOLS and not self.no_tools:
                    raise ListingError(f"the server refused tools/list: {_error(answer)}")
                self.extractor.note(f"{kind.method} refused: {_error(answer)}")
                return
            cursor = result.get("nextCursor")
            if type(cursor) is not str:
                return
            if cursor in seen:
                self.extractor.note(
                    f"{kind.method}: nextCursor {escape_controls(cursor)!r} came twice: stopped"
                )
                return
            seen.add(cursor)
        self.extractor.note(f"{kind.method}: stopped after {MAX_PAGES} pages")

    def send(self, message: dict[str, Any]) -> None:
        data = orjson.dumps(message) + b"\n"
        self.extractor.feed(classify_line(data, "in", self.version))
        try:
            self.lines.send(data)
        except Gone:
            raise ListingError(
                f"the server stopped reading before {message.get('method')} was sent"
            ) from None

    def request(self, method: str, params: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send a request and wait, at most `timeout` seconds, for the answer with its id."""
        self.next_id += 1
        rid = self.next_id
        if self.meta is not None:
            params = {**params, "_meta": self.meta}
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            line = self.lines.next_line(max(0.0, remaining)) if remaining > 0 else None
            if line is None:
                if self.lines.ended:
                    raise ListingError(f"the server gave no answer to {method} (its output ended)")
                if time.monotonic() >= deadline:
                    raise ListingError(
                        f"the server did not answer {method} within {timeout:g} s", hint="see --timeout"
                    )
                continue
            message = classify_line(line, "out", self.version)
            self.extractor.feed(message)
            if message.kind is MessageKind.REQUEST:
                self.answer_server(message)
            elif message.kind in (MessageKind.RESPONSE, MessageKind.ERROR_RESPONSE) and _same(
                message.id, rid
            ):
                return message.value if type(message.value) is dict else {}
            elif (
                message.kind is MessageKind.INVALID
                and type(message.value) is dict
                and "method" not in message.value
                and _same(message.value.get("id"), rid)
            ):  # its answer, broken (a result that is an array, an error code that is not a number)
                why = escape_controls(message.problem or "not a JSON-RPC response")
                raise ListingError(f"the server answered {method} with an invalid response: {why}")

    def answer_server(self, message: Message) -> None:
        if message.method == "ping":
            self.send({"jsonrpc": "2.0", "id": message.id, "result": {}})
        else:
            error = {"code": -32601, "message": f"mcptape tools lock does not implement {message.method}"}
            self.send({"jsonrpc": "2.0", "id": message.id, "error": error})


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _error(answer: dict[str, Any]) -> str:
    error = answer.get("error")
    if type(error) is dict:
        message = escape(str(error.get("message")).encode("utf-8", "surrogatepass"), SHOWN)  # "\ud800"
        return f"error {escape_controls(str(error.get('code')))}: {message}"
    return f"an answer without a result: {escape(dumps(answer).encode(), SHOWN)}"


def list_surface(lines: Lines, timeout: float, start_timeout: float | None = None) -> Surface:
    """The surface a running server declares (raises ListingError when it cannot be listed)."""
    return Lister(lines, timeout, start_timeout).run()


__all__ = ["KINDS", "Gone", "Lines", "ListingError", "list_surface"]
