"""The 2026-07-28 rules, one table each, with the specification sentence each enforces.

Every input is a session in the stateless revision (each request carries the required `_meta`);
`found` lists the rule ids the analysis raises, in time order. The sentences are quoted in
docs/check.md as well.
"""

from __future__ import annotations

from typing import Any

from mcptape.check.analyze import analyze
from mcptape.transcript import Event
from tests.check.helpers import error, line, notification, request, result

V = "io.modelcontextprotocol/protocolVersion"
CAPS = "io.modelcontextprotocol/clientCapabilities"


def meta(**extra: Any) -> dict[str, Any]:
    return {V: "2026-07-28", CAPS: extra.pop("caps", {}), **extra}


def req(rid: Any, method: str, params: dict[str, Any] | None = None, **m: Any) -> bytes:
    return request(rid, method, {**(params or {}), "_meta": meta(**m)})


def done(rid: Any, **fields: Any) -> bytes:
    """A complete result; `content` (which a CallToolResult requires) unless `fields` say otherwise."""
    return result(rid, {"resultType": "complete", "content": [], **fields})


CACHED = {"ttlMs": 0, "cacheScope": "public"}
LOG = "io.modelcontextprotocol/logLevel"
SUB = "io.modelcontextprotocol/subscriptionId"
ASK = {
    "resultType": "input_required",
    "inputRequests": {
        "who": {
            "method": "elicitation/create",
            "params": {"message": "name?", "requestedSchema": {"type": "object", "properties": {}}},
        }
    },
    "requestState": "sealed-1",
}
Table = list[tuple[str, list[tuple[str, bytes]], list[str]]]

# "fields marked as required MUST be included on every request" (basic/index, _meta)
MISSING_META: Table = [
    ("no _meta at all", [("in", request(1, "tools/list", {"_meta": {V: "2026-07-28"}}))], ["missing-meta"]),
    ("complete _meta", [("in", req(1, "tools/list")), ("out", done(1, tools=[], **CACHED))], []),
]
# "Remove ping, logging/setLevel, and notifications/roots/list_changed" (changelog, major change 5)
REMOVED: Table = [
    ("client ping", [("in", req(1, "tools/list")), ("in", req(2, "ping"))], ["removed-method"]),
    ("logging/setLevel", [("in", req(1, "logging/setLevel", {"level": "info"}))], ["removed-method"]),
    (
        "roots list_changed",
        [("in", req(1, "tools/list")), ("in", notification("notifications/roots/list_changed"))],
        ["removed-method"],
    ),
]
# "The `result` MUST include a `resultType` field" (basic/index, result responses)
DISCOVERED = [
    ("in", req(0, "server/discover")),
    ("out", done(0, supportedVersions=["2026-07-28"], capabilities={"tools": {}}, **CACHED)),
]
RESULT_TYPE: Table = [
    (
        "tools/call without resultType, after server/discover",
        [*DISCOVERED, ("in", req(1, "tools/call", {"name": "t"})), ("out", result(1, {"content": []}))],
        ["missing-result-type"],
    ),
    (
        "without resultType after a result that had one",
        [
            ("in", req(1, "tools/call", {"name": "t"})),
            ("out", done(1)),
            ("in", req(2, "tools/call", {"name": "t"})),
            ("out", result(2, {"content": []})),
        ],
        ["missing-result-type"],
    ),
]
# "Modern client, legacy server: Fails. The server may ... process an era-ambiguous method under
# legacy semantics. On stdio, clients SHOULD send server/discover first" (basic/versioning): the
# first result has no resultType and nothing showed the server speaks 2026-07-28
LEGACY: Table = [
    (
        "no server/discover, a legacy answer",
        [
            ("in", req(1, "tools/list")),
            ("out", result(1, {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]})),
            ("in", req(2, "tools/call", {"name": "t"})),
            ("out", result(2, {})),
        ],
        ["legacy-server"],
    ),
]
# "Servers MUST include caching hints on results with resultType: "complete" returned by ...";
# "Servers MUST provide a ttlMs value that is >= 0" (server/utilities/caching)
CACHE: Table = [
    ("tools/list without hints", [("in", req(1, "tools/list")), ("out", done(1, tools=[]))], ["cache-hints"]),
    (
        "negative ttlMs",
        [("in", req(1, "tools/list")), ("out", done(1, tools=[], ttlMs=-1, cacheScope="public"))],
        ["cache-hints"],
    ),
    (
        "bad scope",
        [("in", req(1, "resources/read")), ("out", done(1, contents=[], ttlMs=5, cacheScope="all"))],
        ["cache-hints"],
    ),
    ("tools/call is not cacheable", [("in", req(1, "tools/call", {"name": "t"})), ("out", done(1))], []),
]
# "The server MUST NOT emit notifications/message for a request that does not include this field"
# (server/utilities/logging); "Servers that emit log message notifications MUST declare the logging
# capability"
LOGGING: Table = [
    (
        "log for a request that did not ask",
        [
            ("in", req(1, "tools/call", {"name": "t"})),
            ("out", notification("notifications/message", {"level": "info", "data": "x"})),
            ("out", done(1)),
        ],
        ["unrequested-log"],
    ),
    (
        "log for a request that asked",
        [
            ("in", req(1, "tools/call", {"name": "t"}, **{LOG: "info"})),
            ("out", notification("notifications/message", {"level": "info", "data": "x"})),
            ("out", done(1)),
        ],
        [],
    ),
    (
        "log without the logging capability",
        [
            ("in", req(1, "server/discover")),
            ("out", done(1, supportedVersions=["2026-07-28"], capabilities={"tools": {}}, **CACHED)),
            ("in", req(2, "tools/call", {"name": "t"}, **{LOG: "info"})),
            ("out", notification("notifications/message", {"level": "info", "data": "x"})),
            ("out", done(2)),
        ],
        ["unrequested-log"],
    ),
]


