"""The registry of rules: every finding `mcptape check` can report, with its id and meaning.

The ids are a public contract (scripts match on them, `--json` prints them); never rename one.
Each rule is detected at one place in the pipeline, named in `where`, and has its own test table in
tests/check/test_rules.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcptape.check.model import Severity


@dataclass(frozen=True)
class Rule:
    """A kind of finding: stable id, severity, one-line explanation, and where it is detected."""

    id: str
    severity: Severity
    summary: str
    where: str


NON_PROTOCOL_OUTPUT = "non-protocol-output"
NON_PROTOCOL_INPUT = "non-protocol-input"
INCOMPLETE_FRAME = "incomplete-frame"
INVALID_MESSAGE = "invalid-message"
BATCH_NOT_ALLOWED = "batch-not-allowed"
DUPLICATE_ID = "duplicate-id"
UNKNOWN_RESPONSE_ID = "unknown-response-id"
UNANSWERED_REQUEST = "unanswered-request"
SCHEMA_VIOLATION = "schema-violation"
EXEC_AFTER_REJECT = "exec-after-reject"

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
        EXEC_AFTER_REJECT,
        Severity.ERROR,
        "an executor call for a rejected request, or after a rejected input frame",
        "attribution",
    ),
]

RULES: dict[str, Rule] = {rule.id: rule for rule in _ALL}

FRAME_RULES: frozenset[str] = frozenset(rule.id for rule in _ALL if rule.where == "classify")
"""The rules a line raises by itself, found by `classify`: not protocol, cut short, not a message
allowed there, a batch where none is allowed (on `out`: the stdout-is-not-protocol findings)."""


def severity(rule_id: str) -> Severity:
    return RULES[rule_id].severity
