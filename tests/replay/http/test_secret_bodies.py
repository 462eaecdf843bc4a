"""`--secret` over HTTP (replay/http/driver.py, no socket): the verified value goes into each
replayed request's body, whose Content-Length is set again; every other byte is the recorded one."""

from __future__ import annotations

from pathlib import Path

import h11

from mcptape.replay.http.driver import HttpDriver
from mcptape.replay.http.plan import make_http_plan
from mcptape.replay.outcome import Run
from mcptape.transcript.reader import open_transcript
from tests.replay.http.helpers import Tape


def test_the_transform_reaches_each_request_body_and_its_length(auto_tape: Tape, tmp_path: Path) -> None:
    """A transform standing for the secrets (Ada -> Adelaide): the greet request's body carries it,
    h11 reads the body whole at its new length, and a request without the value is unchanged."""
    plan = make_http_plan(open_transcript(auto_tape.path).events)
    driver = HttpDriver(
        plan,
        "127.0.0.1",
        9,
        Run(path=tmp_path / "new.jsonl"),
        transform=lambda b: b.replace(b"Ada", b"Adelaide"),
    )
    greet = next(s for s in plan.steps if b'"Ada"' in s.request.body)
    data = driver._request(greet)
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(data)
    assert isinstance(conn.next_event(), h11.Request)
    body = b""
    while isinstance(event := conn.next_event(), h11.Data):
        body += event.data
    assert isinstance(event, h11.EndOfMessage)
    assert body == greet.request.body.replace(b"Ada", b"Adelaide")
    other = next(s for s in plan.steps if b"Ada" not in s.request.raw and s.request.whole and not s.uses)
    assert driver._request(other).split(b"\r\n\r\n", 1)[1] == other.request.raw.split(b"\r\n\r\n", 1)[1]
