"""The registry of rules: every finding `mcptape check` can report, with its id and meaning.

The ids are a public contract (scripts match on them, `--json` prints them); never rename one.
Each rule is raised in one stage of the pipeline, named in `stage` (one of `STAGES`, which names the
modules of each stage: tests/check/test_rule_stages.py holds every rule to them; SARIF's rule help
says it), and has its own test table under tests/check/rules/.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcptape.check import modernrules
from mcptape.check.http import sessionrules as httpsessionrules
from mcptape.check.model import Severity


@dataclass(frozen=True)
class Rule:
    """A kind of finding: stable id, severity, one-line explanation, and the stage that raises it."""

    id: str
    severity: Severity
    summary: str
    stage: str  # a key of STAGES
    party: str | None = None  # who breaks it; None: the sender of the line it points at (by channel)


NON_PROTOCOL_OUTPUT = "non-protocol-output"
NON_PROTOCOL_INPUT = "non-protocol-input"
INCOMPLETE_FRAME = "incomplete-frame"
INVALID_MESSAGE = "invalid-message"
BATCH_NOT_ALLOWED = "batch-not-allowed"
DUPLICATE_ID = "duplicate-id"
UNKNOWN_RESPONSE_ID = "unknown-response-id"
UNDECLARED_CAPABILITY = "undeclared-capability"
CLIENT_CAPABILITY = "client-capability"
UNANSWERED_REQUEST = "unanswered-request"
SCHEMA_VIOLATION = "schema-violation"
OUTPUT_SCHEMA = "output-schema"
EXEC_AFTER_REJECT = "exec-after-reject"
# The 2026-07-28 revision: ids and rows in check/modernrules.py, the ids named here as well.
ANSWER_AFTER_CANCEL = modernrules.ANSWER_AFTER_CANCEL
CACHE_HINTS = modernrules.CACHE_HINTS
CANCEL_UNKNOWN = modernrules.CANCEL_UNKNOWN
DISCOVER_MISSING = modernrules.DISCOVER_MISSING
ERROR_CODE = modernrules.ERROR_CODE
LEGACY_SERVER = modernrules.LEGACY_SERVER
META_NOT_REFUSED = modernrules.META_NOT_REFUSED
MISSING_META = modernrules.MISSING_META
MRTR_INPUT_KEYS = modernrules.MRTR_INPUT_KEYS
MRTR_RETRY = modernrules.MRTR_RETRY
MRTR_SHAPE = modernrules.MRTR_SHAPE
PROGRESS_AFTER_COMPLETION = modernrules.PROGRESS_AFTER_COMPLETION
PROGRESS_ORDER = modernrules.PROGRESS_ORDER
REMOVED_METHOD = modernrules.REMOVED_METHOD
RESULT_SCHEMA = modernrules.RESULT_SCHEMA
RESULT_TYPE = modernrules.RESULT_TYPE
RETRY_MISSING_INPUT = modernrules.RETRY_MISSING_INPUT
SERVER_CANCEL = modernrules.SERVER_CANCEL
STATE_ACCEPTED = modernrules.STATE_ACCEPTED
SUBSCRIPTION = modernrules.SUBSCRIPTION
UNREQUESTED_LOG = modernrules.UNREQUESTED_LOG
UNSUPPORTED_VERSION = modernrules.UNSUPPORTED_VERSION
# The recording itself (party "capture"): what a CI gate must tell from a clean session.
INCOMPLETE_CAPTURE = "incomplete-capture"
# Promises against evidence (check/promises.py): a tool's annotations against its calls' actions.
HINT_READ_ONLY = "hint-read-only"
HINT_OPEN_WORLD = "hint-open-world"
HINT_IDEMPOTENT = "hint-idempotent"
HINT_DESTRUCTIVE = "hint-destructive"
RAN_TWICE = "ran-twice"
UNKNOWN_TOOL = "unknown-tool"
# The tool surface (mcptape.surface, joined to the analysis by commands/check.py; docs/tools.md).
TOOLS_DRIFT = "tools-drift"
TOOLS_LOCK = "tools-lock"

# The stages of the pipeline (`Rule.stage`), each with the modules that raise its rules.
STAGES: dict[str, tuple[str, ...]] = {
    "classify": ("check/classify.py",),  # a line by itself
    "pairing": ("check/pairing.py", "check/capabilities.py"),  # requests and their responses
    "schema": ("check/tools.py",),  # tools/call arguments against the declared inputSchema
    "attribution": ("check/attribution.py",),  # executor calls tied to requests
    "modern": ("check/modern.py", "check/mrtr.py", "check/entry.py", "check/results.py"),  # 2026-07-28
    "analyze": ("check/capture.py",),  # the end of the analyzer's pass: is the recording whole
    "promises": ("check/promises.py", "check/promisefindings.py"),  # tool annotations against actions
    "surface": ("surface/findings.py",),  # the tool surface (joined by commands/check.py)
    "transport": ("check/http/transport.py", "check/http/responses.py", "check/http/session.py"),  # HTTP
}

_ALL = [
    Rule(
        NON_PROTOCOL_OUTPUT,
        Severity.ERROR,
        "a line on the server's stdout is not exactly one UTF-8 JSON value (logs belong on stderr)",
        "classify",
    ),
    Rule(
        NON_PROTOCOL_INPUT,
        Severity.ERROR,
        "a line on the server's stdin is not exactly one UTF-8 JSON value",
        "classify",
    ),
    Rule(
        INCOMPLETE_FRAME,
        Severity.ERROR,
        "a stream ended in the middle of a line (no terminating newline)",
        "classify",
    ),
    Rule(
        INVALID_MESSAGE,
        Severity.ERROR,
        "a JSON value that is not a JSON-RPC 2.0 message allowed in this direction and protocol version",
        "classify",
    ),
    Rule(
        BATCH_NOT_ALLOWED,
        Severity.ERROR,
        "a JSON-RPC batch (array) outside protocol version 2025-03-26, the only one that allows them",
        "classify",
    ),
    Rule(
        DUPLICATE_ID,
        Severity.ERROR,
        "a request reuses the id of a request of the same sender that is still unanswered",
        "pairing",
    ),
    Rule(
        UNKNOWN_RESPONSE_ID,
        Severity.ERROR,
        "a response whose id matches no request in flight (never sent, or already answered)",
        "pairing",
    ),
    Rule(
        UNDECLARED_CAPABILITY,
        Severity.ERROR,
        "a server serving tools, resources, prompts or completions it did not declare in its capabilities",
        "pairing",
        "server",
    ),
    Rule(
        CLIENT_CAPABILITY,
        Severity.ERROR,
        "a server request the client declared no support for (an elicitation mode, tool-enabled sampling)",
        "pairing",
        "server",
    ),
    Rule(
        UNANSWERED_REQUEST,
        Severity.WARNING,
        "a request that never got a response before the transcript ended",
        "pairing",
    ),
    Rule(
        SCHEMA_VIOLATION,
        Severity.ERROR,
        "tools/call arguments outside the inputSchema the server declared in tools/list",
        "schema",
    ),
    Rule(
        OUTPUT_SCHEMA,
        Severity.ERROR,
        "a tools/call success without structuredContent, or outside the outputSchema declared in tools/list",
        "schema",
        "server",
    ),
    Rule(
        EXEC_AFTER_REJECT,
        Severity.ERROR,
        "an executor call for a rejected request, or after a rejected input frame",
        "attribution",
    ),
]

_ALL += [Rule(*row) for row in modernrules.ROWS]

_ALL += [
    Rule(
        INCOMPLETE_CAPTURE,
        Severity.WARNING,
        "the recording was cut: no exit record (the server's end was not seen), or a torn last line",
        "analyze",
        "capture",
    ),
]

_ALL += [
    Rule(
        HINT_READ_ONLY,
        Severity.ERROR,
        "a tool declared readOnlyHint: true whose call caused an action that may change state",
        "promises",
        "server",
    ),
    Rule(
        HINT_OPEN_WORLD,
        Severity.WARNING,
        "a tool declared openWorldHint: false whose call reached outside (HTTP, a tap kind external)",
        "promises",
        "server",
    ),
    Rule(
        HINT_IDEMPOTENT,
        Severity.WARNING,
        "a tool declared idempotentHint: true called again with the same arguments caused a new action",
        "promises",
        "server",
    ),
    Rule(
        HINT_DESTRUCTIVE,
        Severity.WARNING,
        "a tool declared destructiveHint: false whose call deleted or overwrote (tap kind delete, update)",
        "promises",
        "server",
    ),
    Rule(
        RAN_TWICE,
        Severity.ERROR,
        "one request's action performed twice (error); a cancelled or timed-out call re-sent that ran again",
        "promises",
    ),
    Rule(
        UNKNOWN_TOOL,
        Severity.INFO,
        "a tools/call of a tool the complete tools/list left out (info); an action performed for it (error)",
        "promises",
    ),
    Rule(
        TOOLS_DRIFT,
        Severity.ERROR,
        "a later listing differs from an earlier one of the session (error; warning: suspicious; info)",
        "surface",
        "server",
    ),
    Rule(
        TOOLS_LOCK,
        Severity.ERROR,
        "the session's surface breaks the --tools-lock (error) or rewrites its text (warning: suspicious)",
        "surface",
        "server",
    ),
]

# Streamable HTTP (check/http/transport.py), judged on an HTTP transcript's raw exchanges; each cites its
# spec sentence in docs/http.md.
HTTP_NOT_HTTP = "http-not-http"
HTTP_BODY_NOT_JSON = "http-body-not-json"
HTTP_CONTENT_TYPE = "http-content-type"
HTTP_SSE_MALFORMED = "http-sse-malformed"
HTTP_HEADER_MISMATCH = "http-header-mismatch"
HTTP_MISMATCH_ACCEPTED = "http-mismatch-accepted"
HTTP_NOTIFICATION_STATUS = "http-notification-status"
HTTP_SESSION_CHANGED = "http-session-changed"
HTTP_WRONG_STREAM = "http-wrong-stream"
HTTP_ORIGIN_ACCEPTED = "http-origin-accepted"
HTTP_ACCEPT = "http-accept"

_ALL += [
    Rule(HTTP_NOT_HTTP, Severity.ERROR, "the bytes of a request or a response are not HTTP/1.1", "transport"),
    Rule(
        HTTP_BODY_NOT_JSON,
        Severity.ERROR,
        "a POST body, a JSON response body or an SSE event's data that is not one JSON value",
        "transport",
    ),
    Rule(
        HTTP_CONTENT_TYPE,
        Severity.ERROR,
        "a request answered 2xx with neither application/json nor text/event-stream (a GET: not SSE)",
        "transport",
        "server",
    ),
    Rule(
        HTTP_SSE_MALFORMED,
        Severity.ERROR,
        "an SSE line a client ignores (no SSE field, a bad retry, not UTF-8) or an event the end cut off",
        "transport",
        "server",
    ),
    Rule(
        HTTP_HEADER_MISMATCH,
        Severity.ERROR,
        "MCP-Protocol-Version, Mcp-Method, Mcp-Name or Mcp-Param-* missing or disagreeing with the body",
        "transport",
        "client",
    ),
    Rule(
        HTTP_MISMATCH_ACCEPTED,
        Severity.ERROR,
        "a request whose headers disagree with its body answered 2xx (MUST be 400 with -32020)",
        "transport",
        "server",
    ),
    Rule(
        HTTP_NOTIFICATION_STATUS,
        Severity.ERROR,
        "a notification or response POST accepted with a status other than 202, or a 202 with a body",
        "transport",
        "server",
    ),
    Rule(
        HTTP_SESSION_CHANGED,
        Severity.ERROR,
        "an Mcp-Session-Id the server never assigned, or a response changing the request's",
        "transport",
    ),
    Rule(
        HTTP_WRONG_STREAM,
        Severity.ERROR,
        "a response on the GET stream or on another request's stream; a server request on a 2026-07-28 one",
        "transport",
        "server",
    ),
    Rule(
        HTTP_ACCEPT,
        Severity.ERROR,
        "a POST whose Accept lists not both application/json and text/event-stream (a GET: the latter)",
        "transport",
        "client",
    ),
    Rule(
        HTTP_ORIGIN_ACCEPTED,
        Severity.WARNING,
        "a request from another Origin answered 2xx (servers MUST validate Origin: 403)",
        "transport",
        "server",
    ),
]

# The session and status rules of Streamable HTTP (check/http/session.py): ids and rows in
# check/http/sessionrules.py, the ids named here as well; docs/http.md cites each one's sentence.
HTTP_SESSION_ID_CHARS = httpsessionrules.HTTP_SESSION_ID_CHARS
HTTP_ENDED_SESSION_SERVED = httpsessionrules.HTTP_ENDED_SESSION_SERVED
HTTP_BROADCAST = httpsessionrules.HTTP_BROADCAST
HTTP_SESSION_MISSING = httpsessionrules.HTTP_SESSION_MISSING
HTTP_MODERN_SESSION = httpsessionrules.HTTP_MODERN_SESSION
HTTP_ERROR_STATUS = httpsessionrules.HTTP_ERROR_STATUS
_ALL += [Rule(*row) for row in httpsessionrules.ROWS]

RULES: dict[str, Rule] = {rule.id: rule for rule in _ALL}

FRAME_RULES: frozenset[str] = frozenset(rule.id for rule in _ALL if rule.stage == "classify")
"""The rules a line raises by itself, found by `classify`: not protocol, cut short, not a message
allowed there, a batch where none is allowed (on `out`: the stdout-is-not-protocol findings)."""


def severity(rule_id: str) -> Severity:
    return RULES[rule_id].severity
