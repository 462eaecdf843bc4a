"""`mcptape probe --client` gives verdicts that match what happened: a client that hangs after a
hard output fails; concatenated and reordered output reach a client with one request in flight; a
client that exits 0 with another output went on with a wrong answer. Real processes over real
pipes: `tests/serve/raw_client.py` (one request in flight, four ways of reading stdout) against
`mcptape serve`, and served sessions over pipes for the bytes on the wire."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from mcptape.serve.injectcases import BY_ID, ONE, ONE_IN_FLIGHT, PAIR, played_as
from mcptape.serve.judge import (
    CLOSED,
    ENDED,
    ERROR,
    FAIL,
    HUNG,
    INCONCLUSIVE,
    OUTCOME_TEXT,
    PASS,
    TOLERANT,
    WAITED,
    WARN,
    WRONG,
    verdict,
)
from mcptape.serve.session import Options
from tests.serve.helpers import HERE, PYTHON, mcptape
from tests.serve.tapes import Tape, call, request, result, serving, text, time_tape

pytestmark = pytest.mark.slow

RAW_CLIENT = HERE / "raw_client.py"
TOKEN = "beef4567"


def one_in_flight_tape() -> Tape:
    """A 2026-07-28 session whose client waited for each answer (what raw_client.py sends)."""
    tape = Tape()
    tape.client(request(1, "server/discover", meta=True)).server(
        result(1, {"supportedVersions": ["2026-07-28"]})
    )
    tape.client(request(2, "tools/list", meta=True)).server(result(2, {"tools": [{"name": "now"}]}))
    tape.client(call(3, "now", zone="UTC")).server(text(3, "12:00 UTC"))
    tape.client(call(4, "now", zone="Europe/Paris")).server(text(4, "13:00 CET"))
    tape.client(call(5, "now", zone="Asia/Tokyo")).server(text(5, "21:00 JST"))
    return tape.end()


def probe(
    tmp_path: Path, reader: str, *cases: str, step: float = 1.5, tape: Tape | None = None
) -> tuple[int, dict[str, Any], str]:
    """`probe --client` with raw_client.py reading the given way against `tape` (default: one
    request in flight): exit code, probe-client.json by case id, the table."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    recording = (tape or one_in_flight_tape()).write(tmp_path / "one.jsonl")
    args: list[str | Path] = ["probe", "--client", "--from", recording, "-o", tmp_path / "out"]
    for case in cases:
        args += ["--case", case]
    args += ["--step-timeout", str(step), "-j", "2", "--", PYTHON, RAW_CLIENT, "--reader", reader]
    proc = mcptape(*args, timeout=120)
    assert b"Traceback" not in proc.stderr, proc.stderr.decode()
    document = orjson.loads((tmp_path / "out" / "probe-client.json").read_bytes())
    by_id = {case["id"]: case for case in document["cases"]}
    assert by_id["start"]["verdict"] == PASS, by_id["start"]
    return proc.returncode, by_id, proc.stdout.decode()


def out_lines(transcript: Path) -> list[bytes]:
    """What serve wrote to the client in a case's served transcript, line by line."""
    data = b""
    for line in transcript.read_bytes().splitlines()[1:]:
        event = orjson.loads(line)
        if event.get("ch") == "out":
            data += event["data"].encode()
    return data.splitlines(keepends=True)


def test_a_client_that_hangs_after_a_hard_output_fails(tmp_path: Path) -> None:
    """A client that skips a line it cannot parse and waits for its answer with no time limit:
    after a banner on its answer's line it neither exits nor sends a request; FAIL, exit 1."""
    code, cases, table = probe(tmp_path, "skipping", "banner-same-line", "banner-before-response")
    hung = cases["banner-same-line"]
    assert hung["hung"] and hung["verdict"] == FAIL, hung
    assert hung["did"].startswith("hung: no exit") and "no request after the hard output" in hung["did"]
    assert hung["reasons"][0].startswith("hung:")
    assert cases["banner-before-response"]["verdict"] == WARN  # the answer still came: it went on
    assert code == 1
    assert "banner-same-line        FAIL     hung: no exit" in table


def test_a_client_that_takes_any_answer_in_flight_went_on_with_a_wrong_answer(tmp_path: Path) -> None:
    """One request in flight: the recorded answer to its next request (id 4, not sent yet) comes
    before the answer to 3; a client that takes whatever answer comes prints 13:00 CET for the
    UTC call and exits 0: went on with a wrong answer, FAIL."""
    code, cases, _ = probe(tmp_path, "in-flight", "swapped-responses")
    case = cases["swapped-responses"]
    assert case["title"] == ONE_IN_FLIGHT["swapped-responses"].title and not case["legal"]
    assert case["verdict"] == FAIL and case["exit"] == 0, case
    assert case["did"] == (
        'went on with a wrong answer: exit 0, its output differs from the clean run: "13:00 CET"'
    )
    assert "reported" not in case["did"]
    lines = out_lines(Path(case["transcript"]))
    assert [orjson.loads(line)["id"] for line in lines[2:5]] == [4, 3, 4]  # early 4, then 3, then 4 again
    assert case["serve"]["inject"][0]["early_id"] == 4 and case["serve"]["inject"][0]["form"] == ONE
    assert code == 1


