"""The hard outputs for clients: the bytes each case writes, where, and what the client did next."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from mcptape.serve.injectcases import BY_ID, CASES
from mcptape.serve.judge import CLOSED, ENDED, ERROR, FAIL, HUNG, NA, PASS, TOLERANT, WARN, next_of, verdict
from mcptape.serve.session import Options
from mcptape.transcript.reader import open_transcript
from tests.serve.tapes import Run, Tape, call, request, result, serving, text, time_tape

TOKEN = "cafe0123"


def marker(case: str) -> bytes:
    return f"mcptape-inject-{case}-{TOKEN}".encode()


def session(
    tmp_path: Path, case: str, *, together: bool = True, record: Path | None = None, **extra: float
) -> Run:
    """The time tape served with one case to a client that sends what the recorded client did."""
    options = Options(inject=[case], token=TOKEN, hold=extra.get("hold", 2.0), pause=extra.get("pause", 0.3))
    with serving(time_tape().write(tmp_path / "t.jsonl"), options, record=record) as (client, run):
        client.send(request(1, "server/discover", meta=True))
        client.send(request(2, "tools/list", meta=True))
        client.send(call(3, "now", zone="UTC"))
        client.send(call(4, "now", zone="Europe/Paris"))
        if not together:  # wait for the answer to 4 before sending 5
            client.read_until(4, timeout=extra.get("hold", 2.0) + 2)
        client.send(call(5, "now", zone="Asia/Tokyo"))
    return run


def answer(rid: int, words: str) -> bytes:
    return orjson.dumps(text(rid, words))


def test_a_banner_comes_before_the_first_response(tmp_path: Path) -> None:
    """banner-before-response: a plain line, then the answer to server/discover."""
    run = session(tmp_path, "banner-before-response")
    assert run.lines()[0] == b"Server ready (" + marker("banner-before-response") + b")\n"
    assert orjson.loads(run.lines()[1])["id"] == 1


def test_a_log_line_comes_between_the_first_two_responses(tmp_path: Path) -> None:
    """log-between-responses: answer 1, the log line, answer 2."""
    lines = session(tmp_path, "log-between-responses").lines()
    assert orjson.loads(lines[0])["id"] == 1 and marker("log-between-responses") in lines[1]
    assert orjson.loads(lines[2])["id"] == 2


def test_a_banner_shares_the_line_of_the_first_tool_answer(tmp_path: Path) -> None:
    """banner-same-line: the answer to the first tools/call, a space and a banner, one newline."""
    lines = session(tmp_path, "banner-same-line").lines()
    assert lines[2] == answer(3, "12:00 UTC") + b" Server ready (" + marker("banner-same-line") + b")\n"


def test_a_response_is_split_across_two_writes_with_a_pause(tmp_path: Path) -> None:
    """split-response: the new transcript shows two out records for one line, --pause apart."""
    new = tmp_path / "new.jsonl"
    run = session(tmp_path, "split-response", record=new, pause=0.2)
    assert run.lines()[2] == answer(3, "12:00 UTC") + b"\n"
    outs = [e for e in open_transcript(new).events() if e.ch == "out"]
    first, second = outs[2], outs[3]
    assert not first.data.endswith(b"\n") and (first.data + second.data) == run.lines()[2]
    assert second.t - first.t >= 0.19


def test_two_responses_in_flight_are_concatenated_on_one_line(tmp_path: Path) -> None:
    """concatenated-responses: the answers to the two calls in flight at once, no newline between."""
    lines = session(tmp_path, "concatenated-responses").lines()
    assert lines[3] == answer(4, "13:00 CET") + answer(5, "21:00 JST") + b"\n"


def test_two_responses_in_flight_come_in_the_other_order(tmp_path: Path) -> None:
    """swapped-responses: the second request's answer first."""
    lines = session(tmp_path, "swapped-responses").lines()
    assert [orjson.loads(line)["id"] for line in lines[3:5]] == [5, 4]


def test_bytes_that_are_not_utf8_go_inside_the_result(tmp_path: Path) -> None:
    """invalid-utf8: ff fe inside the first string of the result, the line otherwise JSON."""
    line = session(tmp_path, "invalid-utf8").lines()[2]
    assert marker("invalid-utf8") + b"\xff\xfe" in line
    assert line.startswith(
        b'{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"12:00 UTC'
        + marker("invalid-utf8")
    )


def test_a_response_with_an_unknown_id_comes_before_the_real_one(tmp_path: Path) -> None:
    """unknown-id: a copy of the answer under an id the client never sent, then the answer."""
    lines = session(tmp_path, "unknown-id").lines()
    copy, real = orjson.loads(lines[2]), orjson.loads(lines[3])
    assert (
        copy["id"] == marker("unknown-id").decode() and copy["result"] == real["result"] and real["id"] == 3
    )


