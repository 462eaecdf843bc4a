"""Notifications no request caused are compared by content as a multiset, never by position; a stream
that comes and goes is learned as a range of counts, and no rule hides the difference between two
messages that are not the same message (issue 27.11)."""

from __future__ import annotations

from typing import Any

import pytest

from mcptape.diff.ignore import parse_rule
from mcptape.diff.learn import learn
from mcptape.diff.sessions import Diff, diff_events
from mcptape.errors import UsageError
from tests.replay.events import INIT, INIT_OK, Session, notification, request, text_result


def logs(*entries: dict[str, Any], progress_token: int | None = None) -> Session:
    """A session whose server sends these notifications after one tool call."""
    s = Session().send(INIT).answer(INIT_OK)
    meta = {"_meta": {"progressToken": progress_token}} if progress_token is not None else {}
    s.send(request(2, "tools/call", name="work", arguments={}, **meta)).answer(text_result(2, "done"))
    for entry in entries:
        s.answer(entry)
    return s.end()


def log(level: str, data: str, **more: Any) -> dict[str, Any]:
    return notification("notifications/message", level=level, data=data, **more)


def diff(old: Session, new: Session, *rules: str) -> Diff:
    return diff_events(old.events, new.events, [parse_rule(r) for r in rules])


def test_unsolicited_notifications_in_another_order_are_the_same() -> None:
    """Two log messages that arrive in the other order pair with their equals: no difference."""
    a, b = log("info", "Info-level message"), log("error", "Error-level message")
    result = diff(logs(a, b), logs(b, a))
    assert result.same
    assert all(p.unsolicited for p in result.pairs if p.kind == "notification")


def test_two_different_messages_are_never_paired_to_compare_their_members() -> None:
    """A random level's message is one gone and one new message, not a change of params.level."""
    result = diff(logs(log("info", "Info-level message")), logs(log("debug", "Debug-level message")))
    shown = [(p.old is None, p.new is None, p.changes) for p in result.differing]
    assert shown == [(False, True, []), (True, False, [])]


def test_a_rule_that_hides_a_member_does_not_pair_messages_that_differ_elsewhere() -> None:
    """`params.level` hidden: the two messages still differ in their data, so nothing is hidden."""
    result = diff(
        logs(log("info", "Info-level message")),
        logs(log("debug", "Debug-level message")),
        "notifications/message:params.level",
    )
    assert len(result.differing) == 2 and result.hidden == []


def test_a_count_rule_lets_a_stream_come_and_go_within_its_range() -> None:
    """`count=1..1`: one random message each side is allowed, and said; two on one side is not."""
    rule = "notifications/message:count=1..1"
    result = diff(logs(log("info", "Info-level message")), logs(log("debug", "Debug-level message")), rule)
    assert result.same
    assert [(h.rule.text, h.where) for _, h in result.hidden] == [(rule, "(the whole message)")] * 2
    twice = logs(log("debug", "Debug-level message"), log("alert", "Alert level-message"))
    assert not diff(logs(log("info", "Info-level message")), twice, rule).same


def test_a_count_rule_counts_one_stream_only() -> None:
    """The rule for messages without a logger does not let the `everything-server` logger's change pass."""
    roots = log("info", "Roots updated: 1 root(s)", logger="everything-server")
    changed = log("info", "Roots renewed: 1 root(s)", logger="everything-server")
    result = diff(logs(roots), logs(changed), "notifications/message:count=0..1")
    assert [p.target for p in result.differing] == ["everything-server", "everything-server"]


def test_messages_that_differ_only_by_a_uuid_are_the_same_message_and_show_the_change() -> None:
    """A resource update whose id varies pairs with its counterpart; the diff shows the uuid change."""
    one = log("info", "job 3f2a6c1e-7b0d-4c55-9d8e-0a1b2c3d4e5f finished")
    two = log("info", "job 9b2a6c1e-7b0d-4c55-9d8e-0a1b2c3d4e5f finished")
    [pair] = diff(logs(one), logs(two)).differing
    assert pair.old is not None and pair.new is not None
    assert [c.where for c in pair.changes] == ["params.data"]


def test_progress_for_the_clients_token_is_caused_and_compared_in_order() -> None:
    """Progress notifications of a token the client sent belong to its request: compared by position."""

    def progress(n: int) -> dict[str, Any]:
        return notification("notifications/progress", progressToken=7, progress=n)

    result = diff(
        logs(progress(1), progress(2), progress_token=7), logs(progress(2), progress(1), progress_token=7)
    )
    assert [p.unsolicited for p in result.differing] == [False, False]
    assert [c.where for p in result.differing for c in p.changes] == ["params.progress", "params.progress"]


@pytest.mark.parametrize("text", ["*:count=0..1", "notifications/message:count=3..1", "exec:count=0..1"])
def test_a_count_rule_needs_a_method_and_a_range(text: str) -> None:
    """A count rule without a notification method, or with an empty range, is a usage error."""
    with pytest.raises(UsageError):
        parse_rule(text)


def lesson_of(recording: Session, runs: list[Session]) -> Any:
    against = [diff_events(recording.events, run.events) for run in runs]
    between = [diff_events(runs[0].events, run.events) for run in runs[1:]]
    return learn(against, between)


def test_a_stream_that_comes_and_goes_is_learned_as_its_range_of_counts() -> None:
    """A timer's message sent 0, 1 or 2 times: `count=0..2`, and nothing about its members."""
    tick = log("debug", "Debug-level message")
    lesson = lesson_of(logs(tick), [logs(), logs(tick, log("alert", "Alert level-message"))])
    assert [p.rule.text for p in lesson.proposals] == ["notifications/message:count=0..2"]
    assert lesson.unpaired == []


def test_a_message_changed_the_same_way_in_every_replay_is_not_learned() -> None:
    """The build says "Roots renewed" in every replay: a real difference, unpaired, no rule."""
    roots = log("info", "Roots updated", logger="everything-server")
    changed = log("info", "Roots renewed", logger="everything-server")
    lesson = lesson_of(logs(roots), [logs(changed), logs(changed)])
    assert lesson.proposals == [] and len(lesson.unpaired) == 2