# "The progress value MUST increase with each notification, even if the total is unknown."
# (basic/patterns/progress)
def _step(value: Any, token: Any = "p") -> bytes:
    return notification("notifications/progress", {"progressToken": token, "progress": value})


PROGRESS_ORDER: Table = [
    (
        "progress that goes back",
        [
            ("in", req(1, "tools/call", {"name": "t"}, progressToken="p")),
            ("out", _step(2)),
            ("out", _step(1)),
            ("out", done(1)),
        ],
        ["progress-not-increasing"],
    ),
    (
        "progress repeated",
        [
            ("in", req(1, "tools/call", {"name": "t"}, progressToken="p")),
            ("out", _step(0.5)),
            ("out", _step(0.5)),
            ("out", done(1)),
        ],
        ["progress-not-increasing"],
    ),
    (
        "progress that increases",
        [
            ("in", req(1, "tools/call", {"name": "t"}, progressToken="p")),
            ("out", _step(0)),
            ("out", _step(0.5)),
            ("out", done(1)),
        ],
        [],
    ),
    (
        "a token used again by a later request starts over",
        [
            ("in", req(1, "tools/call", {"name": "t"}, progressToken="p")),
            ("out", _step(3)),
            ("out", done(1)),
            ("in", req(2, "tools/call", {"name": "t"}, progressToken="p")),
            ("out", _step(1)),
            ("out", done(2)),
        ],
        [],
    ),
    (
        "two tokens in flight each increase",
        [
            ("in", req(1, "tools/call", {"name": "t"}, progressToken="a")),
            ("in", req(2, "tools/call", {"name": "t"}, progressToken="b")),
            ("out", _step(5, "a")),
            ("out", _step(1, "b")),
            ("out", _step(6, "a")),
            ("out", done(1)),
            ("out", done(2)),
        ],
        [],
    ),
]
# "Progress notifications MUST stop after completion" (basic/patterns/progress)
PROGRESS: Table = [
    (
        "progress after the response",
        [
            ("in", req(1, "tools/call", {"name": "t"}, progressToken="p")),
            ("out", done(1)),
            ("out", notification("notifications/progress", {"progressToken": "p", "progress": 1})),
        ],
        ["progress-after-completion"],
    ),
    (
        "progress before the response",
        [
            ("in", req(1, "tools/call", {"name": "t"}, progressToken="p")),
            ("out", notification("notifications/progress", {"progressToken": "p", "progress": 1})),
            ("out", done(1)),
        ],
        [],
    ),
]
# "Cancellation notifications MUST only reference requests that: Were previously issued by the
# client"; "Servers MUST NOT send notifications/cancelled for any other purpose" (patterns/cancellation);
# "Servers ... MUST NOT send any further messages for it" (transports/stdio, Cancellation)
CANCEL: Table = [
    (
        "cancel of an id never sent",
        [("in", req(1, "tools/list")), ("in", notification("notifications/cancelled", {"requestId": 9}))],
        ["cancel-unknown-request"],
    ),
    (
        "server cancels a tools/call",
        [
            ("in", req(1, "tools/call", {"name": "t"})),
            ("out", notification("notifications/cancelled", {"requestId": 1})),
        ],
        ["server-cancel"],
    ),
]
# "On notifications delivered via a subscriptions/listen stream, the server MUST include
# io.modelcontextprotocol/subscriptionId"; "The server MUST NOT send notification types the client has
# not explicitly requested" (basic/index, patterns/subscriptions)
SUBSCRIPTIONS: Table = [
    (
        "list_changed with no subscription",
        [("in", req(1, "tools/list")), ("out", notification("notifications/tools/list_changed"))],
        ["unrequested-notification"],
    ),
    (
        "a type the subscription did not ask for",
        [
            ("in", req(5, "subscriptions/listen", {"notifications": {"toolsListChanged": True}})),
            ("out", notification("notifications/prompts/list_changed", {"_meta": {SUB: 5}})),
        ],
        ["unrequested-notification"],
    ),
    (
        "a requested type, tagged",
        [
            ("in", req(5, "subscriptions/listen", {"notifications": {"toolsListChanged": True}})),
            ("out", notification("notifications/tools/list_changed", {"_meta": {SUB: 5}})),
        ],
        [],
    ),
]
# "Implementations of this protocol version MUST NOT emit these codes: -32002 ... -32042"; "MUST NOT
# emit any code from this sub-range that is not defined by this specification" (basic/index, Error codes)
UNSUPPORTED = line(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {"code": -32022, "message": "no", "data": {"supported": ["2026-07-28"], "requested": "x"}},
    }
)
CODES: Table = [
    ("-32002", [("in", req(1, "resources/read")), ("out", error(1, -32002))], ["reserved-error-code"]),
    ("-32050", [("in", req(1, "tools/list")), ("out", error(1, -32050))], ["reserved-error-code"]),
    ("-32022 is defined", [("in", req(1, "tools/list")), ("out", UNSUPPORTED)], []),
    ("-32001 is legacy, allowed", [("in", req(1, "tools/list")), ("out", error(1, -32001))], []),
]
# "Servers MUST NOT send InputRequiredResult responses on any other client requests"; "Servers MUST
# include at least one of inputRequests or requestState"; "Servers MUST NOT send an inputRequests that
# the client has not declared support for in its capabilities" (basic/patterns/mrtr)
MRTR_SHAPE: Table = [
    (
        "input_required on tools/list",
        [("in", req(1, "tools/list")), ("out", result(1, ASK))],
        ["input-required-shape", "input-required-shape"],
    ),
    (
        "empty input_required",
        [
            ("in", req(1, "tools/call", {"name": "t"}, caps={"elicitation": {}})),
            ("out", result(1, {"resultType": "input_required"})),
        ],
        ["input-required-shape"],
    ),
    (
        "elicitation not declared",
        [("in", req(1, "tools/call", {"name": "t"})), ("out", result(1, ASK))],
        ["input-required-shape"],
    ),
    (
        "elicitation declared",
        [("in", req(1, "tools/call", {"name": "t"}, caps={"elicitation": {}})), ("out", result(1, ASK))],
        [],
    ),
]
ANSWER = {"who": {"action": "accept", "content": {}}}
RETRY_OK = [("in", req(1, "tools/call", {"name": "t"}, caps={"elicitation": {}})), ("out", result(1, ASK))]
# "the client MUST echo back the exact value of that field"; "The JSON-RPC id MUST be different between
# the initial request and the retry"; "They MUST NOT be used for any other request" (mrtr, client)
MRTR_RETRY: Table = [
    (
        "a good retry",
        [
            *RETRY_OK,
            (
                "in",
                req(
                    2,
                    "tools/call",
                    {
                        "name": "t",
                        "requestState": "sealed-1",
                        "inputResponses": {"who": {"action": "accept"}},
                    },
                ),
            ),
            ("out", done(2)),
        ],
        [],
    ),
    (
        "altered state",
        [
            *RETRY_OK,
            ("in", req(2, "tools/call", {"name": "t", "requestState": "sealed-2"})),
            ("out", error(2, -32602, "invalid requestState")),
        ],
        ["retry-state"],
    ),
    (
        "same id",
        [
            *RETRY_OK,
            ("in", req(1, "tools/call", {"name": "t", "requestState": "sealed-1", "inputResponses": ANSWER})),
            ("out", done(1)),
        ],
        ["retry-state"],
    ),
    (
        "state on another method",
        [
            *RETRY_OK,
            ("in", req(2, "prompts/get", {"name": "p", "requestState": "sealed-1"})),
            ("out", done(2, messages=[])),
        ],
        ["retry-state"],
    ),
]
# "servers MUST treat requestState as an attacker-controlled input. If requestState influences
# authorization, resource access, or business logic, servers MUST protect its integrity (e.g. HMAC or
# AEAD) and MUST reject state that fails verification"; "servers SHOULD include ... an identifier for
# the originating request ... rejecting state presented on a request that does not match" (mrtr,
# server requirements): judged on targets the server issues state for, by the retry's answer.
ASK_U = {**ASK, "requestState": "sealed-u"}
STATE_ACCEPTED: Table = [
    (
        "altered state answered with a success",
        [
            *RETRY_OK,
            ("in", req(2, "tools/call", {"name": "t", "requestState": "sealed-2"})),
            ("out", done(2)),
        ],
        ["retry-state", "accepted-request-state"],
    ),
    (
        "altered state refused",
        [
            *RETRY_OK,
            ("in", req(2, "tools/call", {"name": "t", "requestState": "sealed-2"})),
            ("out", error(2, -32602, "invalid requestState")),
        ],
        ["retry-state"],
    ),
    (
        "altered state asked again",
        [
            *RETRY_OK,
            ("in", req(2, "tools/call", {"name": "t", "requestState": "sealed-2"}, caps={"elicitation": {}})),
            ("out", result(2, ASK)),
        ],
        ["retry-state"],
    ),
    (
        "altered state answered isError",
        [
            *RETRY_OK,
            ("in", req(2, "tools/call", {"name": "t", "requestState": "sealed-2"})),
            ("out", done(2, content=[], isError=True)),
        ],
        ["retry-state"],
    ),
    (
        "foreign state answered with a success",
        [
            *RETRY_OK,
            ("in", req(2, "tools/call", {"name": "t", "requestState": "from-another-session"})),
            ("out", done(2)),
        ],
        ["retry-state", "accepted-request-state"],
    ),
    (
        "another tool's state answered with a success",
        [
            *RETRY_OK,
            ("in", req(2, "tools/call", {"name": "u"}, caps={"elicitation": {}})),
            ("out", result(2, ASK_U)),
            ("in", req(3, "tools/call", {"name": "t", "requestState": "sealed-u"})),
            ("out", done(3)),
        ],
        ["retry-state", "accepted-request-state"],
    ),
    (
        "a stray state on a tool that never issued one",
        [
            *RETRY_OK,
            ("in", req(2, "tools/call", {"name": "v", "requestState": "sealed-2"})),
            ("out", done(2)),
        ],
        ["retry-state"],
    ),
]
# "Keys correspond to the keys in the InputRequests map" (mrtr, InputResponses)
MRTR_KEYS: Table = [
    (
        "answers what was not asked",
        [
            *RETRY_OK,
            (
                "in",
                req(
                    2,
                    "tools/call",
                    {"name": "t", "requestState": "sealed-1", "inputResponses": {**ANSWER, "other": {}}},
                ),
            ),
            ("out", done(2)),
        ],
        ["retry-input-keys"],
    ),
]
# "A response after notifications/cancelled": MUST NOT send any further messages (stdio, Cancellation),
# allowing for "race conditions" (patterns/cancellation): a warning past 100 ms
AFTER_CANCEL: Table = [
    (
        "answer long after the cancel",
        [
            ("in", req(1, "tools/call", {"name": "t"})),
            ("in", notification("notifications/cancelled", {"requestId": 1})),
            ("out", done(1)),
        ],
        ["answer-after-cancel"],
    ),
]

