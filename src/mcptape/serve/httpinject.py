"""The hard outputs of Streamable HTTP that `serve --listen --inject CASE` plays to a client.

Each case changes one answer: the first case the answer to the first request that is not the
handshake's (`initialize`, `server/discover`), so that the client is connected when it meets it,
the next case the next request's, and so on; the rest of the session is served as recorded. What
each case sends, and what a careful client does with it, is in docs/serve.md (`--inject` over HTTP).
"""

from __future__ import annotations

from dataclasses import dataclass

import orjson


@dataclass(frozen=True)
class HttpCase:
    id: str
    title: str


HTTP_CASES: tuple[HttpCase, ...] = (
    HttpCase("http-wrong-content-type", "a JSON answer sent as text/plain"),
    HttpCase("http-sse-not-json", "an SSE event whose data is not JSON"),
    HttpCase("http-foreign-id", "an SSE event carrying a response to an id the client never sent"),
    HttpCase("http-cut-mid-event", "an SSE stream cut in the middle of the answer's event"),
    HttpCase("http-empty-200", "200 with an empty body"),
    HttpCase("http-redirect", "a 307 redirect to the same path"),
    HttpCase("http-session-changes", "an answer carrying another Mcp-Session-Id"),
)
HTTP_CASE_IDS = tuple(case.id for case in HTTP_CASES)
HANDSHAKE = ("initialize", "server/discover")
NOT_JSON = b"mcptape: this event is not JSON"
FOREIGN_ID = "mcptape-foreign-id"
REDIRECTED = "mcptape-redirected=1"


class HttpInjector:
    """Which case applies to which request: `take(method)` gives the case for this request's answer
    (the cases in the order given, one a request, from the first request past the handshake)."""

    def __init__(self, cases: list[str]) -> None:
        self.waiting = [case for case in cases if case in HTTP_CASE_IDS]
        self.applied: list[str] = []

    def take(self, method: object) -> str | None:
        if not self.waiting or method in HANDSHAKE or not isinstance(method, str):
            return None
        case = self.waiting.pop(0)
        self.applied.append(case)
        return case


def events_before(case: str | None) -> list[bytes]:
    """The SSE events an injected case sends before the recorded answer."""
    if case == "http-sse-not-json":
        return [b"event: message\r\ndata: " + NOT_JSON + b"\r\n\r\n"]
    if case == "http-foreign-id":
        stray = orjson.dumps({"jsonrpc": "2.0", "id": FOREIGN_ID, "result": {}})
        return [b"event: message\r\ndata: " + stray + b"\r\n\r\n"]
    return []
