"""Minted values in the pure diff and plan: found by value and place, compared by presence."""

from __future__ import annotations

import orjson
import pytest

from mcptape.diff.minted import candidates, is_token, restore, tokens
from mcptape.diff.sessions import diff_events
from mcptape.replay.stdio.plan import make_plan
from tests.replay.events import INIT, INIT_OK, Session, request, result, text_result

HANDLE_A = "h-3f9a2c7e11d04b6a"
HANDLE_B = "h-81c0de5592aa7f03"


def session(handle: str, echo: str | None = None) -> Session:
    """open -> a handle in an odd member (no name says it is one); use(handle) -> a text repeating it."""
    s = Session().send(INIT).answer(INIT_OK)
    s.send(request(2, "tools/call", name="open")).answer(result(2, zz={"ref": handle}))
    s.send(request(3, "tools/call", name="use", arguments={"which": handle}))
    s.answer(text_result(3, f"used {echo or handle}"))
    return s.end()


@pytest.mark.parametrize(
    ("text", "token"),
    [
        ("3f2a6c1e-7b0d-4c55-9d8e-0a1b2c3d4e5f", True),
        ("v1.Pmolo8_O5Emu38gBVKGCDPBwFlAIVzWi6", True),
        ("h-3f9a2c7e11d04b6a", True),
        ("eyJwYWdlIjogMn0", True),  # a base64 cursor with a digit
        ("get_current_time", False),  # a tool name: a word, no digit, short
        ("greet", False),
        ("Hello, Ada!", False),
        ("two words 12345678", False),
        ("tab\there1234", False),
    ],
)
def test_a_token_is_opaque_long_enough_and_has_a_digit_or_length(text: str, token: bool) -> None:
    """Tokens are what servers mint; names, words and sentences are not."""
    assert is_token(text) is token


def test_the_plan_finds_a_minted_value_by_value_and_place() -> None:
    """The client's `which` echoes the string the server sent at result.zz.ref of the response to id 2."""
    plan = make_plan(session(HANDLE_A).events)
    [send] = [s for s in plan.sends if s.uses]
    [use] = send.uses
    assert use.value == HANDLE_A and use.path == ("params", "arguments", "which")
    assert use.source == ("id", 2, 1) and use.source_path == ("result", "zz", "ref")
    assert plan.sources == {("id", 2, 1)}


def test_a_value_the_client_sent_first_is_not_minted() -> None:
    """The server echoing the client's own value does not make it the server's."""
    s = Session().send(INIT).answer(INIT_OK)
    s.send(request(2, "tools/call", name="put", arguments={"key": HANDLE_A})).answer(text_result(2, HANDLE_A))
    s.send(request(3, "tools/call", name="get", arguments={"key": HANDLE_A})).answer(text_result(3, "x"))
    plan = make_plan(s.end().events)
    assert not any(send.uses for send in plan.sends) and not plan.sources


def test_the_diff_compares_a_minted_value_by_presence_and_place() -> None:
    """Another handle in the new session, repeated in a tool's text: same, and listed as carried."""
    diff = diff_events(session(HANDLE_A).events, session(HANDLE_B).events)
    assert diff.same
    [(pair, carried)] = diff.carried
    assert pair.key == ("id", 2, 1) and carried.path == ("result", "zz", "ref")
    assert (carried.old, carried.new) == (HANDLE_A, HANDLE_B)


def test_a_minted_value_gone_from_the_new_session_differs() -> None:
    """No handle where the recording had one: a difference, not hidden."""
    old = session(HANDLE_A)
    new = Session().send(INIT).answer(INIT_OK)
    new.send(request(2, "tools/call", name="open")).answer(result(2, zz={"ref": None}))
    new.send(request(3, "tools/call", name="use", arguments={"which": HANDLE_A}))
    new.answer(text_result(3, f"used {HANDLE_A}"))
    diff = diff_events(old.events, new.end().events)
    assert not diff.same
    assert [c.where for p in diff.differing for c in p.changes] == ["result.zz.ref"]


def test_other_text_around_a_minted_value_is_still_compared() -> None:
    """The handle is put back inside the text; the words around it still count."""
    diff = diff_events(session(HANDLE_A).events, session(HANDLE_B, echo=f"{HANDLE_B}!").events)
    [change] = [c for p in diff.differing for c in p.changes]
    assert (change.old, change.new) == (f"used {HANDLE_A}", f"used {HANDLE_A}!")


def test_restore_puts_back_whole_and_embedded_values_at_any_depth() -> None:
    """restore() rebuilds deep values without recursion, members' names included."""
    deep: object = HANDLE_B
    for _ in range(3000):
        deep = [deep]
    mapping = {HANDLE_B: HANDLE_A}
    back = restore({"a": deep, HANDLE_B: f"x {HANDLE_B} y"}, mapping)
    inner = back["a"]
    for _ in range(3000):
        inner = inner[0]
    assert inner == HANDLE_A and back[HANDLE_A] == f"x {HANDLE_A} y"


@pytest.mark.parametrize(
    "value",
    [
        {"jsonrpc": "2.0", "id": 7, "result": {"n": 12345678, "h": HANDLE_A, "list": [HANDLE_B, "word", 3]}},
        {
            "result": {
                "cursor": "eyJwYWdlIjogMn0",
                "text": "two words 12345678",
                "deep": [[[{"k": HANDLE_B}]]],
            }
        },
        {
            "params": {
                "é-ünïcode-1234": "ünïcödé-tøken-5678",
                "nbsp": "a\u00a0b-12345678",
                "ctl": "a\tb-12345678",
            }
        },
        {"result": {"empty": "", "long_word": "abcdefghijklmnopqrstuvwxyz", "ts": "2026-11-29T19:44:55Z"}},
    ],
)
def test_the_byte_search_finds_every_token_the_walk_finds(value: object) -> None:
    """candidates() (a search of the line's bytes) is the fast twin of tokens() (a walk of the value):
    every token value the walk finds is a candidate, and no candidate is a string with white space."""
    raw = orjson.dumps(value) + b"\n"
    found = candidates(raw)
    assert {text for _, text in tokens(value)} <= found
    assert all(is_token(text) for text in found)
