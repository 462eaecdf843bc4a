"""The learner (pure): what varies between replays becomes a rule; a steady change does not."""

from __future__ import annotations

from mcptape.diff.learn import learn
from mcptape.diff.sessions import Diff, diff_events
from tests.replay.events import INIT, INIT_OK, Session, notification, request, text_result

U = [
    "3f2a6c1e-7b0d-4c55-9d8e-0a1b2c3d4e5f",
    "9b2a6c1e-7b0d-4c55-9d8e-0a1b2c3d4e5f",
    "0c2a6c1e-7b0d-4c55-9d8e-0a1b2c3d4e5f",
]


def session(elicited: str, clock: str, greeting: str, level: str = "info") -> Session:
    s = Session().send(INIT).answer(INIT_OK)
    s.send(request(2, "tools/call", name="url", arguments={})).answer(
        text_result(2, f"Elicitation ID: {elicited}")
    )
    s.send(request(3, "tools/call", name="clock", arguments={}))
    s.answer(text_result(3, f'{{"timezone": "UTC", "datetime": "{clock}"}}'))
    s.send(request(4, "tools/call", name="greet", arguments={})).answer(text_result(4, greeting))
    return s.answer(notification("notifications/message", level=level, data=f"{level} message")).end()


def diffs(recording: Session, runs: list[Session]) -> tuple[list[Diff], list[Diff]]:
    against = [diff_events(recording.events, run.events) for run in runs]
    between = [diff_events(runs[0].events, run.events) for run in runs[1:]]
    return against, between


def test_what_varies_between_replays_becomes_the_narrowest_rule() -> None:
    """A UUID in a text, a time in a JSON text: shape masks; a log message at a random level (sent by
    no request) is never paired with another one: its stream gets a range of counts instead."""
    recording = session(U[0], "2026-11-29T19:44:55+00:00", "Hello", "info")
    runs = [
        session(U[1], "2026-12-01T06:40:01+00:00", "Hello", "alert"),
        session(U[2], "2026-12-01T06:40:04+00:00", "Hello", "debug"),
    ]
    lesson = learn(*diffs(recording, runs))
    assert [p.rule.text for p in lesson.proposals] == [
        "tools/call[url]:result.content[*].text|uuid",
        "tools/call[clock]:result.content[*].text|json.datetime|time",
        "notifications/message:count=1..1",
    ]
    assert [v["level"] for v in lesson.proposals[2].values] == ["info", "alert", "debug"]
    assert all(p.rule.origin == "learned" for p in lesson.proposals)


def test_a_change_every_replay_agrees_on_is_a_real_difference_not_noise() -> None:
    """The new build says Hi in every replay: not learned, listed as steady."""
    recording = session(U[0], "t", "Hello")
    runs = [session(U[0], "t", "Hi"), session(U[0], "t", "Hi")]
    lesson = learn(*diffs(recording, runs))
    assert lesson.proposals == []
    [steady] = lesson.steady
    assert steady.target == "greet" and steady.values == ["Hello", "Hi"]


def test_a_steady_change_a_shape_explains_is_learned() -> None:
    """A local path that differs from the recording's in the same way in every replay is a shape, learned."""
    recording = session(U[0], "t", "saved to /home/ada/proj/out.txt")
    runs = [
        session(U[0], "t", "saved to /builds/ci/out.txt"),
        session(U[0], "t", "saved to /builds/ci/out.txt"),
    ]
    [proposal] = learn(*diffs(recording, runs)).proposals
    assert proposal.rule.text == "tools/call[greet]:result.content[*].text|path"


def test_a_value_the_client_sent_back_is_minted_not_noise() -> None:
    """A handle the server minted and the replay carried over is set apart, not learned."""
    recording = session(U[0], "t", "Hello")
    runs = [session(U[1], "t", "Hello"), session(U[2], "t", "Hello")]
    lesson = learn(*diffs(recording, runs), minted=[U[1], U[2]])
    assert lesson.proposals == [] and len(lesson.minted) == 1


def test_rules_already_in_force_are_not_proposed_again() -> None:
    """A rule the project already has is not proposed a second time."""
    recording = session(U[0], "t", "Hello")
    runs = [session(U[1], "t", "Hello"), session(U[2], "t", "Hello")]
    lesson = learn(*diffs(recording, runs), known=["tools/call[url]:result.content[*].text|uuid"])
    assert lesson.proposals == []
