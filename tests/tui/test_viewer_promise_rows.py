"""The viewer marks the action rows of a promise finding next to the call: a read-only tool that
wrote has its tap line marked as an alarming action (an `exec` row otherwise), and a call sent again
that ran twice has both actions marked beside the second request, each naming the rule."""

from __future__ import annotations

from pathlib import Path

from mcptape.transcript import Event
from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.model import rows as K
from mcptape.tui.model.facts import collect_facts
from tests.tui.transcripts import handshake, ok, req, write

LOOKUP = '{"name":"lookup","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}'
TOOLS = '{"tools":[' + LOOKUP + ',{"name":"deploy","inputSchema":{"type":"object"}}]}'


def tap(t: float, rid: int, action: str, kind: str = "") -> Event:
    extra = f',"kind":"{kind}"' if kind else ""
    return Event(t, "exec", raw=f'{{"action":"{action}","request_id":{rid}{extra}}}\n'.encode())


def test_the_action_rows_of_promise_findings_are_marked(tmp_path: Path) -> None:
    """Rows: the read-only call's tap line (a write, the finding's own row) is marked; both
    deploy actions of a cancelled call sent again are marked beside the second request (a `finding`
    row) and name `ran-twice`; the action of a request that broke nothing stays an `exec` row."""
    cancel = '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}\n'
    events = [
        *handshake(),
        req(0.010, 1, "tools/list"),
        ok(0.011, 1, TOOLS),
        req(0.100, 2, "tools/call", '{"name":"lookup","arguments":{}}'),
        tap(0.101, 2, "cache-write"),
        ok(0.102, 2, '{"content":[]}'),
        req(0.200, 3, "tools/call", '{"name":"deploy","arguments":{"t":"web"}}'),
        tap(0.201, 3, "deploy"),
        Event(0.202, "in", raw=cancel.encode()),
        req(0.300, 4, "tools/call", '{"name":"deploy","arguments":{"t":"web"}}'),
        tap(0.301, 4, "deploy"),
        ok(0.302, 4, '{"content":[]}'),
        req(0.400, 5, "tools/call", '{"name":"lookup","arguments":{}}'),
        tap(0.401, 5, "lookup", kind="read"),
        ok(0.402, 5, '{"content":[]}'),
        Event(0.500, "exit", fields={"code": 0}),
    ]
    index = TranscriptIndex(write(tmp_path / "t.jsonl", events))
    index.scan()
    facts = collect_facts(index)
    assert facts is not None
    base = len(handshake())
    write_row, first_deploy, retry, second_deploy = base + 3, base + 6, base + 8, base + 9
    assert facts.kind_of(write_row) == K.EXEC_AFTER_REJECT  # the alarming action style
    assert [f.rule for f in facts.findings[write_row]] == ["hint-read-only"]
    assert facts.kind_of(retry) == K.FINDING  # ran-twice, at the second request
    for action in (first_deploy, second_deploy):
        assert facts.kind_of(action) == K.EXEC_AFTER_REJECT  # the alarming action style
        assert [f.rule for f in facts.findings[action]] == ["ran-twice"]
    assert facts.kind_of(base + 12) == K.EXEC  # request 5 read: a promise kept
