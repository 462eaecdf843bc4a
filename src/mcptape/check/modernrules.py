"""The ids and rows of the 2026-07-28 rules (check/modern.py, mrtr.py, entry.py, results.py), kept
apart from the registry (check/rules.py builds their `Rule`s and re-exports the ids: `rules.MISSING_META`
is the same string). Each cites its spec sentence in docs/check.md.
"""

from __future__ import annotations

from mcptape.check.model import Severity

MISSING_META = "missing-meta"
REMOVED_METHOD = "removed-method"
RESULT_TYPE = "missing-result-type"
CACHE_HINTS = "cache-hints"
LEGACY_SERVER = "legacy-server"
UNREQUESTED_LOG = "unrequested-log"
PROGRESS_AFTER_COMPLETION = "progress-after-completion"
PROGRESS_ORDER = "progress-not-increasing"
CANCEL_UNKNOWN = "cancel-unknown-request"
SERVER_CANCEL = "server-cancel"
ANSWER_AFTER_CANCEL = "answer-after-cancel"
SUBSCRIPTION = "unrequested-notification"
ERROR_CODE = "reserved-error-code"
MRTR_SHAPE = "input-required-shape"
MRTR_RETRY = "retry-state"
MRTR_INPUT_KEYS = "retry-input-keys"
STATE_ACCEPTED = "accepted-request-state"
RETRY_MISSING_INPUT = "retry-missing-input"
# The revision's entry points and schema, judged at the server (check/entry.py, check/results.py).
META_NOT_REFUSED = "meta-not-refused"
UNSUPPORTED_VERSION = "unsupported-version"
DISCOVER_MISSING = "discover-not-implemented"
RESULT_SCHEMA = "result-schema"

# (id, severity, summary, stage[, party]): the fields of `rules.Rule`, in order.
ROWS: list[tuple[str, Severity, str, str] | tuple[str, Severity, str, str, str]] = [
    (MISSING_META, Severity.ERROR, "a 2026-07-28 request without a required _meta field", "modern"),
    (REMOVED_METHOD, Severity.ERROR, "a method or notification removed in 2026-07-28", "modern"),
    (RESULT_TYPE, Severity.ERROR, "a 2026-07-28 result without resultType", "modern", "server"),
    (
        LEGACY_SERVER,
        Severity.WARNING,
        "a 2026-07-28 client that never sent server/discover, answered by a server of an earlier era",
        "modern",
        "client",
    ),
    (
        CACHE_HINTS,
        Severity.ERROR,
        "a cacheable 2026-07-28 result without ttlMs >= 0 and cacheScope public|private",
        "modern",
        "server",
    ),
    (
        UNREQUESTED_LOG,
        Severity.ERROR,
        "notifications/message no request asked for, or without the logging capability",
        "modern",
        "server",
    ),
    (
        PROGRESS_AFTER_COMPLETION,
        Severity.ERROR,
        "notifications/progress for a request that completed, or a token no request provided",
        "modern",
        "server",
    ),
    (
        PROGRESS_ORDER,
        Severity.ERROR,
        "a notifications/progress whose progress is not above the last one for its request's token",
        "modern",
        "server",
    ),
    (
        CANCEL_UNKNOWN,
        Severity.ERROR,
        "notifications/cancelled for a request its sender never sent (every revision; its sender's fault)",
        "modern",
    ),
    (
        SERVER_CANCEL,
        Severity.ERROR,
        "a server's notifications/cancelled for anything but a subscriptions/listen request",
        "modern",
        "server",
    ),
    (
        ANSWER_AFTER_CANCEL,
        Severity.WARNING,
        "an answer well after the client cancelled the request (a race only within 100 ms)",
        "modern",
        "server",
    ),
    (
        SUBSCRIPTION,
        Severity.ERROR,
        "a change notification no open subscriptions/listen asked for, or without its subscriptionId",
        "modern",
        "server",
    ),
    (
        ERROR_CODE,
        Severity.ERROR,
        "a retired error code (-32002, -32042) or an undefined one of the MCP-reserved range",
        "modern",
        "server",
    ),
    (
        MRTR_SHAPE,
        Severity.ERROR,
        "an input_required answer where none is allowed, empty, or asking what the client cannot give",
        "modern",
        "server",
    ),
    (
        MRTR_RETRY,
        Severity.ERROR,
        "a retry whose requestState was never issued (altered), reuses the id, or serves another method",
        "modern",
        "client",
    ),
    (
        MRTR_INPUT_KEYS,
        Severity.WARNING,
        "a retry's inputResponses answers keys the server did not ask for",
        "modern",
        "client",
    ),
    (
        STATE_ACCEPTED,
        Severity.ERROR,
        "a retry carrying an altered requestState, or one not issued for it, answered with a success",
        "modern",
        "server",
    ),
    (
        RETRY_MISSING_INPUT,
        Severity.ERROR,
        "a retry that does not answer every inputRequests key the server asked for",
        "modern",
        "client",
    ),
    (
        META_NOT_REFUSED,
        Severity.ERROR,
        "a 2026-07-28 request lacking a required _meta field served, or refused with a code but -32602",
        "modern",
        "server",
    ),
    (
        UNSUPPORTED_VERSION,
        Severity.ERROR,
        "a protocol version the server does not list served, or refused with a code other than -32022",
        "modern",
        "server",
    ),
    (
        DISCOVER_MISSING,
        Severity.ERROR,
        "server/discover answered -32601 (method not found) by a server that speaks 2026-07-28",
        "modern",
        "server",
    ),
    (
        RESULT_SCHEMA,
        Severity.ERROR,
        "a 2026-07-28 result (or -32020/-32021/-32022 error) outside the revision's published schema",
        "modern",
        "server",
    ),
]
