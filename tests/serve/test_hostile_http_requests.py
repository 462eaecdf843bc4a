"""`mcptape serve --listen` answers a POST whose JSON only Python's reader takes (a lone surrogate
escape, a number past a double): the session reads the body with the check core's reader, and the
POST must wait for the answer under that same id (orjson refused such a body, the POST waited under
no id, and the answer, under its real id, never ended the response: the client hung)."""

from __future__ import annotations

import http.client
import socket
from pathlib import Path

import orjson
import pytest

from tests.serve.helpers import listening
from tests.serve.tapes import call, time_tape

BODIES = {
    "lone-surrogate-escape": b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"\\ud800"}}',
    "number-past-a-double": b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","n":1e400}}',
}


def post(url: str, body: bytes) -> tuple[int, bytes]:
    host, _, port = url.split("/")[2].partition(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    conn.request("POST", "/mcp", body, {"content-type": "application/json", "accept": "application/json"})
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, data


def test_serve_listen_answers_a_request_only_pythons_json_reader_takes(tmp_path: Path) -> None:
    """Each such request gets its serve error under its own id within the client's timeout, and a
    recorded call is still served after them."""
    tape = time_tape().write(tmp_path / "t.jsonl")
    with listening(tape, tmp_path) as (url, _proc, _err):
        for body in BODIES.values():
            status, data = post(url, body)
            assert status == 200
            answer = orjson.loads(data)
            assert answer["id"] == 7 and answer["error"]["code"] == -32001
        status, data = post(url, orjson.dumps(call(8, "now", zone="UTC")))
        assert status == 200 and orjson.loads(data)["result"]["content"][0]["text"] == "12:00 UTC"


pytestmark = pytest.mark.slow


LAST_EVENT_IDS = {
    "stream-number-of-5000-digits": "9" * 5000 + "-1",
    "event-number-of-5000-digits": "1-" + "9" * 5000,
    "superscript-digit": "\u00b9-1",
}


@pytest.mark.parametrize("last_id", LAST_EVENT_IDS.values(), ids=LAST_EVENT_IDS.keys())
def test_serve_listen_refuses_a_last_event_id_that_is_no_stream_number(tmp_path: Path, last_id: str) -> None:
    """A Last-Event-ID int() cannot convert (more than 4300 digits, a digit that is not ASCII) is an
    unknown id (400), not a ValueError traceback in the connection's thread and a dropped connection."""
    tape = time_tape().write(tmp_path / "t.jsonl")
    with listening(tape, tmp_path) as (url, _proc, err):
        host, _, port = url.split("/")[2].partition(":")
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            head = (
                f"GET /mcp HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\nLast-Event-ID: {last_id}\r\n"
            )
            head += "\r\n"
            sock.sendall(head.encode())
            assert sock.recv(100).startswith(b"HTTP/1.1 400 ")
    assert "Traceback" not in err.read_text()
