"""The table of `serve --inject` cases: what each hard output is, where it lands, how a client is judged.

`inject.Injector` plays them; `clientprobe` runs them all against a client. A case is a row: its id,
its title, the place of the session it changes, what a tolerant client that takes it means, and
whether it is valid traffic a correct client must take (`legal`). The two pair cases have a second
row each for a client with one request in flight (`ONE_IN_FLIGHT`); `played_as` picks the row a
case was played in.
"""

from __future__ import annotations

from dataclasses import dataclass

HANDSHAKE = frozenset({"initialize", "server/discover"})
PAIR, ONE = "pair", "one in flight"  # the two forms of the pair cases


@dataclass(frozen=True)
class Case:
    """One hard output: its id, what it does, and what a client that goes on is judged."""

    id: str
    title: str
    where: str  # first, second, target, pair, last; next (the target, when a request follows it)
    legal: bool = False  # valid traffic: going on is right, refusing it is the bug
    tolerant: str = "warning"  # the verdict for a client that went on as if nothing happened
    tolerated: str = "went on after output that is not protocol"  # what such a client let pass
    form: str = ""  # the pair cases: PAIR (two requests in flight) or ONE (one request in flight)


NOISE = "skipped a line that is not protocol without closing or reporting it"
UNTRUSTED = "used a response from a line that is not exactly one UTF-8 JSON value"
CASES: tuple[Case, ...] = (
    Case("banner-before-response", "a banner line before the first response", "first", tolerated=NOISE),
    Case("log-between-responses", "a log line between two responses", "second", tolerated=NOISE),
    Case(
        "banner-same-line",
        "a banner on the same line as a response",
        "target",
        tolerant="FAIL",
        tolerated=UNTRUSTED,
    ),
    Case("split-response", "a response split across two writes with a pause", "target", legal=True),
    Case(
        "concatenated-responses",
        "two responses concatenated on one line",
        "pair",
        tolerant="FAIL",
        tolerated=UNTRUSTED,
        form=PAIR,
    ),
    Case(
        "invalid-utf8",
        "bytes that are not UTF-8 inside a result",
        "target",
        tolerant="FAIL",
        tolerated=UNTRUSTED,
    ),
    Case(
        "unknown-id",
        "a response with an id the client never sent, before the real one",
        "target",
        tolerated="dropped a response it cannot attribute without a word",
    ),
    Case("swapped-responses", "two responses in the other order", "pair", legal=True, form=PAIR),
    Case(
        "server-request",
        "a server-to-client request (roots/list) in a 2026-07-28 session",
        "target",
        tolerated="answered or ignored a request the 2026-07-28 revision does not allow",
    ),
    Case(
        "truncated-eof",
        "the last response cut in half, then EOF",
        "last",
        tolerant="FAIL",
        tolerated="went on as if its server had not ended in the middle of a response",
    ),
)
BY_ID = {case.id: case for case in CASES}
ONE_IN_FLIGHT: dict[str, Case] = {  # the pair cases played to a client with one request in flight
    "concatenated-responses": Case(
        "concatenated-responses",
        "a notification and a response concatenated on one line",
        "target",
        tolerant="FAIL",
        tolerated=UNTRUSTED,
        form=ONE,
    ),
    "swapped-responses": Case(
        "swapped-responses",
        "the answer to the request the client sends next, before the answer it waits for",
        "next",
        tolerated="dropped (or kept) an answer to a request it had not sent yet, without a word",
        form=ONE,
    ),
}


def played_as(case_id: str, form: str | None) -> Case:
    """The case as it was played: a pair case's one-in-flight form, or the case itself."""
    return ONE_IN_FLIGHT[case_id] if form == ONE and case_id in ONE_IN_FLIGHT else BY_ID[case_id]
