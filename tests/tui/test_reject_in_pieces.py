"""A rejecting answer written in several pieces is a reject on every row it spans, whatever its
form (a JSON-RPC error already was; an isError: true result was a reject on its first piece only)."""

from __future__ import annotations

from pathlib import Path

from mcptape.transcript import Event
from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.model import rows as K
from mcptape.tui.model.facts import collect_facts
from tests.tui.transcripts import handshake, req, write


def test_every_piece_of_an_is_error_answer_is_a_reject(tmp_path: Path) -> None:
    """An isError: true result split over two events: both rows are rejects, like a split JSON-RPC error."""
    events = [
        *handshake(),
        req(0.010, 1, "tools/call", '{"name":"deploy","arguments":{}}'),
        Event(0.011, "out", text='{"jsonrpc":"2.0","id":1,'),
        Event(0.012, "out", text='"result":{"content":[],"isError":true}}\n'),
        req(0.020, 2, "tools/call", '{"name":"deploy","arguments":{}}'),
        Event(0.021, "out", text='{"jsonrpc":"2.0","id":2,'),
        Event(0.022, "out", text='"error":{"code":-32602,"message":"no"}}\n'),
        Event(0.030, "exit", fields={"code": 0}),
    ]
    index = TranscriptIndex(write(tmp_path / "t.jsonl", events))
    index.scan()
    facts = collect_facts(index)
    assert facts is not None
    first = len(handshake())
    assert [facts.kind_of(first + i) for i in (4, 5)] == [K.REJECT, K.REJECT]  # the JSON-RPC error
    assert [facts.kind_of(first + i) for i in (1, 2)] == [K.REJECT, K.REJECT]  # isError: true
