"""A short secret (`pw1`, replaced as a whole word) right after a JSON escape (`\\n`, `\\t`) is
a word of the decoded string: `record --redact`, `mcptape redact` and `replay --secret`'s hiding
all find it there (multi-line tool output is common); an escaped backslash before `npw1` is not."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from mcptape.share.copy import redact_file
from mcptape.share.live import RedactingWriter
from mcptape.share.placeholder import Key, Unredactor, digest, key_from_header, placeholder
from mcptape.share.redact import Redactor
from mcptape.share.rules import Rules
from mcptape.transcript import open_transcript
from mcptape.transcript.writer import new_header

KEY = Key(bytes(range(16)), bytes(range(16)).hex())
LOGIN = b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"arguments":{"password":"pw1"}}}\n'
# the server's answer: pw1 after \n and after \t (found), after an escaped backslash (`\npw1`
# decoded: the word is `npw1`, not the password)
ANSWER = (
    b'{"jsonrpc":"2.0","id":2,"result":{"text":"login ok\\npw1 was accepted\\tpw1","path":"C:\\\\npw1"}}\n'
)


def _texts(lines: list[bytes]) -> list[str]:
    answer = orjson.loads(lines[-1])["result"]
    return [answer["text"], answer["path"]]


def _check(lines: list[bytes], key: bytes) -> None:
    ph = placeholder(key, "pw1")
    assert ph.encode() in lines[0]
    assert _texts(lines) == [f"login ok\n{ph} was accepted\t{ph}", "C:\\npw1"]


def test_record_redact_replaces_a_short_secret_after_an_escape(tmp_path: Path) -> None:
    """Live: the password learnt from the request goes from the answer's `\\npw1` and `\\tpw1`."""
    path = tmp_path / "live.jsonl"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    writer = RedactingWriter(fd, clock_start=0.0, redactor=Redactor(Rules.build(), KEY), hold=0.0)
    writer.header(new_header(["server"], "/srv"))
    writer.chunk(0.1, "in", LOGIN)
    writer.chunk(0.2, "out", ANSWER)
    writer.fields(0.3, "exit", code=0, signal=None)
    writer.close()
    _check([e.data for e in open_transcript(path).events() if e.ch in ("in", "out")], KEY.secret)


@pytest.mark.parametrize("echo_first", [False, True])
def test_mcptape_redact_replaces_a_short_secret_after_an_escape(tmp_path: Path, echo_first: bool) -> None:
    """Offline, whether the echo comes after the request or before it (the second pass)."""
    source, copy = tmp_path / "t.jsonl", tmp_path / "shared.jsonl"
    records = [
        {"t": 0.1, "ch": "in", "data": LOGIN.decode()},
        {"t": 0.2, "ch": "out", "data": ANSWER.decode()},
    ]
    if echo_first:
        records.reverse()
    header = {"mcptape": 1, "started": "", "command": ["srv"], "cwd": "", "recorder": {}}
    source.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in [header, *records]))
    redact_file(source, copy, Rules.build(), environ={})
    transcript = open_transcript(copy)
    key = key_from_header(transcript.header.extra["redacted"])
    assert key is not None
    lines = {e.ch: e.data for e in transcript.events() if e.ch in ("in", "out")}
    _check([lines["in"], lines["out"]], key)


def test_replay_secret_hides_a_short_value_after_an_escape() -> None:
    """`Unredactor.hide`: `\\npw1` and `\\tpw1` in a string are the word pw1; `\\\\npw1` is not,
    nor `\\npw1` outside a string."""
    found = {digest(KEY.secret, "pw1"): ["key:password"]}
    un = Unredactor.build({"salt": KEY.salt, "found": found}, [("password", "pw1")])
    ph = placeholder(KEY.secret, "pw1")
    hidden = un.hide(ANSWER)
    assert _texts([hidden]) == [f"login ok\n{ph} was accepted\t{ph}", "C:\\npw1"]
    assert un.hide(b"not json: a\\npw1\n") == b"not json: a\\npw1\n"  # outside a string: `npw1`
