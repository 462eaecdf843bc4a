"""The session and status rules' table of Streamable HTTP exchanges (test_hr_table.py runs it,
test_hr_cases.py builds its harder cases from its pieces)."""

from __future__ import annotations

import orjson

from tests.check.rules.transport import (
    INIT,
    INIT_OK,
    LIST,
    OK_JSON,
    answer,
    call,
    call_headers,
    modern,
    post,
    sse,
)

Exchanges = list[tuple[bytes, bytes]]

SID = "mcp-session-id: abc\r\n"
VERSION = {"MCP-Protocol-Version": "2025-11-25"}
IN_SESSION = {"Mcp-Session-Id": "abc", **VERSION}
OPEN: Exchanges = [(post(INIT), answer("200 OK", "application/json", INIT_OK, SID))]
ACCEPTED = answer("202 Accepted", None, b"")
NOT_FOUND = answer(
    "404 Not Found", "application/json", b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}'
)


def request_of(method: str, target: str = "/mcp", headers: dict[str, str] | None = None) -> bytes:
    head = {"Host": "127.0.0.1:9", "Accept": "text/event-stream", **(headers or {})}
    return (
        f"{method} {target} HTTP/1.1\r\n".encode()
        + b"".join(f"{k}: {v}\r\n".encode() for k, v in head.items())
        + b"\r\n"
    )


def progress(token: int, value: int) -> bytes:
    return orjson.dumps(
        {
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": token, "progress": value},
        }
    )


def legacy_result(rid: int) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", "id": rid, "result": {"content": []}})


def elicit(rid: int) -> bytes:
    return orjson.dumps(
        {"jsonrpc": "2.0", "id": rid, "method": "elicitation/create", "params": {"message": "ok?"}}
    )


def errored(rid: int | None, code: int) -> bytes:
    body: dict[str, object] = {"jsonrpc": "2.0", "error": {"code": code, "message": "no"}}
    if rid is not None:
        body["id"] = rid
    return orjson.dumps(body)


def legacy_call(rid: int, token: int | None = None) -> dict[str, object]:
    params: dict[str, object] = {"name": "steps", "arguments": {}}
    if token is not None:
        params["_meta"] = {"progressToken": token}
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}


GET_STREAM = request_of("GET", headers=IN_SESSION)
WELL_KNOWN = request_of("GET", "/.well-known/oauth-protected-resource", {"Accept": "application/json"})
DISCOVER, DISCOVER_HEADERS = modern("server/discover")
DISCOVERED = answer(
    "200 OK",
    "application/json",
    orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete"}}),
)
UNKNOWN, UNKNOWN_HEADERS = modern("tools/frobnicate", 2)
OLD_META = {"io.modelcontextprotocol/protocolVersion": "1900-01-01"}
OLD = {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": OLD_META}}
OLD_HEADERS = {"MCP-Protocol-Version": "1900-01-01", "Mcp-Method": "tools/list"}


def json_answer(status: str, body: bytes, extra: str = "") -> bytes:
    return answer(status, "application/json", body, extra)


LOG = orjson.dumps(
    {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}}
)


