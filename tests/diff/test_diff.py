"""The diff (pure): responses by id, notifications by method, stdout, executor calls, findings, exit."""

from __future__ import annotations

from typing import Any

from mcptape.diff.ignore import parse_rule
from mcptape.diff.sessions import diff_events
from tests.replay.events import (
    INIT,
    INIT_OK,
    Session,
    error,
    notification,
    request,
    result,
    text_result,
)

CALL = request(2, "tools/call", name="greet", arguments={"name": "Ada"})
DEPLOY = request(3, "tools/call", name="deploy", arguments={"token": "bad"})


def base(text: str = "Hello") -> Session:
    s = Session().send(INIT).answer(INIT_OK).send(notification("notifications/initialized"))
    return s.send(CALL).answer(text_result(2, text))


def test_identical_sessions_are_the_same() -> None:
    """Two recordings of the same bytes: no pair differs, same."""
    diff = diff_events(base().end().events, base().end().events)
    assert diff.same and not diff.differing and len(diff.pairs) == 2


def test_responses_pair_by_id_whatever_their_order_and_member_order() -> None:
    """Answers in another order, members in another order: still the same."""
    old = Session().send(INIT).send(CALL).answer(INIT_OK).answer(text_result(2, "x")).end()
    reordered = {
        "result": {"isError": False, "content": [{"text": "x", "type": "text"}]},
        "id": 2,
        "jsonrpc": "2.0",
    }
    new = Session().send(INIT).send(CALL).answer(reordered).answer(INIT_OK).end()
    assert diff_events(old.events, new.events).same


def test_a_changed_response_names_its_method_id_and_path() -> None:
    """Only the tools/call answer differs, at result.content[0].text."""
    diff = diff_events(base("Hello").end().events, base("Hi").end().events)
    [pair] = diff.differing
    assert (pair.kind, pair.scope, pair.request_id) == ("response", "tools/call", 2)
    assert [(c.where, c.old, c.new) for c in pair.changes] == [("result.content[0].text", "Hello", "Hi")]
    assert pair.request is not None and pair.request.method == "tools/call"


def test_a_missing_answer_and_an_extra_one_are_differences() -> None:
    """No answer in the new session; an answer the old session never had."""
    old = Session().send(INIT).answer(INIT_OK).send(CALL).end()
    new = Session().send(INIT).send(CALL).answer(text_result(2, "x")).end()
    diff = diff_events(old.events, new.events)
    assert [(p.request_id, p.old is None, p.new is None) for p in diff.differing] == [
        (1, False, True),
        (2, True, False),
    ]


def test_notifications_are_compared_per_method_by_content() -> None:
    """Progress and log notifications interleaved differently are the same; a changed log text is not:
    a notification no request caused is matched by content (issue 27.11), so the old text is gone
    and the new one is new."""
    log = notification("notifications/message", level="info", data="a")
    progress = notification("notifications/progress", progressToken=1, progress=1)
    old = base().answer(log).answer(progress).end()
    new = base().answer(progress).answer(log).end()
    assert diff_events(old.events, new.events).same
    changed = (
        base().answer(progress).answer(notification("notifications/message", level="info", data="b")).end()
    )
    gone, added = diff_events(old.events, changed.events).differing
    assert (gone.kind, gone.scope, added.kind, added.scope) == (
        "notification",
        "notifications/message",
        "notification",
        "notifications/message",
    )
    assert (gone.new, added.old) == (None, None)
    values: list[Any] = [gone.old.value if gone.old else None, added.new.value if added.new else None]
    assert [value["params"]["data"] for value in values] == ["a", "b"]


def test_server_requests_are_compared_without_their_id() -> None:
    """A roots/list request with another id is the same request."""
    old = base().answer(request(0, "roots/list")).send(result(0, roots=[])).end()
    new = base().answer(request("r-7", "roots/list")).send(result("r-7", roots=[])).end()
    assert diff_events(old.events, new.events).same


