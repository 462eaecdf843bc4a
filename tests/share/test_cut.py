"""Live redaction's cut, piece by piece: where a JSON string stands at the cut, and how the tail is
read after it (the end-to-end case is tests/share/test_live_cut.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mcptape.share.jsonscan import inside_at
from mcptape.share.live import CUT_ENV, MAX_PENDING, RedactingWriter, _cut
from mcptape.share.placeholder import Key, placeholder
from mcptape.share.redact import Redactor
from mcptape.share.rules import Rules
from mcptape.transcript import open_transcript
from mcptape.transcript.writer import new_header

KEY = Key(bytes(range(16)), bytes(range(16)).hex())


def _redactor() -> Redactor:
    return Redactor(Rules.build(), KEY)


@pytest.mark.parametrize(
    ("text", "at", "inside", "expected"),
    [
        ('{"a":"xyz"}', 7, False, True),  # in "xyz"
        ('{"a":"xyz"}', 5, False, False),  # on the opening quote: not yet inside
        ('{"a":"xyz"}', 9, False, True),  # on the closing quote: still inside
        ('{"a":"xyz"}', 10, False, False),
        ('{"a":"x\\"y"}', 9, False, True),  # an escaped quote does not close it
        ('{"a":"xyz', 8, False, True),  # no closing quote yet: runs to the end
        ('xyz","b":"c"}', 2, True, True),  # the rest of a string cut before
        ('xyz","b":"c"}', 4, True, False),  # between its end and the next string
        ('xyz","b":"c"}', 6, True, True),  # in "b"
    ],
)
def test_inside_at_pairs_quotes_as_the_string_tokens_do(
    text: str, at: int, inside: bool, expected: bool
) -> None:
    """Whether a position is inside a string token, the text starting inside one or not."""
    assert inside_at(text, at, inside) is expected


def test_the_tail_says_it_starts_inside_a_string_and_is_read_so() -> None:
    """A cut in a long string: the tail is read as the rest of that string, so the secret key
    after it is a key (read from the tail's first byte, it would be two bare words)."""
    red = _redactor()
    line = b'{"doc":"' + b"x" * 100 + b'"'
    head, tail, inside = red.cut(line, 40)
    assert head + tail == line and len(tail) == 40 and inside is True
    rest = tail + b',"password":"hunter2-very-secret"}\n'
    out = red.block(rest, "out", inside=True)
    assert out == tail + f',"password":"{placeholder(KEY.secret, "hunter2-very-secret")}"}}\n'.encode()
    assert _redactor().block(rest, "out") == rest  # read without it: the leak this fixes


def test_the_cut_never_falls_between_a_backslash_and_what_it_escapes() -> None:
    """A cut that would split `\\"` moves one byte back: the tail starts with the whole escape."""
    line = b'{"doc":"' + b"x" * 50 + b'\\"' + b"y" * 29
    head, tail, inside = _redactor().cut(line, 30)
    assert tail.startswith(b'\\"') and head + tail == line and inside is True


def test_a_cut_outside_strings_says_so() -> None:
    """Between members, the tail is read as it is."""
    line = b'{"a":"b",' + b" " * 40
    head, tail, inside = _redactor().cut(line, 20)
    assert head + tail == line and inside is False


def test_the_writer_carries_the_state_across_several_cuts(tmp_path: Path) -> None:
    """With a 4 KiB cut, a 20 KiB string is cut several times; the password after it goes."""
    path = tmp_path / "live.jsonl"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    writer = RedactingWriter(fd, clock_start=0.0, redactor=_redactor(), hold=0.0, cut=4096)
    writer.header(new_header(["server"], "/srv"))
    data = b'{"doc":"' + b"x" * 20_000 + b'","password":"hunter2-very-secret"}\n'
    for start in range(0, len(data), 1000):
        writer.chunk(0.1, "out", data[start : start + 1000])
    writer.fields(0.2, "exit", code=0, signal=None)
    writer.close()
    pieces = [e.data for e in open_transcript(path).events() if e.ch == "out"]
    assert len(pieces) >= 4
    ph = placeholder(KEY.secret, "hunter2-very-secret").encode()
    assert b"".join(pieces) == data.replace(b"hunter2-very-secret", ph)


@pytest.mark.parametrize(
    ("value", "cut"), [("65536", 65536), ("4096", 4096), ("100", MAX_PENDING), ("x", MAX_PENDING)]
)
def test_the_cut_comes_from_the_environment_when_it_is_a_size(value: str, cut: int) -> None:
    """`$MCPTAPE_REDACT_CUT`: a number of bytes, 4096 or more; anything else keeps 8 MiB."""
    assert _cut({CUT_ENV: value}) == cut
    assert _cut({}) == MAX_PENDING
