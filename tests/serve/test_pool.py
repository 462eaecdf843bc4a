"""The pool: each recorded server line belongs to the client line that caused it."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.errors import TranscriptError
from mcptape.serve.pool import ANSWER, load_pool
from tests.serve.tapes import Tape, call, notification, request, result, text, time_tape


def test_each_response_belongs_to_the_request_it_answers(tmp_path: Path) -> None:
    """Every response is an output of its request, marked with the request it answers."""
    pool = load_pool([time_tape().write(tmp_path / "t.jsonl")])
    assert [e.method for e in pool.requests] == [
        "server/discover",
        "tools/list",
        "tools/call",
        "tools/call",
        "tools/call",
    ]
    for entry in pool.requests:
        assert [o.answers for o in entry.outputs] == [entry]
        assert entry.outputs[0].message is not None and entry.outputs[0].message.id == entry.id
    assert pool.responses == 5


def test_a_notification_belongs_to_the_client_line_before_it(tmp_path: Path) -> None:
    """A progress notification sent during a call is played when that call comes."""
    tape = Tape().client(call(1, "slow")).server(notification("notifications/progress", {"progressToken": 1}))
    tape.server(text(1, "done")).end()
    pool = load_pool([tape.write(tmp_path / "t.jsonl")])
    (entry,) = pool.requests
    assert [o.message.method if o.message else None for o in entry.outputs] == [
        "notifications/progress",
        None,
    ]
    assert entry.outputs[1].answers is entry


def test_server_lines_before_any_client_line_are_played_at_start(tmp_path: Path) -> None:
    """A banner (with --exact) or a notification the server sent first belongs to the start."""
    tape = Tape().raw("out", b"Server ready\n").client(request(1, "tools/list", meta=True))
    tape.server(result(1, {"tools": []})).end()
    pool = load_pool([tape.write(tmp_path / "t.jsonl")])
    assert len(pool.start) == 1 and not pool.start[0].protocol
    assert pool.noise == 1


def test_a_legacy_elicitation_answer_owns_the_result_of_the_call(tmp_path: Path) -> None:
    """elicitation/create mid-call: the call's result is played after the client's answer."""
    tape = Tape().client(request(1, "initialize", {"protocolVersion": "2025-06-18"}))
    tape.server(result(1, {"protocolVersion": "2025-06-18"}))
    tape.client(request(2, "tools/call", {"name": "greet", "arguments": {}}))
    tape.server(request(0, "elicitation/create", {"message": "name?"}))
    tape.client(result(0, {"action": "accept", "content": {"name": "Ada"}}))
    tape.server(text(2, "Hello, Ada!")).end()
    pool = load_pool([tape.write(tmp_path / "t.jsonl")])
    call_entry = pool.requests[1]
    assert [o.message.method if o.message else None for o in call_entry.outputs] == ["elicitation/create"]
    answer = next(iter(pool.answers.values()))
    assert answer.kind == ANSWER
    assert [o.answers for o in answer.outputs] == [call_entry]


def test_two_requests_in_flight_at_once_are_the_pool_overlap(tmp_path: Path) -> None:
    """The first request sent while another was unanswered makes the pair the pair cases use."""
    pool = load_pool([time_tape().write(tmp_path / "t.jsonl")])
    assert pool.overlap is not None
    first, second = pool.overlap
    assert (first.id, second.id) == (4, 5)


def test_a_folder_is_one_pool_in_name_order(tmp_path: Path) -> None:
    """Every transcript under a folder adds its requests; a file that is not one is left out."""
    folder = tmp_path / "tapes"
    (folder / "sub").mkdir(parents=True)
    time_tape().write(folder / "b.jsonl")
    Tape().client(call(7, "other")).server(text(7, "x")).end().write(folder / "sub" / "a.jsonl")
    (folder / "notes.jsonl").write_text('{"not": "a transcript"}\n')
    pool = load_pool([folder])
    assert [p.name for p in pool.files] == ["b.jsonl", "a.jsonl"]
    assert len(pool.requests) == 6


def test_the_recorded_server_exit_before_the_client_closed_is_an_output(tmp_path: Path) -> None:
    """A server that ended the session itself: its exit belongs to the last client line."""
    tape = (
        Tape()
        .client(call(1, "crash"))
        .raw("out", b'{"jsonrpc":"2.0","id":1,"res')
        .end(code=3, server_first=True)
    )
    pool = load_pool(
        [
            Tape().client(call(0, "x")).server(text(0, "ok")).write(tmp_path / "a.jsonl"),
            tape.write(tmp_path / "b.jsonl"),
        ]
    )
    last = pool.requests[-1]
    assert last.outputs[-1].is_exit and last.outputs[-1].exit_code == 3


def test_a_transcript_without_responses_is_refused(tmp_path: Path) -> None:
    """Nothing to serve: one clear error naming the file."""
    path = Tape().client(call(1, "x")).end().write(tmp_path / "t.jsonl")
    with pytest.raises(TranscriptError, match="no recorded response to serve"):
        load_pool([path])


def test_a_folder_without_transcripts_is_refused(tmp_path: Path) -> None:
    """An empty folder is an error, not an empty pool."""
    with pytest.raises(TranscriptError, match="holds no mcptape transcript"):
        load_pool([tmp_path])