def test_new_stdout_lines_that_are_not_protocol_are_reported_with_their_bytes() -> None:
    """A banner in the new session is an added stdout line; removing it is a difference too."""
    old = base().end()
    new = (
        Session()
        .answer(b"server ready\n")
        .send(INIT)
        .answer(INIT_OK)
        .send(notification("notifications/initialized"))
        .send(CALL)
        .answer(text_result(2, "Hello"))
        .end()
    )
    diff = diff_events(old.events, new.events)
    assert [f.raw for f in diff.stdout_added] == [b"server ready\n"] and not diff.differing
    assert [f.raw for f in diff_events(new.events, old.events).stdout_removed] == [b"server ready\n"]


def test_an_executor_call_after_a_reject_is_a_new_finding() -> None:
    """The new build runs deploy for the rejected request 3: new exec call and new exec-after-reject."""
    old = base().send(DEPLOY).answer(error(3, -32001, "unauthorised")).end()
    new = (
        base()
        .send(DEPLOY)
        .execute({"action": "deploy", "request_id": 3})
        .answer(error(3, -32001, "unauthorised"))
        .end()
    )
    diff = diff_events(old.events, new.events)
    assert [(f.rule, f.request_id) for f in diff.findings_added] == [("exec-after-reject", 3)]
    [pair] = diff.differing
    assert (pair.kind, pair.scope, pair.key) == ("executor", "exec", ("executor", "exec", 3, 1))


def test_volatile_members_of_executor_lines_are_hidden_by_built_in_rules_and_listed() -> None:
    """The stub's pid differs on every run: hidden, and the report can list it."""
    stub = {"action": "exec", "stub": "ssh", "argv": ["ssh", "prod"], "pid": 10, "request_id": 2}
    old = base().execute(stub).end()
    new = base().execute({**stub, "pid": 99}).end()
    diff = diff_events(old.events, new.events)
    assert diff.same
    [(_, hidden)] = diff.hidden
    assert (hidden.rule.text, hidden.rule.origin, hidden.old, hidden.new) == ("exec:pid", "built-in", 10, 99)


def test_exit_status_is_compared() -> None:
    """Exit code 0 then 1: a difference."""
    diff = diff_events(base().end(0).events, base().end(1).events)
    assert diff.exit_differs and not diff.same and str(diff.exit_new) == "exit code 1"


def test_stderr_is_compared_only_when_asked() -> None:
    """A new stderr line is ignored by default and reported with stderr=True."""
    old = base().end()
    new = base().line("err", b"warning: deprecated\n").end()
    assert diff_events(old.events, new.events).same
    diff = diff_events(old.events, new.events, stderr=True)
    assert diff.stderr_added == [b"warning: deprecated\n"] and not diff.same


def test_a_rule_that_hid_nothing_is_listed_as_unused() -> None:
    """A typo in a rule does not pass unnoticed."""
    diff = diff_events(base().end().events, base().end().events, [parse_rule("tools/call:result.contnet")])
    assert [r.text for r in diff.unused_rules] == ["tools/call:result.contnet"]


def test_a_request_id_reused_for_another_method_is_a_difference() -> None:
    """Two independent sessions whose id 1 is `initialize` and `server/discover` do not pair silently."""
    old, new = Session(), Session()
    old.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})
    old.answer({"jsonrpc": "2.0", "id": 1, "result": {}})
    new.send({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}})
    new.answer({"jsonrpc": "2.0", "id": 1, "result": {}})
    diff = diff_events(old.events, new.events)
    assert not diff.same
    [pair] = diff.differing
    assert [(c.where, c.old, c.new) for c in pair.changes] == [
        ("request.method", "initialize", "server/discover")
    ]


def test_a_flood_of_non_protocol_lines_is_kept_bounded_and_counted() -> None:
    """Past STDOUT_KEPT lines per side, noise is counted, not kept: memory stays flat, the diff says so."""
    from mcptape.diff.sessions import STDOUT_KEPT
    from mcptape.replay.render import render_diff

    old, new = base(), base()
    for i in range(STDOUT_KEPT + 250):
        new.answer(b"noise %d\n" % i)
    diff = diff_events(old.events, new.events)
    assert not diff.same
    assert len(diff.stdout_added) == STDOUT_KEPT
    assert diff.stdout_not_compared == (0, 250)
    assert any("250 (new) more were counted, not compared" in line for line in render_diff(diff))
