"""The 2026-07-28 rules of the protocol's entry points and of its published schema, judged at the
server, one table each with the specification sentence each enforces (quoted in docs/check.md too).

Every session speaks the stateless revision; `found` lists the rule ids the analysis raises, in time
order. Each table has a session that breaks its rule and one that does not, and the tables hold
the sessions a correct server must pass: an earlier-era server answering a modern client, a
client falling back to the `initialize` handshake.
"""

from __future__ import annotations

from typing import Any

from tests.check.helpers import error, line, request, result
from tests.check.rules.modern import ASK, CACHED, DISCOVERED, Table, V, done, req

CAPS = "io.modelcontextprotocol/clientCapabilities"
NO_CAPS = {"_meta": {V: "2026-07-28"}}  # a request's _meta without clientCapabilities
LISTED = done(1, tools=[], **CACHED)


def unsupported(rid: Any, requested: str, supported: list[str] | None = None) -> bytes:
    data = {"requested": requested, "supported": supported or ["2026-07-28"]}
    return line({"jsonrpc": "2.0", "id": rid, "error": {"code": -32022, "message": "no", "data": data}})


def versioned(rid: Any, method: str, version: str, params: dict[str, Any] | None = None) -> bytes:
    return request(rid, method, {**(params or {}), "_meta": {V: version, CAPS: {}}})


# "A request missing any required field is malformed; the server MUST reject it with JSON-RPC error
# code -32602 (Invalid params)." (basic/index, _meta)
META_NOT_REFUSED: Table = [
    (
        "served without clientCapabilities",
        [*DISCOVERED, ("in", request(1, "tools/list", NO_CAPS)), ("out", LISTED)],
        ["missing-meta", "meta-not-refused"],
    ),
    (
        "refused with -32602",
        [*DISCOVERED, ("in", request(1, "tools/list", NO_CAPS)), ("out", error(1, -32602))],
        ["missing-meta"],
    ),
    (
        "refused with -32603 by a modern server",
        [*DISCOVERED, ("in", request(1, "tools/list", NO_CAPS)), ("out", error(1, -32603))],
        ["missing-meta", "meta-not-refused"],
    ),
    (
        "refused with -32603, the server shows its era later",
        [
            ("in", request(1, "tools/list", NO_CAPS)),
            ("out", error(1, -32603)),
            ("in", req(2, "tools/list")),
            ("out", done(2, tools=[], **CACHED)),
        ],
        ["missing-meta", "meta-not-refused"],
    ),
    (
        "refused with -32603 by a server that never shows its era",
        [("in", request(1, "tools/list", NO_CAPS)), ("out", error(1, -32603))],
        ["missing-meta"],
    ),
]
# "If the server does not implement the requested version (whether the version is unknown to the
# server, or is a known version the server has chosen not to support), it MUST respond with an
# UnsupportedProtocolVersionError listing the versions it does support" (basic/versioning)
UNSUPPORTED_VERSION: Table = [
    (
        "a version server/discover did not list, served",
        [*DISCOVERED, ("in", versioned(1, "tools/list", "2027-01-01")), ("out", LISTED)],
        ["unsupported-version"],
    ),
    (
        "a version server/discover did not list, refused with -32022",
        [
            *DISCOVERED,
            ("in", versioned(1, "tools/list", "2027-01-01")),
            ("out", unsupported(1, "2027-01-01")),
        ],
        [],
    ),
    (
        "a version server/discover did not list, refused with -32602",
        [*DISCOVERED, ("in", versioned(1, "tools/list", "2027-01-01")), ("out", error(1, -32602))],
        ["unsupported-version"],
    ),
    (
        "the client retries with the version the -32022 listed",
        [
            ("in", versioned(1, "tools/list", "1900-01-01")),
            ("out", unsupported(1, "1900-01-01")),
            ("in", req(2, "tools/list")),
            ("out", done(2, tools=[], **CACHED)),
        ],
        [],
    ),
    (
        "a version a -32022 left out, served on a request that changes the session's version",
        [
            ("in", versioned(1, "tools/list", "1900-01-01")),
            ("out", unsupported(1, "1900-01-01")),
            ("in", req(2, "tools/list")),
            ("out", done(2, tools=[], **CACHED)),
            ("in", versioned(3, "tools/list", "1900-01-01")),
            ("out", done(3, tools=[], **CACHED)),
        ],
        ["unsupported-version"],
    ),
    (
        "an odd version served by a server that never said what it supports",
        [("in", versioned(1, "tools/list", "1900-01-01")), ("out", LISTED)],
        [],
    ),
]
# "Servers MUST implement server/discover." (basic/versioning, server/discover)
DISCOVER: Table = [
    (
        "method not found, then a 2026-07-28 result",
        [
            ("in", req(0, "server/discover")),
            ("out", error(0, -32601)),
            ("in", req(1, "tools/list")),
            ("out", LISTED),
        ],
        ["discover-not-implemented"],
    ),
    (
        "method not found from an earlier-era server, the client falls back to initialize",
        [
            ("in", req(0, "server/discover")),
            ("out", error(0, -32601)),
            ("in", request(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})),
            ("out", result(1, {"protocolVersion": "2025-11-25", "capabilities": {}})),
            ("in", request(2, "tools/list")),
            ("out", result(2, {"tools": []})),
        ],
        [],
    ),
    (
        "method not found from an earlier-era server, the client goes on regardless",
        [
            ("in", req(0, "server/discover")),
            ("out", error(0, -32601)),
            ("in", req(1, "tools/list")),
            ("out", result(1, {"tools": []})),
        ],
        ["legacy-server"],
    ),
    ("discover answered", [*DISCOVERED], []),
]
IMAGE = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
AUDIO = {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}


