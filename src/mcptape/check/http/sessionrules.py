"""The ids and rows of the Streamable HTTP session and status rules (check/http/session.py), kept apart
from the registry as the 2026-07-28 rules are (check/rules.py builds their `Rule`s and names the ids).
Each cites its spec sentence in docs/http.md.
"""

from __future__ import annotations

from mcptape.check.model import Severity

HTTP_SESSION_ID_CHARS = "http-session-id-chars"
HTTP_ENDED_SESSION_SERVED = "http-ended-session-served"
HTTP_BROADCAST = "http-broadcast"
HTTP_SESSION_MISSING = "http-session-missing"
HTTP_MODERN_SESSION = "http-modern-session"
HTTP_ERROR_STATUS = "http-error-status"

# The HTTP status a 2026-07-28 JSON-RPC error goes with: method not found (streamable-http, Protocol
# Version Header), header mismatch (Server Validation), a missing client capability and an
# unsupported version (schema: "For HTTP, the response status code MUST be 400 Bad Request.").
ERROR_STATUS = {-32601: 404, -32020: 400, -32021: 400, -32022: 400}

# (id, severity, summary, stage, party): the fields of `rules.Rule`, in order.
ROWS: list[tuple[str, Severity, str, str, str]] = [
    (
        HTTP_SESSION_ID_CHARS,
        Severity.ERROR,
        "an Mcp-Session-Id the server sent with a character outside visible ASCII (0x21-0x7E)",
        "transport",
        "server",
    ),
    (
        HTTP_ENDED_SESSION_SERVED,
        Severity.ERROR,
        "a request of a session its DELETE ended answered 2xx/3xx, as if alive (MUST be 404)",
        "transport",
        "server",
    ),
    (
        HTTP_BROADCAST,
        Severity.ERROR,
        "one server request or progress notification sent on two SSE streams of a session",
        "transport",
        "server",
    ),
    (
        HTTP_SESSION_MISSING,
        Severity.ERROR,
        "a request without the Mcp-Session-Id the server assigned at initialization",
        "transport",
        "client",
    ),
    (
        HTTP_MODERN_SESSION,
        Severity.WARNING,
        "a server supporting only 2026-07-28 echoing or minting an Mcp-Session-Id on a 2xx answer",
        "transport",
        "server",
    ),
    (
        HTTP_ERROR_STATUS,
        Severity.ERROR,
        "a 2026-07-28 error without its HTTP status: -32601 with 404; -32020, -32021, -32022 with 400",
        "transport",
        "server",
    ),
]