def test_a_strict_client_refuses_an_answer_to_a_request_it_has_not_sent(tmp_path: Path) -> None:
    """The same reordered output to a client that checks ids: it says so and exits 1; pass."""
    code, cases, _ = probe(tmp_path, "strict", "swapped-responses", "concatenated-responses")
    swapped = cases["swapped-responses"]
    assert swapped["verdict"] == PASS and swapped["did"].startswith("reported an error: exit 1"), swapped
    assert "a response to id 4, which is not in flight" in swapped["did"]
    glued = cases["concatenated-responses"]
    assert glued["verdict"] == PASS and glued["did"].startswith("reported an error: exit 1"), glued
    assert code == 0


def test_a_notification_glued_to_the_answer_reaches_a_client_with_one_request_in_flight(
    tmp_path: Path,
) -> None:
    """concatenated-responses against a client that never has two requests in flight: a
    notifications/message and the answer to the first call on one line; a client that reads every
    JSON value of a line uses that answer (FAIL), one that skips the line hangs (FAIL)."""
    _, stream, _ = probe(tmp_path / "stream", "stream", "concatenated-responses")
    glued = stream["concatenated-responses"]
    assert glued["title"] == "a notification and a response concatenated on one line"
    assert glued["verdict"] == FAIL and glued["did"].startswith("went on as if nothing happened"), glued
    assert (
        "tolerant: used a response from a line that is not exactly one UTF-8 JSON value" in glued["reasons"]
    )
    line = out_lines(Path(glued["transcript"]))[2]
    note = orjson.dumps(
        {
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {
                "level": "info",
                "logger": "mcptape",
                "data": f"cache warmed ({glued['serve']['inject'][0]['marker']})",
            },
        }
    )
    assert line == note + orjson.dumps(text(3, "12:00 UTC")) + b"\n"
    _, skipping, _ = probe(tmp_path / "skipping", "skipping", "concatenated-responses")
    assert skipping["concatenated-responses"]["verdict"] == FAIL
    assert skipping["concatenated-responses"]["did"].startswith("hung: no exit")


def test_a_pair_case_falls_back_to_its_one_in_flight_form_when_the_client_waits(tmp_path: Path) -> None:
    """A recording with two requests in flight, a client that waits for each answer: when the held
    answer's deadline passes, the answer to the request it has not sent yet comes first (then the
    held one), played as the one-in-flight form; the pair form is kept for a client that sends both."""
    options = Options(inject=["swapped-responses"], token=TOKEN, hold=0.3)
    with serving(time_tape().write(tmp_path / "t.jsonl"), options) as (client, run):
        for message in (
            request(1, "server/discover", meta=True),
            request(2, "tools/list", meta=True),
            call(3, "now", zone="UTC"),
            call(4, "now", zone="Europe/Paris"),
        ):
            client.send(message)
        client.read_until(5, timeout=3)
        client.send(call(5, "now", zone="Asia/Tokyo"))
        client.read_until(6)
    assert [orjson.loads(line)["id"] for line in run.lines()] == [1, 2, 3, 5, 4, 5]
    assert run.served is not None
    applied = run.served.applied[0]
    assert applied.case.form == ONE and applied.na is None and applied.early_id == 5
    options = Options(inject=["swapped-responses"], token=TOKEN)
    with serving(time_tape().write(tmp_path / "t2.jsonl"), options) as (client, run):
        for message in (call(3, "now", zone="UTC"), call(4, "now", zone="Europe/Paris")):
            client.send(message)
        client.send(call(5, "now", zone="Asia/Tokyo"))
        client.read_until(3)
    assert [orjson.loads(line)["id"] for line in run.lines()] == [3, 5, 4]
    assert run.served is not None and run.served.applied[0].case.form == PAIR


def test_a_client_waiting_out_the_hold_of_a_pair_is_not_hung(tmp_path: Path) -> None:
    """A recording with two requests in flight, a strict client that waits for each answer, a step
    shorter than serve's 2 s hold: the time limit covers the hold, the one-in-flight form is played
    after it, and the client refuses the early answer (exit 1): pass, not hung."""
    code, cases, _ = probe(tmp_path, "strict", "swapped-responses", step=0.5, tape=time_tape())
    case = cases["swapped-responses"]
    assert not case["hung"] and case["serve"]["inject"][0]["form"] == ONE, case
    assert case["verdict"] == PASS and "a response to id 5, which is not in flight" in case["did"]
    assert code == 0


