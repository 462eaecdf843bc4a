"""The session and status rules' harder cases (check/http/session.py, broadcast.py): servers that
support only 2026-07-28 and the session ids they must not mint or echo, SSE streams read side by
side (a progress notification belongs to the request that declared its token), and hostile
transcripts (messages nested deeper than orjson writes, a 0.9 MiB session id, thousands of
sessions). The plain tables: test_hr_table.py; recorded processes: test_hr_recorded.py."""

from __future__ import annotations

import base64
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from mcptape.check.analyze import analyze_file
from mcptape.check.http import broadcast, session
from mcptape.check.http.sessionrules import ROWS
from mcptape.check.http.transport import HttpTransport
from mcptape.check.model import Finding
from tests.check.rules.sessions import (
    CASES,
    DISCOVER,
    DISCOVER_HEADERS,
    GET_STREAM,
    IN_SESSION,
    OPEN,
    SID,
    errored,
    json_answer,
    legacy_call,
    legacy_result,
    progress,
    request_of,
)
from tests.check.rules.transport import (
    HR_RULES,
    OK_JSON,
    answer,
    call,
    call_headers,
    http_findings,
    post,
    sse,
    transcript,
)


def discovered(*versions: str) -> bytes:
    """A server/discover answer listing `versions`."""
    found = {"supportedVersions": list(versions), "capabilities": {}, "resultType": "complete"}
    return orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": found})


ONLY, BOTH = discovered("2026-07-28"), discovered("2026-07-28", "2025-11-25")
ONLY_MODERN = (post(DISCOVER, headers=DISCOVER_HEADERS), json_answer("200 OK", ONLY))
CARRYING = {**call_headers, "Mcp-Session-Id": "abc"}  # a 2026-07-28 request carrying a session id
RESULT = OK_JSON.split(b"\r\n\r\n")[1]


MODERN_CASES: dict[str, tuple[list[tuple[bytes, bytes]], list[tuple[str, int]]]] = {
    # (2026-07-28) "A server that supports only this revision and receives such traffic from an older
    # client SHOULD respond as follows: ... An Mcp-Session-Id header on a request: ignore it, and do
    # not mint or echo session IDs."
    "2026-07-28-only-server-echoes": (
        [ONLY_MODERN, (post(call, headers=CARRYING), json_answer("200 OK", RESULT, SID))],
        [("http-modern-session", 2)],
    ),
    "2026-07-28-only-server-mints": (
        [
            ONLY_MODERN,
            (post(call, headers=CARRYING), json_answer("200 OK", RESULT, "mcp-session-id: new\r\n")),
        ],
        [("http-modern-session", 2)],
    ),
    "2026-07-28-only-server-echoes-once-per-id": (
        [ONLY_MODERN, *[(post(call, headers=CARRYING), json_answer("200 OK", RESULT, SID))] * 3],
        [("http-modern-session", 2)],
    ),
    "2026-07-28-only-discover-answer-echoes": (
        [
            (
                post(DISCOVER, headers={**DISCOVER_HEADERS, "Mcp-Session-Id": "abc"}),
                json_answer("200 OK", ONLY, SID),
            )
        ],
        [("http-modern-session", 1)],
    ),
    "2026-07-28-only-server-ignores-it": (
        [ONLY_MODERN, (post(call, headers=CARRYING), OK_JSON)],
        [],
    ),
    "2026-07-28-only-server-refusing-with-it": (
        [
            ONLY_MODERN,
            (post(call, headers=CARRYING), json_answer("400 Bad Request", errored(1, -32600), SID)),
        ],
        [],
    ),
    "2026-07-28-only-server-minting-for-a-request-without-one": (
        [ONLY_MODERN, (post(call, headers=call_headers), json_answer("200 OK", RESULT, SID))],
        [],
    ),
    "a-server-of-both-revisions-is-not-bound": (
        [
            (post(DISCOVER, headers=DISCOVER_HEADERS), json_answer("200 OK", BOTH)),
            (post(call, headers=CARRYING), json_answer("200 OK", RESULT, SID)),
        ],
        [],
    ),
    "a-server-that-answered-initialize-is-not-bound": (
        [*OPEN, (post(call, headers=CARRYING), json_answer("200 OK", RESULT, SID))],
        [],
    ),
    "an-older-server-refusing-discover-with-a-minted-id": (
        [
            (
                post(DISCOVER, headers=DISCOVER_HEADERS),
                json_answer("400 Bad Request", errored(None, -32600), SID),
            )
        ],
        [],
    ),
    "a-2026-07-28-result-shows-the-revision": (
        [(post(call, headers=CARRYING), json_answer("200 OK", RESULT, SID))],
        [("http-modern-session", 1)],
    ),
    "an-error-shows-no-revision": (
        [(post(call, headers=CARRYING), json_answer("200 OK", errored(1, -32602), SID))],
        [],
    ),
}