CASES: dict[str, tuple[Exchanges, list[tuple[str, int]]]] = {
    # "The session ID MUST only contain visible ASCII characters (ranging from 0x21 to 0x7E)."
    "session-id-with-spaces": (
        [(post(INIT), json_answer("200 OK", INIT_OK, "mcp-session-id: hr session 1\r\n"))],
        [("http-session-id-chars", 1)],
    ),
    "session-id-not-ascii": (
        [(post(INIT), json_answer("200 OK", INIT_OK, "mcp-session-id: s\u00e9ance\r\n"))],
        [("http-session-id-chars", 1)],
    ),
    "session-id-visible-ascii": (
        [(post(INIT), json_answer("200 OK", INIT_OK, "mcp-session-id: a-Z_0~!{}\r\n"))],
        [],
    ),
    # "... after which it MUST respond to requests containing that session ID with HTTP 404 Not Found."
    "ended-session-served": (
        [
            *OPEN,
            (request_of("DELETE", headers=IN_SESSION), ACCEPTED),
            (post(LIST, headers=IN_SESSION), OK_JSON),
        ],
        [("http-ended-session-served", 3)],
    ),
    "ended-session-refused-404": (
        [
            *OPEN,
            (request_of("DELETE", headers=IN_SESSION), ACCEPTED),
            (post(LIST, headers=IN_SESSION), NOT_FOUND),
        ],
        [],
    ),
    "delete-refused-405-session-lives": (
        [
            *OPEN,
            (request_of("DELETE", headers=IN_SESSION), answer("405 Method Not Allowed", None, b"")),
            (post(LIST, headers=IN_SESSION), OK_JSON),
        ],
        [],
    ),
    # "clients ... MUST include it in the MCP-Session-Id header on all of their subsequent HTTP requests."
    # (Serving such a request is no finding: "Servers that require a session ID SHOULD respond ... with
    # HTTP 400" binds a server that requires one, and one that serves the request does not.)
    "session-missing-refused-400": (
        [*OPEN, (post(LIST, headers=VERSION), json_answer("400 Bad Request", errored(None, -32600)))],
        [("http-session-missing", 2)],
    ),
    "session-missing-served": (
        [*OPEN, (post(LIST, headers=VERSION), OK_JSON)],
        [("http-session-missing", 2)],
    ),
    "oauth-metadata-is-not-the-mcp-endpoint": (
        [
            *OPEN,
            (WELL_KNOWN, json_answer("200 OK", b'{"resource":"x"}')),
            (post(LIST, headers=IN_SESSION), OK_JSON),
        ],
        [],
    ),
    "a-query-string-is-the-same-endpoint": (
        [*OPEN, (request_of("GET", "/mcp?stream=1"), answer("400 Bad Request", None, b""))],
        [("http-session-missing", 2)],
    ),
    "a-request-elsewhere-with-an-ended-session-id": (
        [
            *OPEN,
            (request_of("DELETE", headers=IN_SESSION), ACCEPTED),
            (request_of("GET", "/health", IN_SESSION), json_answer("200 OK", b"{}")),
        ],
        [],
    ),
    "get-without-session": (
        [*OPEN, (request_of("GET"), answer("400 Bad Request", None, b""))],
        [("http-session-missing", 2)],
    ),
    "no-session-assigned": (
        [(post(INIT), json_answer("200 OK", INIT_OK)), (post(LIST, headers=VERSION), OK_JSON)],
        [],
    ),
    "a-new-initialize-has-no-session": ([*OPEN, (post(INIT), json_answer("200 OK", INIT_OK, SID))], []),
    "a-2026-07-28-request-needs-none": ([*OPEN, (post(call, headers=call_headers), OK_JSON)], []),
    # "The server MUST send each of its JSON-RPC messages on only one of the connected streams; that
    # is, it MUST NOT broadcast the same message across multiple streams."
    "server-request-on-two-streams": (
        [
            *OPEN,
            (post(legacy_call(2), headers=IN_SESSION), answer("200 OK", "text/event-stream", sse(elicit(0)))),
            (GET_STREAM, answer("200 OK", "text/event-stream", sse(elicit(0)))),
        ],
        [("http-broadcast", 3)],
    ),
    # (a progress token need only be unique among active requests: two calls one after the other
    # may use the same one, and each call's progress 1 is its own message)
    "a-progress-token-reused-by-the-next-call": (
        [
            *OPEN,
            (
                post(legacy_call(2, 7), headers=IN_SESSION),
                answer("200 OK", "text/event-stream", sse(progress(7, 1), legacy_result(2))),
            ),
            (
                post(legacy_call(3, 7), headers=IN_SESSION),
                answer("200 OK", "text/event-stream", sse(progress(7, 1), legacy_result(3))),
            ),
        ],
        [],
    ),
    "progress-of-a-token-no-request-declared": (
        [
            *OPEN,
            (GET_STREAM, answer("200 OK", "text/event-stream", sse(progress(5, 1)))),
            (GET_STREAM, answer("200 OK", "text/event-stream", sse(progress(5, 1)))),
        ],
        [],
    ),
    "a-resumed-stream-replays": (
        [
            *OPEN,
            (
                post(legacy_call(2, 5), headers=IN_SESSION),
                answer("200 OK", "text/event-stream", sse(progress(5, 1))),
            ),
            (
                request_of("GET", headers={**IN_SESSION, "Last-Event-ID": "1"}),
                answer("200 OK", "text/event-stream", sse(progress(5, 1), legacy_result(2))),
            ),
        ],
        [],
    ),
    "without-sessions-streams-are-not-compared": (
        [
            (post(legacy_call(1)), answer("200 OK", "text/event-stream", sse(elicit(0), legacy_result(1)))),
            (post(legacy_call(2)), answer("200 OK", "text/event-stream", sse(elicit(0), legacy_result(2)))),
        ],
        [],
    ),
    # "If the server does not implement the requested RPC method, it MUST respond with 404 Not Found
    # and a JSON-RPC error with code -32601 (Method not found)."
    "method-not-found-200": (
        [
            (post(DISCOVER, headers=DISCOVER_HEADERS), DISCOVERED),
            (post(UNKNOWN, headers=UNKNOWN_HEADERS), json_answer("200 OK", errored(2, -32601))),
        ],
        [("http-error-status", 2)],
    ),
    "method-not-found-on-an-sse-stream": (
        [
            (post(DISCOVER, headers=DISCOVER_HEADERS), DISCOVERED),
            (
                post(UNKNOWN, headers=UNKNOWN_HEADERS),
                answer("200 OK", "text/event-stream", sse(errored(2, -32601))),
            ),
        ],
        [("http-error-status", 2)],
    ),
    "method-not-found-404": (
        [
            (post(DISCOVER, headers=DISCOVER_HEADERS), DISCOVERED),
            (post(UNKNOWN, headers=UNKNOWN_HEADERS), json_answer("404 Not Found", errored(2, -32601))),
        ],
        [],
    ),
    "method-not-found-from-a-legacy-server": (
        [(post(UNKNOWN, headers=UNKNOWN_HEADERS), json_answer("200 OK", errored(2, -32601)))],
        [],
    ),
    "method-not-found-in-a-legacy-session": (
        [
            *OPEN,
            (post({**LIST, "method": "x/y"}, headers=IN_SESSION), json_answer("200 OK", errored(2, -32601))),
        ],
        [],
    ),
    # "If the server does not implement the requested protocol version ..., it MUST respond with
    # 400 Bad Request and an UnsupportedProtocolVersionError listing its supported versions."
    "unsupported-version-200": (
        [(post(OLD, headers=OLD_HEADERS), json_answer("200 OK", errored(3, -32022)))],
        [("http-error-status", 1)],
    ),
    "unsupported-version-400": (
        [(post(OLD, headers=OLD_HEADERS), json_answer("400 Bad Request", errored(3, -32022)))],
        [],
    ),
    # (schema, MissingRequiredClientCapabilityError) "For HTTP, the response status code MUST be 400."
    "missing-capability-200": (
        [(post(call, headers=call_headers), json_answer("200 OK", errored(1, -32021)))],
        [("http-error-status", 1)],
    ),
    # (an error after other bytes of an SSE stream came after the stream's status, 200, was sent)
    "missing-capability-after-the-stream-started": (
        [
            (
                post(call, headers=call_headers),
                answer("200 OK", "text/event-stream", sse(LOG, errored(1, -32021))),
            )
        ],
        [],
    ),
    "missing-capability-after-a-ping": (
        [
            (
                post(call, headers=call_headers),
                answer("200 OK", "text/event-stream", b": ping\r\n\r\n" + sse(errored(1, -32021))),
            )
        ],
        [],
    ),
    "missing-capability-opening-the-stream": (
        [
            (
                post(call, headers=call_headers),
                answer("200 OK", "text/event-stream", sse(errored(1, -32021), LOG)),
            )
        ],
        [("http-error-status", 1)],
    ),
    "header-mismatch-answered-200-is-one-finding": (
        [
            (
                post(call, headers={**call_headers, "Mcp-Name": "sub"}),
                json_answer("200 OK", errored(1, -32020)),
            )
        ],
        [("http-header-mismatch", 1), ("http-mismatch-accepted", 1)],
    ),
    "header-mismatch-400": (
        [
            (
                post(call, headers={**call_headers, "Mcp-Name": "sub"}),
                json_answer("400 Bad Request", errored(1, -32020)),
            )
        ],
        [("http-header-mismatch", 1)],
    ),
}
