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


DEEP = b'{"a":' * 300 + b"1" + b"}" * 300


@pytest.mark.parametrize("case", ["unknown-id", "invalid-utf8"])
def test_an_inject_case_copies_an_answer_300_levels_deep(tmp_path: Path, case: str) -> None:
    """unknown-id and invalid-utf8 write a copy of the recorded answer: past orjson's 254 levels it
    is written by the depth-safe encoder (orjson's TypeError was a traceback, the client got nothing)."""
    answer = (
        b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}],"deep":' + DEEP + b"}}\n"
    )
    tape = (
        Tape()
        .client(request(1, "tools/call", {"name": "t"}))
        .raw("out", answer)
        .end()
        .write(tmp_path / "t.jsonl")
    )
    proc = mcptape(
        "serve", tape, "--inject", case, stdin=orjson.dumps(request(1, "tools/call", {"name": "t"})) + b"\n"
    )
    assert b"Traceback" not in proc.stderr and proc.returncode in (0, 1), proc.stderr.decode()
    assert b"mcptape-inject-" + case.encode() in proc.stdout
