"""The Streamable HTTP transport rules' table (test_transport_rules.py runs it, test_rules.py counts
HTTP_RULES) and the builders of HTTP exchanges the session and status tables use too."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from pathlib import Path

import orjson

from mcptape.check.analyze import analyze_file

V = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": V}


ACCEPT = "application/json, text/event-stream"  # what a conforming client lists on a POST


def post(body: object, *, headers: Mapping[str, str | None] | None = None, raw: bytes | None = None) -> bytes:
    data = raw if raw is not None else orjson.dumps(body)
    fields = {"Host": "127.0.0.1:9", "Content-Type": "application/json", "Accept": ACCEPT, **(headers or {})}
    head = "".join(f"{k}: {v}\r\n" for k, v in fields.items() if v is not None)
    return f"POST /mcp HTTP/1.1\r\n{head}Content-Length: {len(data)}\r\n\r\n".encode() + data


def modern(method: str, rid: int | None = 1, **params: object) -> tuple[dict[str, object], dict[str, str]]:
    """A 2026-07-28 request (or notification) and the headers a conforming client sends with it."""
    body: dict[str, object] = {"jsonrpc": "2.0", "method": method, "params": {**params, "_meta": META}}
    if rid is not None:
        body["id"] = rid
    headers = {"MCP-Protocol-Version": V, "Mcp-Method": method}
    name = params.get("name", params.get("uri"))
    if isinstance(name, str):
        headers["Mcp-Name"] = name
    return body, headers


def answer(status: str, media: str | None, body: bytes, extra: str = "") -> bytes:
    head = f"HTTP/1.1 {status}\r\n" + (f"content-type: {media}\r\n" if media else "") + extra
    return f"{head}content-length: {len(body)}\r\n\r\n".encode() + body


def result(rid: int) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", "id": rid, "result": {"resultType": "complete"}})


def sse(*events: bytes) -> bytes:
    return b"".join(b"event: message\ndata: " + e + b"\n\n" for e in events)


def transcript(path: Path, exchanges: list[tuple[bytes, bytes]]) -> Path:
    lines = [{"mcptape": 1, "started": "", "command": [], "cwd": "", "recorder": {}}]
    t = 0.0
    for x, (request, response) in enumerate(exchanges, start=1):
        t += 0.01
        lines.append({"t": t, "ch": "http-in", "x": x, "b64": base64.b64encode(request).decode()})
        lines.append({"t": t + 0.001, "ch": "http-out", "x": x, "b64": base64.b64encode(response).decode()})
    lines.append({"t": t + 1, "ch": "exit", "code": 0, "signal": None})
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return path


def http_findings(path: Path) -> list[tuple[str, int, int, bytes]]:
    _, analysis = analyze_file(str(path))
    return [(f.rule, f.line, f.offset, f.raw) for f in analysis.findings if f.rule.startswith("http-")]


call, call_headers = modern("tools/call", name="add", arguments={"a": 1})
note, note_headers = modern("notifications/progress", None, progressToken=1, progress=1)
OK_JSON = answer("200 OK", "application/json", result(1))

CASES: dict[str, tuple[list[tuple[bytes, bytes]], list[tuple[str, int, int, bytes]]]] = {
    "clean": ([(post(call, headers=call_headers), OK_JSON)], []),
    "clean-sse": (
        [(post(call, headers=call_headers), answer("200 OK", "text/event-stream", sse(result(1))))],
        [],
    ),
    "notification-200": (
        [(post(note, headers=note_headers), answer("200 OK", "application/json", b""))],
        [("http-notification-status", 1, 0, b"HTTP status 200")],
    ),
    "notification-202-with-body": (
        [(post(note, headers=note_headers), answer("202 Accepted", "application/json", b"{}"))],
        [("http-notification-status", 1, 0, b"{}")],
    ),
    "notification-202": ([(post(note, headers=note_headers), answer("202 Accepted", None, b""))], []),
    "request-answered-text": (
        [(post(call, headers=call_headers), answer("200 OK", "text/plain", b"42"))],
        [("http-content-type", 1, 0, b"HTTP status 200")],
    ),
    "request-refused-text": (
        [(post(call, headers=call_headers), answer("500 Oops", "text/plain", b"no"))],
        [],
    ),
    "mcp-name-differs": (
        [
            (
                post(call, headers={**call_headers, "Mcp-Name": "sub"}),
                answer("400 Bad", "application/json", b"{}"),
            )
        ],
        [("http-header-mismatch", 1, 0, b"POST /mcp")],
    ),
    "mcp-name-base64": (
        [(post(call, headers={**call_headers, "Mcp-Name": "=?base64?YWRk?="}), OK_JSON)],
        [],
    ),
    "protocol-version-missing": (
        [
            (
                post(call, headers={k: v for k, v in call_headers.items() if k != "MCP-Protocol-Version"}),
                OK_JSON,
            )
        ],
        [("http-header-mismatch", 1, 0, b"POST /mcp"), ("http-mismatch-accepted", 1, 0, b"HTTP status 200")],
    ),
    "body-not-json": (
        [
            (
                post(None, headers=call_headers, raw=b'{"jsonrpc": "2.0", "id": 1,}'),
                answer("400 Bad", None, b""),
            )
        ],
        [("http-body-not-json", 1, 26, b",}")],
    ),
    "request-not-http": (
        [(b"HELLO THERE\r\n\r\n", answer("400 Bad", None, b""))],
        [("http-not-http", 1, 0, b"HELLO THERE\r\n\r\n")],
    ),
    "sse-data-not-json": (
        [(post(call, headers=call_headers), answer("200 OK", "text/event-stream", sse(b"oops", result(1))))],
        [("http-body-not-json", 1, 0, b"oops")],
    ),
    "sse-cut-inside-an-event": (
        [
            (
                post(call, headers=call_headers),
                answer("200 OK", "text/event-stream", sse(result(1)) + b"data: {"),
            )
        ],
        [("http-sse-malformed", 1, len(sse(result(1))), b"data: {")],
    ),
    "response-for-another-request": (
        [(post(call, headers=call_headers), answer("200 OK", "text/event-stream", sse(result(7))))],
        [("http-wrong-stream", 1, 0, result(7))],
    ),
    "origin-accepted": (
        [(post(call, headers={**call_headers, "Origin": "http://evil.example"}), OK_JSON)],
        [("http-origin-accepted", 1, 0, b"Origin: http://evil.example")],
    ),
    "accept-missing": (
        [(post(call, headers={**call_headers, "Accept": None}), OK_JSON)],
        [("http-accept", 1, 0, b"POST /mcp")],
    ),
    "accept-json-only": (
        [(post(call, headers={**call_headers, "Accept": "application/json"}), OK_JSON)],
        [("http-accept", 1, 0, b"POST /mcp")],
    ),
    "accept-sse-refused-by-q0": (
        [
            (
                post(call, headers={**call_headers, "Accept": "application/json, text/event-stream;q=0"}),
                OK_JSON,
            )
        ],
        [("http-accept", 1, 0, b"POST /mcp")],
    ),
    "accept-wildcards": (
        [(post(call, headers={**call_headers, "Accept": "application/*;q=0.9, */*;q=0.1"}), OK_JSON)],
        [],
    ),
    "origin-same-host": (
        [(post(call, headers={**call_headers, "Origin": "http://127.0.0.1:9"}), OK_JSON)],
        [],
    ),
}


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}
INIT_OK = orjson.dumps(
    {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25", "capabilities": {}}}
)
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}

# The session and status rules' ids (check/http/session.py; their tables: test_hr_table.py).
HR_RULES = [
    "http-session-id-chars",
    "http-ended-session-served",
    "http-broadcast",
    "http-session-missing",
    "http-modern-session",
    "http-error-status",
]

# The public ids of the transport rules (a contract, like every rule id: tests/check/test_rules.py).
HTTP_RULES = [
    "http-not-http",
    "http-body-not-json",
    "http-content-type",
    "http-sse-malformed",
    "http-header-mismatch",
    "http-mismatch-accepted",
    "http-notification-status",
    "http-session-changed",
    "http-wrong-stream",
    "http-origin-accepted",
    "http-accept",
    *HR_RULES,
]