@pytest.mark.parametrize("case", MODERN_CASES, ids=MODERN_CASES.keys())
def test_only_a_server_supporting_only_2026_07_28_is_held_to_its_session_sentence(
    tmp_path: Path, case: str
) -> None:
    """A 2xx answer echoing or minting a session id to a request carrying one is found once the
    server showed it supports only 2026-07-28 (its server/discover, a 2026-07-28 result), once per
    id; a server of both revisions, an older one, a refusal, a request without an id are not."""
    exchanges, expected = MODERN_CASES[case]
    assert [
        (rule, x) for rule, x, _, _ in http_findings(transcript(tmp_path / "t.jsonl", exchanges))
    ] == expected


def test_every_session_and_status_rule_has_a_positive_case() -> None:
    """No rule of check/http/session.py goes untested, and its public id is the contract's."""
    assert [row[0] for row in ROWS] == HR_RULES
    cases = [*CASES.values(), *MODERN_CASES.values(), *STREAM_CASES.values()]
    assert {rule for _, expected in cases for rule, _ in expected} >= set(HR_RULES)


# -- SSE streams read side by side -------------------------------------------------------------
Step = tuple[int, bool, bytes]  # (exchange, a response's bytes?, the bytes)
INITIALIZED: list[Step] = [(1, False, OPEN[0][0]), (1, True, OPEN[0][1])]
CALL = post(legacy_call(2, 5), headers=IN_SESSION)  # a call declaring progress token 5


def sse_answer(*events: bytes) -> bytes:
    return answer("200 OK", "text/event-stream", sse(*events))


def interleaved(path: Path, steps: list[Step]) -> Path:
    """A transcript of exchanges whose records come in the order of `steps` (streams side by side)."""
    lines: list[dict[str, object]] = [{"mcptape": 1, "started": "", "command": [], "cwd": "", "recorder": {}}]
    for n, (x, response, data) in enumerate(steps, start=1):
        channel = "http-out" if response else "http-in"
        lines.append({"t": n / 100, "ch": channel, "x": x, "b64": base64.b64encode(data).decode()})
    lines.append({"t": len(steps), "ch": "exit", "code": 0, "signal": None})
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return path


STREAM_CASES: dict[str, tuple[list[Step], list[tuple[str, int]]]] = {
    # "The server MUST send each of its JSON-RPC messages on only one of the connected streams"
    "progress-on-the-call-and-the-get-stream": (
        [
            *INITIALIZED,
            (2, False, CALL),
            (3, False, GET_STREAM),
            (3, True, sse_answer(progress(5, 1))),
            (2, True, sse_answer(progress(5, 1), legacy_result(2))),
        ],
        [("http-broadcast", 2)],
    ),
    "the-get-copy-recorded-after-the-call-ended": (
        [
            *INITIALIZED,
            (2, False, CALL),
            (3, False, GET_STREAM),
            (2, True, sse_answer(progress(5, 1), legacy_result(2))),
            (3, True, sse_answer(progress(5, 1))),
        ],
        [("http-broadcast", 3)],
    ),
    "progress-steps-on-two-streams": (
        [
            *INITIALIZED,
            (2, False, CALL),
            (3, False, GET_STREAM),
            (3, True, sse_answer(progress(5, 1))),
            (2, True, sse_answer(progress(5, 2), legacy_result(2))),
        ],
        [],
    ),
    # (a token two active requests declared is the client's fault: whose progress it is is unknown)
    "two-active-calls-declaring-one-token": (
        [
            *INITIALIZED,
            (2, False, CALL),
            (3, False, post(legacy_call(3, 5), headers=IN_SESSION)),
            (2, True, sse_answer(progress(5, 1), legacy_result(2))),
            (3, True, sse_answer(progress(5, 1), legacy_result(3))),
        ],
        [],
    ),
}