def called(rid: Any, **fields: Any) -> list[tuple[str, bytes]]:
    return [("in", req(rid, "tools/call", {"name": "t"})), ("out", done(rid, **fields))]


# The result types of schema/2026-07-28/schema.json: "ImageContent ... required: data, mimeType,
# type" and the like (the schema is the revision's normative type definition, basic/index)
RESULT_SCHEMA: Table = [
    (
        "an image without mimeType",
        called(1, content=[{"type": "image", "data": "iVBORw0KGgo="}]),
        ["result-schema"],
    ),
    (
        "an audio block without mimeType",
        called(1, content=[{"type": "audio", "data": "UklGRg=="}]),
        ["result-schema"],
    ),
    ("an image and an audio block with their mimeType", called(1, content=[IMAGE, AUDIO]), []),
    (
        "a text block, isError a string",
        called(1, content=[{"type": "text", "text": "x"}], isError="no"),
        ["result-schema"],
    ),
    (
        "a text block with a _meta that is not an object",
        called(1, content=[{"type": "text", "text": "x"}], _meta=[1]),
        ["result-schema"],
    ),
    (
        "server/discover without supportedVersions",
        [("in", req(0, "server/discover")), ("out", done(0, capabilities={}, **CACHED))],
        ["result-schema"],
    ),
    (
        "a -32022 that does not list the supported versions",
        [("in", versioned(1, "tools/list", "1900-01-01")), ("out", error(1, -32022))],
        ["result-schema"],
    ),
    (
        "a tool whose inputSchema is not an object schema",
        [("in", req(1, "tools/list")), ("out", done(1, tools=[{"name": "t", "inputSchema": {}}], **CACHED))],
        ["result-schema"],
    ),
]

ELICIT = {**ASK, "requestState": "sealed-9"}
ASKED = [("in", req(1, "tools/call", {"name": "t", "arguments": {"x": 1}}, caps={"elicitation": {}}))]
ANSWERS = {"who": {"action": "accept", "content": {}}}


def retry(rid: Any, arguments: Any, **extra: Any) -> bytes:
    return req(rid, "tools/call", {"name": "t", "arguments": arguments, "requestState": "sealed-9", **extra})


# "If a client receives an InputRequiredResult that contains the inputRequests field, the client MUST
# construct the requested inputs before retrying the original request" (mrtr, client requirements)
RETRY_MISSING_INPUT: Table = [
    (
        "a retry without inputResponses",
        [*ASKED, ("out", result(1, ELICIT)), ("in", retry(2, {"x": 1})), ("out", done(2))],
        ["retry-missing-input"],
    ),
    (
        "a retry answering every key",
        [
            *ASKED,
            ("out", result(1, ELICIT)),
            ("in", retry(2, {"x": 1}, inputResponses=ANSWERS)),
            ("out", done(2)),
        ],
        [],
    ),
]
# "They MUST NOT be used for any other request that the client may be sending in parallel" (mrtr,
# client); "servers SHOULD include ... an identifier for the originating request, e.g. the method
# name and a digest of its salient parameters, rejecting state presented on a request that does not
# match" (mrtr, server): a state crossing requests of the same tool
CROSSING: Table = [
    (
        "a state used on a call with other arguments, refused",
        [
            *ASKED,
            ("out", result(1, ELICIT)),
            ("in", retry(2, {"x": 2}, inputResponses=ANSWERS)),
            ("out", error(2, -32602, "requestState does not match")),
        ],
        ["retry-state"],
    ),
    (
        "a state used on a call with other arguments, served",
        [
            *ASKED,
            ("out", result(1, ELICIT)),
            ("in", retry(2, {"x": 2}, inputResponses=ANSWERS)),
            ("out", done(2)),
        ],
        ["retry-state", "accepted-request-state"],
    ),
    (
        "the same arguments in another key order",
        [
            (
                "in",
                req(1, "tools/call", {"name": "t", "arguments": {"x": 1, "y": 2}}, caps={"elicitation": {}}),
            ),
            ("out", result(1, ELICIT)),
            ("in", retry(2, {"y": 2, "x": 1}, inputResponses=ANSWERS)),
            ("out", done(2)),
        ],
        [],
    ),
]

TABLES: dict[str, Table] = {
    "meta-not-refused": META_NOT_REFUSED,
    "unsupported-version": UNSUPPORTED_VERSION,
    "discover-not-implemented": DISCOVER,
    "result-schema": RESULT_SCHEMA,
    "retry-missing-input": RETRY_MISSING_INPUT,
    "retry-state": CROSSING,
}
