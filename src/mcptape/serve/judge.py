"""What the client did after a hard output, read from what it sent (pure).

Four outcomes, from the client side serve recorded:

* **closed the session**: it closed its side (serve's stdin) without sending the requests the
  recording shows next;
* **reported an error**: it answered an injected server request with an error, or cancelled the
  request the hard output hit;
* **went on as if nothing happened** (tolerant): it kept sending requests, or answered an injected
  server request with a result;
* **waited**: it sent nothing more and did not close until the session was stopped, or closed
  only `LATE` seconds or more later (a client that notices reacts at once; one killed by a
  timeout does not);
* **ended** the session as the recording does: it closed its side, and the recorded client had
  nothing more to send either (the wire alone cannot tell whether it noticed).

The client probe adds what only the client's process shows: it **hung** (no exit by the time
limit) or **went on with a wrong answer** (exit 0, an output that differs from the clean run). Both
fail in every case.

The seed's rule: a tolerant client is not rewarded. Going on is right only for valid traffic (a
split response, responses in another order); for the others it is a warning or, where the client
used a response it could not trust, a failure.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcptape.serve.inject import Applied
from mcptape.serve.injectcases import Case
from mcptape.serve.session import ClientLine, Served

CLOSED, ERROR, TOLERANT, WAITED, HUNG, ENDED = "closed", "error", "went-on", "waited", "hung", "ended"
WRONG = "wrong"  # the probe: exit 0 with an output that differs from the clean run
PASS, WARN, FAIL, NA, INCONCLUSIVE = "pass", "warning", "FAIL", "n/a", "inconclusive"
LATE = 5.0  # seconds: a close this long after the hard output, with nothing sent, is a wait
OUTCOME_TEXT = {
    ENDED: "ended the session as recorded",
    CLOSED: "closed the session",
    ERROR: "reported an error",
    TOLERANT: "went on as if nothing happened",
    WRONG: "went on with a wrong answer",
    WAITED: "waited",
    HUNG: "hung",
}


@dataclass
class Next:
    """What the client did after one hard output: the outcome and a sentence saying it."""

    outcome: str
    text: str


def next_of(applied: Applied, served: Served) -> Next | None:
    """The client's reaction to one played case (None when the case was not played)."""
    if not applied.done or applied.t is None:
        return None
    after = [c for c in served.client if c.t >= applied.t]
    if applied.injected_id is not None:
        reply = next(
            (c for c in after if c.kind in ("response", "error-response") and c.id == applied.injected_id),
            None,
        )
        if reply is not None and reply.kind == "error-response":
            return Next(ERROR, f"answered the injected request with error {_code(reply)}")
        if reply is not None and applied.case.id == "server-request":
            return Next(
                TOLERANT, "answered the server-to-client request with a result, as if it were allowed"
            )
    for line in after:
        if line.method == "notifications/cancelled" and _cancels(line, applied):
            return Next(ERROR, f"cancelled request {applied.request_id!r} (notifications/cancelled)")
    requests = [c for c in after if c.kind == "request"]
    garbage = [c for c in after if c.kind == "garbage"]
    if requests:
        methods = ", ".join(dict.fromkeys(c.method or "?" for c in requests))
        return Next(TOLERANT, f"went on: sent {len(requests)} more request(s) ({methods})")
    if served.eof_t is not None:
        delay = max(0.0, served.eof_t - applied.t)
        if delay >= LATE:
            return Next(WAITED, f"sent nothing for {delay:.1f}s, then closed its side")
        if applied.expected == 0:
            return Next(
                ENDED, f"closed its side {delay:.2f}s later; the recorded client had nothing more to send"
            )
        text = f"closed the session {delay:.2f}s later"
        text += f", without the {applied.expected} request(s) the recorded client sent next"
        if garbage:
            text += f", after {len(garbage)} line(s) that are not protocol"
        return Next(CLOSED, text)
    return Next(WAITED, "sent nothing more and did not close its side until the session was stopped")


def verdict(case: Case, outcome: str | None, na: str | None = None) -> str:
    """pass / warning / FAIL / n/a for one case, given what the client did."""
    if na is not None or outcome is None:
        return NA
    if outcome in (HUNG, WRONG):  # the worst a hard output can cause; or a result changed, exit 0
        return FAIL
    if case.legal:
        return PASS if outcome in (TOLERANT, ENDED) else FAIL
    if outcome == ENDED:
        return INCONCLUSIVE
    if outcome in (CLOSED, ERROR):
        return PASS
    if outcome == TOLERANT:
        return case.tolerant
    return FAIL if case.id == "truncated-eof" else WARN


def _code(line: ClientLine) -> object:
    value = line.value
    error = value.get("error") if type(value) is dict else None
    return error.get("code") if type(error) is dict else "?"


def _cancels(line: ClientLine, applied: Applied) -> bool:
    value = line.value
    params = value.get("params") if type(value) is dict else None
    return type(params) is dict and params.get("requestId") == applied.request_id