TABLES: dict[str, Table] = {
    "missing-meta": MISSING_META,
    "removed-method": REMOVED,
    "missing-result-type": RESULT_TYPE,
    "legacy-server": LEGACY,
    "cache-hints": CACHE,
    "unrequested-log": LOGGING,
    "progress-after-completion": PROGRESS,
    "progress-not-increasing": PROGRESS_ORDER,
    "cancel-unknown-request": CANCEL,
    "server-cancel": CANCEL,
    "unrequested-notification": SUBSCRIPTIONS,
    "reserved-error-code": CODES,
    "input-required-shape": MRTR_SHAPE,
    "retry-state": MRTR_RETRY,
    "retry-input-keys": MRTR_KEYS,
    "accepted-request-state": STATE_ACCEPTED,
    "answer-after-cancel": AFTER_CANCEL,
}


def recorded(items: list[tuple[str, bytes]]) -> list[Event]:
    """The events of a recording of `items`, 0.5 s apart, ending with the server's exit record."""
    events = [Event(0.5 * (i + 1), ch, raw=data, index=i) for i, (ch, data) in enumerate(items)]
    return [*events, Event(0.5 * (len(items) + 1), "exit", fields={"code": 0}, index=len(items))]


def found(items: list[tuple[str, bytes]]) -> list[str]:
    events = recorded(items)
    # unanswered-request is the pairing's rule: these tables leave some requests open on purpose
    return [f.rule for f in analyze(events).findings if f.rule != "unanswered-request"]
