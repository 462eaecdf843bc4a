"""Rows that answer with a rejection are styled as rejects, however the server rejected: a JSON-RPC
error or a `tools/call` result with `isError: true` (as the check core counts rejects)."""

from __future__ import annotations

from pathlib import Path

from mcptape.transcript import Event
from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.model import rows as K
from mcptape.tui.model.facts import collect_facts
from tests.tui.transcripts import error, handshake, ok, req, write


def test_an_is_error_result_and_an_error_response_are_both_rejects(tmp_path: Path) -> None:
    """Row of `isError: true` and row of a JSON-RPC error: reject; a plain result: protocol."""
    events = [
        *handshake(),
        req(0.010, 1, "tools/call", '{"name":"deploy","arguments":{}}'),
        ok(0.011, 1, '{"content":[{"type":"text","text":"no"}],"isError":true}'),
        req(0.020, 2, "tools/call", '{"name":"deploy","arguments":{}}'),
        error(0.021, 2, "not authorised"),
        req(0.030, 3, "tools/call", '{"name":"deploy","arguments":{}}'),
        ok(0.031, 3, '{"content":[{"type":"text","text":"ok"}]}'),
        Event(0.040, "exit", fields={"code": 0}),
    ]
    index = TranscriptIndex(write(tmp_path / "t.jsonl", events))
    index.scan()
    facts = collect_facts(index)
    assert facts is not None
    first = len(handshake())
    assert facts.kind_of(first + 1) == K.REJECT  # isError: true
    assert facts.kind_of(first + 3) == K.REJECT  # JSON-RPC error
    assert facts.kind_of(first + 5) == K.PROTOCOL