def test_a_pair_case_whose_client_leaves_during_the_hold_is_not_applicable(tmp_path: Path) -> None:
    """The client closes its side while the answer to the pair's first request is held: nothing was
    played to judge, the held answer is written as it is, n/a says so."""
    options = Options(inject=["concatenated-responses"], token=TOKEN, hold=5.0)
    with serving(time_tape().write(tmp_path / "t.jsonl"), options) as (client, run):
        client.send(call(4, "now", zone="Europe/Paris"))
    assert [orjson.loads(line)["id"] for line in run.lines()] == [4]
    assert run.served is not None
    applied = run.served.applied[0]
    assert not applied.done
    assert applied.na == "the session ended while the answer was held for the pair's second request"


def test_reordered_output_needs_ids_that_can_be_foreseen(tmp_path: Path) -> None:
    """A client whose ids are not the recorded ones nor a step from them (strings of its own): the
    id of its next request cannot be told, so nothing is answered early; the case says why."""
    options = Options(inject=["swapped-responses"], token=TOKEN)
    with serving(one_in_flight_tape().write(tmp_path / "t.jsonl"), options) as (client, run):
        for rid, zone in (("u-1", "UTC"), ("u-2", "Europe/Paris"), ("u-3", "Asia/Tokyo")):
            client.send(call(rid, "now", zone=zone))
            client.read_until(len(run.lines()) + 1)
    assert [orjson.loads(line)["id"] for line in run.lines()] == ["u-1", "u-2", "u-3"]
    assert run.served is not None
    assert run.served.applied[0].na == (
        "not reached: the client's ids do not follow the recorded ones ('u-1' for 3); "
        "no request follows it in the recording"
    )


def test_the_early_answer_is_never_one_to_a_request_already_sent(tmp_path: Path) -> None:
    """A client that sends the calls in the other order (5, 4, 3): each call's next recorded request
    was already sent (or there is none), so no answer is played early; the case says why."""
    options = Options(inject=["swapped-responses"], token=TOKEN)
    with serving(one_in_flight_tape().write(tmp_path / "t.jsonl"), options) as (client, run):
        for count, (rid, zone) in enumerate(((5, "Asia/Tokyo"), (4, "Europe/Paris"), (3, "UTC")), start=1):
            client.send(call(rid, "now", zone=zone))
            client.read_until(count)
    assert [orjson.loads(line)["id"] for line in run.lines()] == [5, 4, 3]
    assert run.served is not None
    assert run.served.applied[0].na == (
        "not reached: no request follows it in the recording; "
        "the client had already sent the request that follows it (two in flight)"
    )


def test_the_one_in_flight_forms_are_played_as_themselves() -> None:
    """The report's form names the case as played: its title and whether it is valid traffic."""
    assert played_as("swapped-responses", PAIR).legal
    assert not played_as("swapped-responses", ONE).legal
    assert played_as("concatenated-responses", ONE).title.startswith("a notification and a response")
    assert played_as("banner-same-line", ONE) is BY_ID["banner-same-line"]


@pytest.mark.parametrize(
    "case", ["banner-before-response", "split-response", "unknown-id", "swapped-responses"]
)
def test_hanging_and_a_wrong_answer_fail_every_case(case: str) -> None:
    """Hung (no exit by the time limit) and went on with a wrong answer (exit 0, another output)
    are FAIL whatever the case, valid traffic included; waiting seen from the wire alone is not."""
    for form in (PAIR, ONE):
        played = played_as(case, form)
        assert verdict(played, HUNG) == FAIL and verdict(played, WRONG) == FAIL
    assert verdict(BY_ID[case], WAITED) == (FAIL if BY_ID[case].legal else WARN)
    assert OUTCOME_TEXT[WRONG] == "went on with a wrong answer"


def test_the_reordered_answer_with_one_request_in_flight_is_not_valid_traffic() -> None:
    """Refusing it passes; going on with the same output warns (it dropped or kept an answer to a
    request it had not sent); the pair form still passes a client that takes it."""
    single = ONE_IN_FLIGHT["swapped-responses"]
    assert (verdict(single, ERROR), verdict(single, CLOSED)) == (PASS, PASS)
    assert verdict(single, TOLERANT) == WARN and verdict(single, ENDED) == INCONCLUSIVE
    assert verdict(BY_ID["swapped-responses"], TOLERANT) == PASS
    assert verdict(ONE_IN_FLIGHT["concatenated-responses"], TOLERANT) == FAIL