@pytest.mark.parametrize("case", STREAM_CASES, ids=STREAM_CASES.keys())
def test_a_progress_notification_is_one_message_of_the_request_that_declared_its_token(
    tmp_path: Path, case: str
) -> None:
    """Progress is keyed by its token, its value and the latest request that declared the token: the
    same progress of one call on its stream and the GET stream is a broadcast (even recorded after
    the call ended), the next step or another call's progress is not."""
    steps, expected = STREAM_CASES[case]
    found = http_findings(interleaved(tmp_path / "t.jsonl", steps))
    assert [(rule, x) for rule, x, _, _ in found] == expected


# -- hostile transcripts -------------------------------------------------------------------------
def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


DEEP = b'{"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{"x":' + nested(300) + b"}}"
DEEP_ERROR = b'{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"m","data":' + nested(1000) + b"}}"
DEEP_ANSWER = b'{"jsonrpc":"2.0","id":9,"result":{"x":' + nested(300) + b"}}"


def test_messages_nested_deeper_than_orjson_writes_are_judged_from_their_bytes(tmp_path: Path) -> None:
    """orjson reads 1024 levels and writes 255: a server request nested 300 deep on two streams, a
    2026-07-28 error nested 1000 deep sent with 200, a response nested 300 deep on another request's
    stream are each found, their bytes those of the transcript, and `mcptape check` reports them."""
    from mcptape.commands.check import check_command

    path = transcript(
        tmp_path / "deep.jsonl",
        [
            *OPEN,
            (post(legacy_call(2), headers=IN_SESSION), sse_answer(DEEP, legacy_result(2))),
            (GET_STREAM, sse_answer(DEEP)),
            (post(call, headers=call_headers), json_answer("200 OK", DEEP_ERROR)),
            (post(legacy_call(3), headers=IN_SESSION), sse_answer(DEEP_ANSWER, legacy_result(3))),
        ],
    )
    assert http_findings(path) == [
        ("http-broadcast", 3, 0, DEEP),
        ("http-error-status", 4, 0, DEEP_ERROR),
        ("http-wrong-stream", 5, 0, DEEP_ANSWER),
    ]
    for options in ([], ["--json"]):
        res = CliRunner().invoke(check_command, [str(path), *options])
        assert res.exit_code == 1 and (res.exception is None or isinstance(res.exception, SystemExit))
        assert "http-broadcast" in res.output and "Traceback" not in res.output


def test_a_huge_session_id_is_quoted_short_and_reported_once(tmp_path: Path) -> None:
    """A 0.9 MiB session id with spaces, echoed by a server that supports only 2026-07-28 on three
    answers: one http-session-id-chars, one http-modern-session, each message a few hundred
    characters (the id cut at 80 bytes and counted)."""
    sid = "s " * (450 * 1024) + "s"  # (h11 strips a header value's trailing space)
    echoed = (
        post(call, headers={**call_headers, "Mcp-Session-Id": sid}),
        json_answer("200 OK", RESULT, f"mcp-session-id: {sid}\r\n"),
    )
    _, analysis = analyze_file(str(transcript(tmp_path / "big.jsonl", [ONLY_MODERN, echoed, echoed, echoed])))
    found = [f for f in analysis.findings if f.rule in HR_RULES]
    assert [(f.rule, f.line) for f in found] == [("http-session-id-chars", 2), ("http-modern-session", 2)]
    assert max(len(f.message) for f in analysis.findings) < 600
    assert f"...(+{len(sid) - 80} bytes)" in found[0].message


def _feed(transport: HttpTransport, x: int, request: bytes, response: bytes) -> None:
    transport.record(x, "http-in", x, request, 2 * x)
    transport.record(x + 0.5, "http-out", x, response, 2 * x + 1)


def test_the_session_tables_are_bounded(tmp_path: Path) -> None:
    """Sessions ended by DELETE, session ids reported and long ids are kept in bounded tables: the
    oldest forgotten first, an id over 64 characters kept as a 16-byte digest."""
    found: list[Finding] = []
    transport = HttpTransport(found.append)
    rules = transport.session_rules
    count = session.MAX_ENDED + 10
    for x in range(1, count + 1):
        sid = f"ended {x}" + "x" * (100 if x % 2 else 0)
        _feed(
            transport,
            x,
            request_of("DELETE", headers={"Mcp-Session-Id": sid}),
            answer("200 OK", None, b"", f"mcp-session-id: {sid}\r\n"),
        )
    assert len(rules.ended) == session.MAX_ENDED and len(rules.reported) == session.MAX_REPORTED
    assert broadcast.sid_key("ended 1" + "x" * 100) not in rules.ended
    assert all(len(key) <= broadcast.SHORT_ID for key in rules.ended)
    assert len([f for f in found if f.rule == "http-session-id-chars"]) == count