def test_a_server_request_is_sent_in_a_2026_07_28_session(tmp_path: Path) -> None:
    """server-request: roots/list under a marked id, before the first tool answer."""
    lines = session(tmp_path, "server-request").lines()
    assert orjson.loads(lines[2]) == {
        "jsonrpc": "2.0",
        "id": marker("server-request").decode(),
        "method": "roots/list",
    }


def test_a_server_request_is_not_applicable_to_a_legacy_session(tmp_path: Path) -> None:
    """Before 2026-07-28 a server may ask: the case is n/a, nothing is injected."""
    tape = Tape().client(request(1, "initialize", {"protocolVersion": "2025-06-18"}))
    tape.server(result(1, {"protocolVersion": "2025-06-18"}))
    tape.client(request(2, "tools/call", {"name": "now"})).server(text(2, "12:00")).end()
    with serving(tape.write(tmp_path / "t.jsonl"), Options(inject=["server-request"], token=TOKEN)) as (
        client,
        run,
    ):
        client.send(request(1, "initialize", {"protocolVersion": "2025-06-18"}))
        client.send(request(2, "tools/call", {"name": "now"}))
        client.read_until(2)
    assert len(run.lines()) == 2
    assert run.served is not None and "not 2026-07-28" in (run.served.applied[0].na or "")


def test_the_last_response_is_cut_in_half_then_stdout_ends(tmp_path: Path) -> None:
    """truncated-eof: half of the answer to the last recorded request, no newline, then EOF."""
    run = session(tmp_path, "truncated-eof")
    full = answer(5, "21:00 JST") + b"\n"
    assert run.out.endswith(b"\n" + full[: len(full) // 2])
    assert run.served is not None and run.served.closed_t is not None


def test_the_client_that_goes_on_after_a_banner_is_tolerant(tmp_path: Path) -> None:
    """It sent the requests the recording shows next: went on, a warning for a banner."""
    options = Options(inject=["banner-before-response"], token=TOKEN)
    with serving(time_tape().write(tmp_path / "t.jsonl"), options) as (client, run):
        client.send(request(1, "server/discover", meta=True))
        client.read_until(2)
        client.send(request(2, "tools/list", meta=True))
        client.send(call(3, "now", zone="UTC"))
    assert run.served is not None
    found = next_of(run.served.applied[0], run.served)
    assert found is not None and found.outcome == TOLERANT
    assert found.text == "went on: sent 2 more request(s) (tools/list, tools/call)"
    assert verdict(BY_ID["banner-before-response"], found.outcome) == WARN


def test_the_client_that_closes_after_a_banner_closed_the_session(tmp_path: Path) -> None:
    """It closed its side before the requests the recording shows next: closed, a pass."""
    options = Options(inject=["banner-before-response"], token=TOKEN)
    with serving(time_tape().write(tmp_path / "t.jsonl"), options) as (client, run):
        client.send(request(1, "server/discover", meta=True))
        client.read_until(2)
    assert run.served is not None
    found = next_of(run.served.applied[0], run.served)
    assert found is not None and found.outcome == CLOSED and "without the 4 request(s)" in found.text


def test_the_client_that_refuses_the_server_request_reported_an_error(tmp_path: Path) -> None:
    """An error answer to the injected roots/list is a reported error; a result is tolerance."""
    for reply, outcome in (
        ({"error": {"code": -32601, "message": "no"}}, ERROR),
        ({"result": {"roots": []}}, TOLERANT),
    ):
        options = Options(inject=["server-request"], token=TOKEN)
        with serving(time_tape().write(tmp_path / f"t{outcome}.jsonl"), options) as (client, run):
            client.send(call(3, "now", zone="UTC"))
            client.read_until(2)
            client.send({"jsonrpc": "2.0", "id": marker("server-request").decode(), **reply})
        assert run.served is not None
        found = next_of(run.served.applied[0], run.served)
        assert found is not None and found.outcome == outcome


@pytest.mark.parametrize(
    ("case", "outcome", "expected"),
    [
        ("split-response", TOLERANT, PASS),
        ("split-response", ERROR, FAIL),
        ("swapped-responses", ENDED, PASS),
        ("banner-before-response", TOLERANT, WARN),
        ("banner-same-line", TOLERANT, FAIL),
        ("concatenated-responses", CLOSED, PASS),
        ("invalid-utf8", HUNG, FAIL),
        ("truncated-eof", HUNG, FAIL),
        ("unknown-id", ERROR, PASS),
        ("server-request", None, NA),
    ],
)
def test_verdicts_follow_the_seed_a_tolerant_client_is_not_rewarded(
    case: str, outcome: str | None, expected: str
) -> None:
    """Going on is right only for valid traffic; elsewhere it warns, or fails where a response
    from a corrupt line was used."""
    assert verdict(BY_ID[case], outcome) == expected


def test_every_case_has_an_id_a_title_and_a_place() -> None:
    """The registry: ten cases, unique ids, each at a known place."""
    assert len(CASES) == 10 and len(BY_ID) == 10
    assert {case.where for case in CASES} == {"first", "second", "target", "pair", "last"}
