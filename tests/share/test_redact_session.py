"""Redacting a real recorded session: no planted secret survives, the framing stays the same."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import orjson
import pytest

from mcptape.errors import UsageError
from mcptape.share.placeholder import PLACEHOLDER, verify
from mcptape.share.unredact import load_unredactor
from mcptape.transcript import open_transcript
from tests import inprocess
from tests.share.leaky import ENV, PLANTED, REQ_SECRET, Session, record_leaky


def _channel(path: Path, ch: str) -> bytes:
    return b"".join(e.data for e in open_transcript(path).events() if e.ch == ch)


def _redact(src: Path, dst: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return inprocess.run("redact", str(src), "-o", str(dst), *extra, env=ENV, text=True)  # as the process


def _kinds(data: bytes) -> list[str]:
    """Per line: 'json' when the line is one JSON value, else 'other' (what framing decides)."""
    kinds = []
    for line in data.split(b"\n")[:-1]:
        try:
            orjson.loads(line)
            kinds.append("json")
        except orjson.JSONDecodeError:
            kinds.append("other")
    return kinds


@pytest.fixture(scope="module")
def redacted_copy(plain: Session, tmp_path_factory: pytest.TempPathFactory) -> Path:
    dst = tmp_path_factory.mktemp("copy") / "shared.jsonl"
    result = _redact(plain.transcript, dst)
    assert result.returncode == 0, result.stderr
    assert "secret(s) replaced" in result.stderr
    return dst


def test_the_plain_recording_holds_the_exact_bytes(plain: Session) -> None:
    """Without --redact the transcript is the truth: stdout byte-exact, every planted secret present."""
    assert _channel(plain.transcript, "out") == plain.stdout
    everything = plain.transcript.read_bytes()
    for where, secret in PLANTED.items():
        if where != "split-across-reads":
            assert secret.encode() in everything, where
    assert _channel(plain.transcript, "err") == plain.stderr


def test_the_secret_split_across_two_reads_is_in_two_events(plain: Session) -> None:
    """The fixture really splits one secret over two events (else the straddle case proves nothing)."""
    secret = PLANTED["split-across-reads"].encode()
    outs = [e.data for e in open_transcript(plain.transcript).events() if e.ch == "out"]
    assert not any(secret in data for data in outs)
    assert secret in b"".join(outs)


@pytest.mark.parametrize("where", sorted(PLANTED))
def test_no_planted_secret_survives_in_the_redacted_copy(redacted_copy: Path, where: str) -> None:
    """Request, response, notification, stderr, argv, environment, split reads: all gone from the copy."""
    assert PLANTED[where].encode() not in redacted_copy.read_bytes()


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Session:
    return record_leaky(tmp_path_factory.mktemp("live") / "live.jsonl", "--redact")


@pytest.mark.parametrize("where", sorted(PLANTED))
def test_no_planted_secret_survives_record_redact(live: Session, where: str) -> None:
    """`record --redact` writes none of them, while the client still receives the real bytes."""
    assert PLANTED[where].encode() not in live.transcript.read_bytes()
    assert PLANTED[where].encode() in live.stdout + live.stderr  # forwarded untouched


def test_record_redact_keeps_line_numbers_and_kinds(plain: Session, live: Session) -> None:
    """The live-redacted recording has the same lines, of the same kinds, as the plain one."""
    for ch in ("out", "in", "err"):
        assert _kinds(_channel(plain.transcript, ch)) == _kinds(_channel(live.transcript, ch)), ch


def test_each_secret_has_a_placeholder_that_verifies(redacted_copy: Path) -> None:
    """Every planted value hashes (with the header's salt) to a placeholder present in the copy."""
    header = open_transcript(redacted_copy).header
    info = header.extra["redacted"]
    key = bytes.fromhex(info["salt"])
    body = redacted_copy.read_text()
    digests = set(PLACEHOLDER.findall(body))
    for where, secret in PLANTED.items():
        assert any(verify(key, d, secret) for d in digests), where
        assert any(verify(key, d, secret) for d in info["found"]), where


def test_equal_secrets_get_equal_placeholders(redacted_copy: Path) -> None:
    """The password sent in the request and echoed in the response become the same placeholder."""
    ins = _channel(redacted_copy, "in").decode()
    outs = _channel(redacted_copy, "out").decode()
    sent = re.search(r'"password": "(\[redacted:[0-9a-f]{16}\])"', ins)
    assert sent is not None
    assert f"logged in with {sent.group(1)}" in outs


def test_lines_keep_their_numbers_and_kinds(plain: Session, redacted_copy: Path) -> None:
    """A non-protocol line stays non-protocol at the same line number; JSON lines stay JSON lines."""
    for ch in ("out", "in", "err"):
        before = _kinds(_channel(plain.transcript, ch))
        after = _kinds(_channel(redacted_copy, ch))
        assert before == after, ch
    assert _kinds(_channel(redacted_copy, "out"))[0] == "other"
    assert b"[redacted:" in _channel(redacted_copy, "out").split(b"\n")[0]


def test_the_header_says_which_rules_ran(redacted_copy: Path) -> None:
    """The header names the rules, the environment variables used, and hides argv secrets."""
    header = open_transcript(redacted_copy).header
    info = header.extra["redacted"]
    assert "secret-keys" in info["rules"] and "jwt" in info["rules"]
    assert info["env"] is True  # the rule ran; only the variables it found are named
    assert ["env:SH_SERVICE_TOKEN"] in info["found"].values()
    assert header.command[-2] == "--api-key"
    assert PLACEHOLDER.fullmatch(header.command[-1])


def test_record_redact_ends_with_what_it_found(live: Session) -> None:
    """Before `exit`, a note says how many secrets were replaced and which rules found them."""
    events = list(open_transcript(live.transcript).events())
    note = events[-2]
    assert note.ch == "note" and events[-1].ch == "exit"
    assert str(note.get("msg")).startswith("record --redact: ")
    labels = {label for found in note.get("redacted")["found"].values() for label in found}
    assert {"argv:--api-key", "env:SH_SERVICE_TOKEN", "key:password", "key:access_token"} <= labels


def test_secrets_given_back_are_verified_then_substituted(redacted_copy: Path, live: Session) -> None:
    """--secret NAME=VALUE: the right value replaces its placeholder; a wrong one is reported unmatched."""
    for path in (redacted_copy, live.transcript):  # found in the header, or in record's closing note
        un = load_unredactor(
            path, [f"password={REQ_SECRET}", "other=not-a-secret-of-this-session"], environ={}
        )
        assert un.unmatched == ["other"]
        ins = [e.data for e in open_transcript(path).events() if e.ch == "in"]
        login = next(line for line in ins if b'"password"' in line)
        assert REQ_SECRET.encode() in un.line(login)
        assert orjson.loads(un.line(login))["params"]["arguments"]["password"] == REQ_SECRET


def test_bad_secret_arguments_are_usage_errors(plain: Session, redacted_copy: Path) -> None:
    """A malformed --secret (never echoed back) or secrets for an unredacted transcript: exit-2 errors."""
    with pytest.raises(UsageError, match="expects NAME=VALUE") as info:
        load_unredactor(redacted_copy, ["hunter2"], environ={})
    assert "hunter2" not in str(info.value)
    with pytest.raises(UsageError, match="not a redacted transcript"):
        load_unredactor(plain.transcript, ["a=b"], environ={})
