"""`Unredactor.hide`, the other way of `--secret`: what a replayed server says, with every verified
value put back behind its placeholder, as the redacted transcript has it (issue 27.9)."""

from __future__ import annotations

from mcptape.share.placeholder import Key, Unredactor, digest, placeholder
from mcptape.share.unredact import hiding
from mcptape.transcript.events import Event

KEY = Key(bytes(range(16)), bytes(range(16)).hex())


def _unredactor(*values: str) -> Unredactor:
    found = {digest(KEY.secret, v): ["key:password"] for v in values}
    return Unredactor.build({"salt": KEY.salt, "found": found}, [("password", v) for v in values])


def test_a_long_value_is_hidden_wherever_it_is_even_json_escaped() -> None:
    """A value with a quote is found raw in text and escaped inside a JSON string."""
    secret = 'hun"ter2'
    un = _unredactor(secret)
    ph = placeholder(KEY.secret, secret)
    assert un.hide(b'said hun"ter2 twice: hun"ter2\n') == f"said {ph} twice: {ph}\n".encode()
    assert un.hide(b'{"text":"got hun\\"ter2"}\n') == f'{{"text":"got {ph}"}}\n'.encode()


def test_a_short_value_is_hidden_as_a_whole_word_inside_strings_only() -> None:
    """`1` in a JSON string's words is the password; `1` as an id, in `pw10` or `x1` is not."""
    un = _unredactor("1")
    ph = placeholder(KEY.secret, "1")
    line = b'{"jsonrpc":"2.0","id":1,"result":{"text":"password 1 ok, not x1 nor 10"}}\n'
    want = f'{{"jsonrpc":"2.0","id":1,"result":{{"text":"password {ph} ok, not x1 nor 10"}}}}\n'
    assert un.hide(line) == want.encode()
    assert un.hide(b"not json: password 1\n") == f"not json: password {ph}\n".encode()


def test_nothing_to_hide_gives_back_the_same_bytes() -> None:
    """Data without a verified value is returned as it is (the same object: no copy)."""
    un = _unredactor("hunter2")
    data = b'{"id":1}\n'
    assert un.hide(data) is data
    assert Unredactor(b"").hide(data) is data


def test_hiding_changes_byte_events_only() -> None:
    """A replay's events: byte records are hidden, the others (eof, exit) go through untouched."""
    un = _unredactor("hunter2")
    events = [
        Event(0.1, "out", text='{"text":"hunter2"}\n', index=1),
        Event(0.2, "eof", fields={"of": "out"}, index=2),
    ]
    out = list(hiding(events, un))
    assert out[0].data == f'{{"text":"{placeholder(KEY.secret, "hunter2")}"}}\n'.encode()
    assert (out[0].t, out[0].ch, out[0].index) == (0.1, "out", 1)
    assert out[1] is events[1]
