"""The viewer dims info findings: a client mistake the server handled well is worth seeing, not an
alarm. Its row keeps a quiet style (`info`), its detail note is dimmed; an error stays loud."""

from __future__ import annotations

from pathlib import Path

from mcptape.transcript import Event
from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.model import rows as K
from mcptape.tui.model.facts import collect_facts
from mcptape.tui.model.viewer import ViewerModel
from tests.tui.transcripts import error, handshake, ok, req, write

SCHEMA = '{"type":"object","properties":{"days":{"type":"integer","maximum":7}}}'
TOOLS = '{"tools":[{"name":"forecast","inputSchema":' + SCHEMA + "}]}"
BAD_CALL = '{"name":"forecast","arguments":{"days":9}}'


def test_a_refused_schema_violation_is_dimmed_and_an_accepted_one_is_loud(tmp_path: Path) -> None:
    """Request 2 (refused: info) gets the `info` row style and a dim note; request 3 (answered as a
    success: an error of the server) gets the `finding` style and a bold red note."""
    events = [
        *handshake(),
        req(0.010, 1, "tools/list"),
        ok(0.011, 1, TOOLS),
        req(0.020, 2, "tools/call", BAD_CALL),
        error(0.021, 2, "days must be at most 7"),
        req(0.030, 3, "tools/call", BAD_CALL),
        ok(0.031, 3, '{"content":[]}'),
        Event(0.040, "exit", fields={"code": 0}),
    ]
    index = TranscriptIndex(write(tmp_path / "t.jsonl", events))
    index.scan()
    facts = collect_facts(index)
    assert facts is not None
    refused, accepted = len(handshake()) + 2, len(handshake()) + 4
    assert facts.kind_of(refused) == K.INFO
    assert facts.kind_of(accepted) == K.FINDING
    model = ViewerModel(index)
    model.set_facts(facts)
    [(style, text)] = [n for n in model.detail(refused).notes if "schema-violation" in n[1]]
    assert style == "dim" and "days" in text
    [(loud, _)] = [n for n in model.detail(accepted).notes if "schema-violation" in n[1]]
    assert loud == "bold red"
    assert model.describe(refused).status == "schema-violation"  # still named in the list
