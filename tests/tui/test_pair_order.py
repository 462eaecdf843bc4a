"""A response recorded before its request (the recorder's channel threads write each record as it
comes: the server may answer before the client's bytes are written down) still reads as request
then response: positive latency, the right role on each side."""

from __future__ import annotations

from pathlib import Path

from mcptape.transcript import Event
from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.model.facts import collect_facts
from mcptape.tui.model.viewer import ViewerModel
from tests.tui.transcripts import INIT_PARAMS, INIT_RESULT, write


def test_a_response_written_before_its_request_pairs_the_right_way_round(tmp_path: Path) -> None:
    """Row 0 is the response (t=0.0205), row 1 the request (t=0.0202): latency 0.30 ms on row 0."""
    events = [
        Event(0.0205, "out", text=f'{{"jsonrpc":"2.0","id":1,"result":{INIT_RESULT}}}\n'),
        Event(
            0.0202, "in", text=f'{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{INIT_PARAMS}}}\n'
        ),
    ]
    index = TranscriptIndex(write(tmp_path / "t.jsonl", events))
    index.scan()
    model = ViewerModel(index)
    facts = collect_facts(index)
    assert facts is not None
    model.set_facts(facts)
    assert facts.pair_of(0) == 1 and facts.pair_of(1) == 0
    assert facts.is_response(0) and not facts.is_response(1)
    assert model.describe(0).latency == "0.30ms" and model.describe(1).latency == ""
    assert (model.detail(0).pair_title or "").startswith("request: row 2")
    assert (model.detail(1).pair_title or "").startswith("response: row 1")
