"""The diff pairs notifications per stream and scopes rules by target: noise stays where it is."""

from __future__ import annotations

from typing import Any

from mcptape.diff.ignore import parse_rule
from mcptape.diff.sessions import diff_events
from tests.replay.events import INIT, INIT_OK, Session, notification, request, text_result


def logged(first: dict[str, Any], second: dict[str, Any]) -> Session:
    s = Session().send(INIT).answer(INIT_OK)
    return s.answer(notification("notifications/message", **first)).answer(
        notification("notifications/message", **second)
    )


def test_log_streams_that_interleave_differently_still_pair_up() -> None:
    """A logger's message pairs with the same logger's, whichever stream spoke first."""
    roots = {"level": "info", "logger": "server", "data": "Roots updated"}
    random = {"level": "alert", "data": "Alert level-message"}
    old = logged(roots, random).end()
    new = logged(random, roots).end()
    diff = diff_events(old.events, new.events)
    assert diff.same, [(p.key, p.changes) for p in diff.differing]
    [streamed] = [p for p in diff.pairs if p.kind == "notification" and p.target == "server"]
    assert streamed.key == ("notification", "notifications/message", 1, "server")


def test_progress_of_two_operations_pairs_per_token() -> None:
    """Progress notifications of two tokens are paired per token, not by arrival."""

    def progress(token: int, n: int) -> dict[str, object]:
        return notification("notifications/progress", progressToken=token, progress=n)

    base = Session().send(INIT).answer(INIT_OK)
    old = base.answer(progress(1, 1)).answer(progress(2, 1)).answer(progress(1, 2)).end()
    base = Session().send(INIT).answer(INIT_OK)
    new = base.answer(progress(2, 1)).answer(progress(1, 1)).answer(progress(1, 2)).end()
    assert diff_events(old.events, new.events).same


def test_a_rule_for_one_tool_leaves_the_other_tools_compared() -> None:
    """`tools/call[clock]` hides the clock tool's text, while the greet tool's change still shows."""

    def session(clock: str, greet: str) -> Session:
        s = Session().send(INIT).answer(INIT_OK)
        s.send(request(2, "tools/call", name="clock", arguments={})).answer(text_result(2, clock))
        return s.send(request(3, "tools/call", name="greet", arguments={})).answer(text_result(3, greet))

    rules = [parse_rule("tools/call[clock]:result.content[*].text")]
    diff = diff_events(session("10:00", "Hello").end().events, session("10:01", "Hi").end().events, rules)
    [differing] = diff.differing
    assert differing.target == "greet"
    [(pair, hidden)] = diff.hidden
    assert pair.target == "clock" and (hidden.old, hidden.new) == ("10:00", "10:01")
