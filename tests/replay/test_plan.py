"""The replay plan (pure): what to send, when, and the recorded answers to server requests."""

from __future__ import annotations

from mcptape.replay.stdio.plan import make_plan
from tests.replay.events import INIT, INIT_OK, Session, notification, request, result, text_result


def test_every_client_chunk_is_sent_as_recorded_except_answers_to_server_requests() -> None:
    """Malformed lines are kept byte for byte; the answer to roots/list is kept aside, by method."""
    s = (
        Session()
        .send(INIT)
        .answer(INIT_OK)
        .send(b"not json \xff\n")
        .send(notification("notifications/initialized"))
    )
    s.send(request(2, "tools/call", name="x")).answer(request(0, "roots/list"))
    s.send(result(0, roots=[{"uri": "file:///a"}])).answer(text_result(2, "ok")).end()
    plan = make_plan(s.events)
    sent = [send.data for send in plan.sends]
    assert sent[1] == b"not json \xff\n" and len(sent) == 4
    assert all(b"roots" not in data for data in sent)
    [answer] = plan.answers["roots/list"]
    assert answer.value["result"] == {"roots": [{"uri": "file:///a"}]}
    assert plan.stdin_closed and plan.responses == [1, 2]


def test_causal_pacing_counts_the_responses_the_client_had_seen_before_each_chunk() -> None:
    """The second chunk waits for the initialize answer; the two pipelined calls wait for nothing more."""
    s = Session().send(INIT).answer(INIT_OK)
    s.send(request(2, "tools/list")).send(request(3, "tools/list")).answer(result(2, tools=[])).answer(
        result(3, tools=[])
    )
    s.send(request(4, "ping")).answer(result(4)).end()
    plan = make_plan(s.events)
    assert [send.ready for send in plan.sends] == [0, 1, 1, 3]
    assert plan.responses == [1, 2, 3, 4]
