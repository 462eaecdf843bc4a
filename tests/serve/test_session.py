"""A served session over real pipes: answers under the client's ids, errors for what the
recording cannot answer, causal places for notifications and server requests, --exact."""

from __future__ import annotations

from pathlib import Path

import orjson

from mcptape.serve.session import NO_ANSWER, Options
from mcptape.transcript.reader import open_transcript
from tests.serve.tapes import Tape, call, notification, request, result, serving, text, time_tape


def test_each_request_is_answered_under_the_clients_own_id(tmp_path: Path) -> None:
    """Ids "a" and 42 get the recorded answers to recorded ids 3 and 5, rewritten."""
    with serving(time_tape().write(tmp_path / "t.jsonl")) as (client, run):
        client.send(call("a", "now", zone="UTC"))
        client.send(call(42, "now", zone="Asia/Tokyo"))
        client.read_until(2)
    assert [(m["id"], m["result"]["content"][0]["text"]) for m in run.messages()] == [
        ("a", "12:00 UTC"),
        (42, "21:00 JST"),
    ]
    assert run.served is not None and run.served.count("served") == 2 and len(run.served.unused) == 3


def test_a_request_the_recording_never_saw_gets_an_error_and_a_line_on_stderr(tmp_path: Path) -> None:
    """No recorded answer: a JSON-RPC error under its id, one stderr line naming the nearest call."""
    with serving(time_tape().write(tmp_path / "t.jsonl")) as (client, run):
        client.send(call(7, "now", zone="Mars/Olympus"))
        client.read_until(1)
    (answer,) = run.messages()
    assert answer["id"] == 7 and answer["error"]["code"] == NO_ANSWER
    (line,) = run.log
    assert "no recorded answer for tools/call now" in line and '"UTC" -> "Mars/Olympus"' in line
    assert run.served is not None and run.served.count("unmatched") == 1


