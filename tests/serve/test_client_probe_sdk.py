"""Concatenated and reordered output judged for the official SDK client (mcp 2.x, stdio, the real
`Client` driven by `tests/serve/sdk_client.py`), in both forms: one request in flight (what the SDK
client does when a program awaits each call) and two (calls made concurrently, recorded against a
server slow enough for them to overlap). What the SDK does is asserted as it is: docs/serve.md
records these verdicts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from mcptape.serve.injectcases import ONE, PAIR
from tests.serve.helpers import PYTHON, SDK_CLIENT, client, mcptape, python_server, record, time_server

pytestmark = pytest.mark.slow

SDK_PARSE_ERROR = "Failed to parse JSONRPC message from server"


@pytest.fixture(scope="module")
def one_in_flight(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The SDK client against mcp-server-time, awaiting each call: never two requests in flight."""
    path = tmp_path_factory.mktemp("sdk-one") / "time.jsonl"
    proc = client(*record(path, time_server()))
    assert proc.returncode == 0, proc.stderr.decode()
    return path


ECHOES = [
    "--together",
    *("--call", 'echo={"word":"a"}', "--call", 'echo={"word":"b"}', "--call", 'echo={"word":"c"}'),
]


@pytest.fixture(scope="module")
def two_in_flight(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The SDK client against a slow server, its last two calls made concurrently: in flight at once."""
    path = tmp_path_factory.mktemp("sdk-two") / "slow.jsonl"
    proc = client(*ECHOES, *record(path, python_server("slow_server.py")))
    assert proc.returncode == 0, proc.stderr.decode()
    return path


def probe_sdk(
    recording: Path, out: Path, *cases: str, options: tuple[str, ...] = ()
) -> tuple[int, dict[str, Any]]:
    """`probe --client` with the SDK client script (exit 1 when a call raised): exit code and
    probe-client.json's cases by id."""
    args: list[str | Path] = ["probe", "--client", "--from", recording, "-o", out, "--step-timeout", "4"]
    for case in cases:
        args += ["--case", case]
    args += ["-j", "2", "--", PYTHON, SDK_CLIENT, "--exit-on-error", *options]
    proc = mcptape(*args, timeout=180)
    assert b"Traceback" not in proc.stderr, proc.stderr.decode()
    document = orjson.loads((out / "probe-client.json").read_bytes())
    cases_by_id = {case["id"]: case for case in document["cases"]}
    assert cases_by_id["start"]["verdict"] == "pass", cases_by_id["start"]
    return proc.returncode, cases_by_id


def test_the_sdk_client_with_one_request_in_flight_hangs_on_a_notification_glued_to_its_answer(
    one_in_flight: Path, tmp_path: Path
) -> None:
    """One request in flight: a notifications/message glued to the answer makes the SDK log a parse
    failure and drop the line, answer included, and the call waits for ever (no read timeout by
    default): hung, FAIL. The answer to its next request, sent before the answer it waits for, is
    dropped without a word (an id it has not sent) and it goes on: a warning. A cut last answer
    raises Connection closed in the call: reported (exit 1), pass."""
    code, cases = probe_sdk(
        one_in_flight, tmp_path / "out", "concatenated-responses", "swapped-responses", "truncated-eof"
    )
    glued = cases["concatenated-responses"]
    assert glued["serve"]["inject"][0]["form"] == ONE
    assert glued["verdict"] == "FAIL" and glued["hung"], glued
    assert glued["did"].startswith("hung: no exit") and SDK_PARSE_ERROR in glued["did"]
    early = cases["swapped-responses"]
    inject = early["serve"]["inject"][0]
    assert inject["form"] == ONE and inject["early_id"] is not None
    answered = [r["id"] for r in early["serve"]["requests"]]
    assert inject["early_id"] in answered[answered.index(inject["at"]["request_id"]) :]  # sent later
    assert (
        early["verdict"] == "warning"
        and early["did"] == "went on as if nothing happened: same output, exit 0"
    )
    cut = cases["truncated-eof"]
    assert cut["verdict"] == "pass" and cut["did"].startswith("reported an error: exit 1"), cut
    assert code == 1


def test_the_sdk_client_with_two_requests_in_flight_takes_swapped_answers_and_hangs_on_glued_ones(
    two_in_flight: Path, tmp_path: Path
) -> None:
    """Two calls in flight: the answers in the other order are valid traffic and the SDK takes them
    (pass); two answers on one line are dropped whole after a parse failure log, and both calls
    wait for ever: hung, FAIL."""
    code, cases = probe_sdk(
        two_in_flight, tmp_path / "out", "concatenated-responses", "swapped-responses", options=tuple(ECHOES)
    )
    swapped = cases["swapped-responses"]
    assert swapped["serve"]["inject"][0]["form"] == PAIR and swapped["legal"]
    assert swapped["verdict"] == "pass" and swapped["did"].startswith("went on as if nothing happened")
    glued = cases["concatenated-responses"]
    assert glued["serve"]["inject"][0]["form"] == PAIR
    assert (
        glued["verdict"] == "FAIL"
        and glued["did"].startswith("hung: no exit")
        and SDK_PARSE_ERROR in glued["did"]
    )
    assert code == 1
