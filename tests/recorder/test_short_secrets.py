"""Must show (issue 27.9): a short password (`pw1`) that the server echoes is redacted everywhere,
live and offline; a replay given the real value with `--secret` puts it back in what the client
sends and hides it again in what the server echoes, so it says `same`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from mcp import Client

from mcptape.replay.api import replay
from mcptape.transcript import open_transcript
from tests import inprocess
from tests.clients import sdk_session
from tests.conftest import PYTHON, SERVERS, console_script

pytestmark = pytest.mark.slow

SERVER = [PYTHON, str(SERVERS / "nr_short_secret.py")]
PASSWORD = "pw1"


async def login(client: Client) -> dict[str, Any]:
    result = await client.call_tool("login", {"user": "ada", "password": PASSWORD})
    return {"text": result.content[0].text}  # type: ignore[union-attr]


def _words(path: Path) -> bytes:
    """Every byte the transcript's byte channels hold."""
    return b"".join(e.data for e in open_transcript(path).events() if e.fields is None)


@pytest.fixture(scope="module")
def tapes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One session recorded with `record --redact`, one plain and its `mcptape redact` copy."""
    tmp = tmp_path_factory.mktemp("short")
    live, plain, copy = tmp / "live.jsonl", tmp / "plain.jsonl", tmp / "copy.jsonl"
    record = [console_script(), "record", "-q"]
    seen = sdk_session([*record, "--redact", "-o", str(live), "--", *SERVER], script=login)
    assert seen.results == {"text": "welcome ada: password pw1 accepted"}
    sdk_session([*record, "-o", str(plain), "--", *SERVER], script=login)
    done = inprocess.run("redact", str(plain), "-o", str(copy), text=True)
    assert done.returncode == 0, done.stderr
    return {"live": live, "plain": plain, "copy": copy}


@pytest.mark.parametrize("which", ["live", "copy"])
def test_a_short_password_and_its_echo_are_both_redacted(tapes: dict[str, Path], which: str) -> None:
    """The request's `pw1` and the answer's "password pw1 accepted" hold the same placeholder."""
    assert b"pw1" in _words(tapes["plain"])  # the plain recording is the truth
    data = _words(tapes[which])
    assert b"pw1" not in data
    out = [orjson.loads(e.data) for e in open_transcript(tapes[which]).events() if e.ch == "out"]
    [answer] = [m for m in out if "content" in m.get("result", {})]
    text = answer["result"]["content"][0]["text"]
    assert text.startswith("welcome ada: password [redacted:") and text.endswith("] accepted")
    placeholder = text.split()[3]
    assert placeholder.encode() in b"".join(
        e.data for e in open_transcript(tapes[which]).events() if e.ch == "in"
    )


def test_a_short_secret_is_not_replaced_inside_longer_words_or_json_numbers(tapes: dict[str, Path]) -> None:
    """Only the whole word goes: the copy's other lines (ids, `pw10`-like text) are as recorded."""
    plain = [e.data for e in open_transcript(tapes["plain"]).events() if e.ch == "out"]
    copy = [e.data for e in open_transcript(tapes["copy"]).events() if e.ch == "out"]
    changed = [a for a, b in zip(plain, copy, strict=True) if a != b]
    assert len(changed) == 1 and b"pw1 accepted" in changed[0]


def test_replay_with_the_real_secret_says_same_against_a_server_that_echoes_it(
    tapes: dict[str, Path], tmp_path: Path
) -> None:
    """--secret password=pw1: the server gets pw1 and echoes it; the diff hides it again: `same`."""
    new = tmp_path / "new.jsonl"
    result = replay(tapes["live"], SERVER, output=new, config=False, secrets=[f"password={PASSWORD}"])
    assert result.exit_code == 0, result.render()
    assert b"password pw1 accepted" in _words(new), "the server got the real value and echoed it"