def test_lines_that_are_not_protocol_get_json_rpc_errors(tmp_path: Path) -> None:
    """Garbage gets -32700 (id null), an invalid request -32600 under its id; serve goes on."""
    with serving(time_tape().write(tmp_path / "t.jsonl")) as (client, run):
        client.send(b"hello there\n")
        client.send({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": "now"})
        client.send(call(1, "now", zone="UTC"))
        client.read_until(3)
    codes = [(m["id"], m.get("error", {}).get("code")) for m in run.messages()]
    assert codes == [(None, -32700), (5, -32600), (1, None)]
    assert run.served is not None and run.served.count("garbage") == 2
    assert len(run.log) == 2 and all("not a request serve can answer" in line for line in run.log)


def test_notifications_and_server_requests_are_played_where_they_happened(tmp_path: Path) -> None:
    """A progress notification comes before its call's answer; a legacy elicitation's result only
    after the client answered it."""
    tape = Tape().client(request(1, "initialize", {"protocolVersion": "2025-06-18"}))
    tape.server(result(1, {"protocolVersion": "2025-06-18"}))
    tape.client(request(2, "tools/call", {"name": "greet", "arguments": {}}))
    tape.server(notification("notifications/progress", {"progressToken": "p", "progress": 1}))
    tape.server(request(0, "elicitation/create", {"message": "name?"}))
    tape.client(result(0, {"action": "accept", "content": {"name": "Ada"}}))
    tape.server(text(2, "Hello, Ada!")).end()
    with serving(tape.write(tmp_path / "t.jsonl")) as (client, run):
        client.send(request(10, "initialize", {"protocolVersion": "2025-06-18"}))
        client.send(request(11, "tools/call", {"name": "greet", "arguments": {}}))
        client.read_until(3)
        assert b"Hello" not in run.out  # the answer waits for the client's answer
        client.send(result(0, {"action": "accept", "content": {"name": "Ada"}}))
        client.read_until(4)
    kinds = [m.get("method") or m["id"] for m in run.messages()]
    assert kinds == [10, "notifications/progress", "elicitation/create", 11]


def test_an_mrtr_round_is_two_requests_each_with_its_recorded_result(tmp_path: Path) -> None:
    """input_required with a requestState, then the retry echoing it: both answered as recorded."""
    ask = {"resultType": "input_required", "inputRequests": {"n": {"method": "elicitation/create"}}}
    tape = Tape().client(call(1, "greet")).server(result(1, {**ask, "requestState": "state-0123456789"}))
    retry = call(2, "greet")
    retry["params"].update(requestState="state-0123456789", inputResponses={"n": {"action": "accept"}})
    tape.client(retry).server(text(2, "Hello!")).end()
    with serving(tape.write(tmp_path / "t.jsonl")) as (client, run):
        client.send(call(5, "greet"))
        client.read_until(1)
        retry["id"] = 6
        client.send(retry)
        client.read_until(2)
    first, second = run.messages()
    assert first["result"]["requestState"] == "state-0123456789"
    assert second["id"] == 6 and second["result"]["content"][0]["text"] == "Hello!"


def test_exact_plays_the_recorded_noise_and_the_default_leaves_it_out(tmp_path: Path) -> None:
    """A banner before the answer: --exact writes it, byte for byte; the default does not."""
    tape = Tape().raw("out", b"\x1b[32mServer ready\x1b[0m\n").client(call(1, "now", zone="UTC"))
    tape.server(text(1, "12:00 UTC")).end()
    path = tape.write(tmp_path / "t.jsonl")
    with serving(path, Options(exact=True)) as (client, exact):
        client.send(call(1, "now", zone="UTC"))
        client.read_until(2)
    with serving(path) as (client, plain):
        client.send(call(1, "now", zone="UTC"))
        client.read_until(1)
    answer = orjson.dumps(text(1, "12:00 UTC")) + b"\n"
    assert exact.out == b"\x1b[32mServer ready\x1b[0m\n" + answer
    assert plain.out == answer
    assert plain.served is not None and plain.served.dropped_noise == 1


def test_exact_ends_the_session_where_the_recorded_server_did(tmp_path: Path) -> None:
    """A server that crashed mid-answer: --exact writes the cut line, then closes stdout."""
    tape = Tape().client(call(0, "now")).server(text(0, "ok"))
    tape.client(call(1, "crash")).raw("out", b'{"jsonrpc":"2.0","id":1,"res')
    path = tape.end(code=3, server_first=True).write(tmp_path / "t.jsonl")
    with serving(path, Options(exact=True, grace=0.2)) as (client, run):
        client.send(call(0, "now"))
        client.send(call(1, "crash"))
        client.read_until(1, timeout=0.5)
    assert run.out.endswith(b'\n{"jsonrpc":"2.0","id":1,"res')
    assert run.served is not None and run.served.ended_by == "recording" and run.served.recorded_exit == 3


def test_serve_records_the_session_it_served(tmp_path: Path) -> None:
    """With a writer, both directions are in the new transcript, the in bytes as sent."""
    import os

    from mcptape.serve.pool import load_pool
    from mcptape.serve.session import Session
    from mcptape.transcript.files import open_output
    from mcptape.transcript.writer import TranscriptWriter, new_header

    pool = load_pool([time_tape().write(tmp_path / "t.jsonl")])
    writer = TranscriptWriter(open_output(tmp_path / "new.jsonl"))
    writer.header(new_header(["mcptape", "serve"], "/"))
    r_in, w_in = os.pipe()
    r_out, w_out = os.pipe()
    os.write(w_in, orjson.dumps(call(1, "now", zone="UTC")) + b"\n")
    os.close(w_in)
    Session(pool, Options(), log=lambda _: None, writer=writer, stdin_fd=r_in, stdout_fd=w_out).run()
    writer.close()
    os.close(w_out)
    assert os.read(r_out, 65536).startswith(b'{"jsonrpc":"2.0","id":1,"result"')
    events = list(open_transcript(tmp_path / "new.jsonl").events())
    assert [e.ch for e in events] == ["in", "out", "eof"]
    assert events[0].data == orjson.dumps(call(1, "now", zone="UTC")) + b"\n"
