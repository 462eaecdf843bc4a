"""`serve --inject` names the request it played a case at: the method (the recording's and the
client's bytes) is escaped in the summary and in --listen's log line, like every other line serve
writes (a method holding ESC, BEL or NUL reached the terminal raw)."""

from __future__ import annotations

import http.client
from pathlib import Path

import orjson
import pytest

from tests.commands.tapes import unsafe_chars
from tests.serve.helpers import listening, mcptape
from tests.serve.tapes import Tape, request, result

METHOD = "\x1b]8;;http://e/\x07x\x1b]8;;\x07\x00"


def hostile_tape(path: Path) -> Path:
    """One request whose method is hostile text, and its recorded answer."""
    return Tape().client(request(1, METHOD)).server(result(1, {})).end().write(path)


def test_the_inject_summary_escapes_a_hostile_method(tmp_path: Path) -> None:
    """The stdio summary's inject line names the method escaped."""
    tape = hostile_tape(tmp_path / "t.jsonl")
    proc = mcptape(
        "serve", tape, "--inject", "banner-before-response", stdin=orjson.dumps(request(1, METHOD)) + b"\n"
    )
    err = proc.stderr.decode()
    assert "inject banner-before-response: at the answer to \\x1b]8;;http://e/\\x07x" in err, err
    assert unsafe_chars(err) == [], err


@pytest.mark.slow
def test_the_listen_inject_log_escapes_a_hostile_method(tmp_path: Path) -> None:
    """--listen's 'injected ... into the answer to' line names the client's method escaped."""
    tape = hostile_tape(tmp_path / "t.jsonl")
    with listening(tape, tmp_path, "--inject", "http-wrong-content-type") as (url, _proc, err):
        host, _, port = url.split("/")[2].partition(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=10)
        conn.request("POST", "/mcp", orjson.dumps(request(1, METHOD)), {"content-type": "application/json"})
        conn.getresponse().read()
        conn.close()
    text = err.read_text()
    assert "injected http-wrong-content-type into the answer to \\x1b]8;;" in text, text
    assert unsafe_chars(text) == [], text
