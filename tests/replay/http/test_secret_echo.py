"""Must show (issue 27.9, over Streamable HTTP): a session with a short password (`pw1`) that the
server echoes, recorded through `mcptape record --http-upstream` and shared as `mcptape redact`'s
copy, replays `same` with `--secret password=pw1`: the value goes back into the request (body and
`Content-Length`), and what the new server echoes is hidden again before the diff, while the new
session on disk keeps what the server really said. Without `--secret` the server refuses the
placeholder, and the replay says so. Real processes: the official SDK client and MCPServer (in the
2026-07-28 revision, JSON answers, and with the initialize handshake, SSE answers)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import anyio
import orjson
import pytest
from mcp import Client

from mcptape.check.analyze import analyze_file
from mcptape.transcript import open_transcript
from tests.conftest import PYTHON, SERVERS
from tests.recorder.http.helpers import exchanges, free_port, recording
from tests.replay.http.helpers import mcptape

pytestmark = pytest.mark.slow

PASSWORD = "pw1"
ECHO = "welcome ada: password pw1 accepted"


@dataclass
class Shared:
    plain: Path  # the recording
    copy: Path  # its redacted copy, as shared


async def _login(url: str, mode: str) -> str:
    async with Client(url, mode=mode) as client:
        result = await client.call_tool("login", {"user": "ada", "password": PASSWORD})
        text: str = result.content[0].text  # type: ignore[union-attr]
        return text


@pytest.fixture(scope="module", params=["auto", "legacy"])
def shared(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Shared:
    """The SDK client logs in through `record --http-upstream URL -- nr_short_secret_http.py PORT`;
    `mcptape redact` makes the copy."""
    mode: str = request.param
    folder = tmp_path_factory.mktemp(f"secret-echo-{mode}")
    port = free_port()
    plain, copy = folder / "plain.jsonl", folder / "shared.jsonl"
    server = [PYTHON, str(SERVERS / "nr_short_secret_http.py"), str(port)]
    with recording(f"http://127.0.0.1:{port}/mcp", plain, server) as rec:
        assert anyio.run(_login, rec.url, mode) == ECHO
        rec.stop()
    done = mcptape("redact", str(plain), "-o", str(copy))
    assert done.returncode == 0, done.stderr
    return Shared(plain, copy)


def _answer(path: Path) -> str:
    """The text of the login's answer, as the transcript's `out` line has it."""
    for event in open_transcript(path).events():
        if event.ch == "out" and (b"welcome" in event.data or b"wrong password" in event.data):
            text: str = orjson.loads(event.data)["result"]["content"][0]["text"]
            return text
    raise AssertionError(f"{path} holds no answer to the login")


def test_the_copy_keeps_each_exchange_as_http_with_the_password_hidden(shared: Shared) -> None:
    """Every exchange of the recording is in the copy with its number; its raw bytes hold no `pw1`
    (the request's body, the echo in the answer), `check` reads them as it reads the recording's
    (a body's new length in its `Content-Length`, an SSE stream's chunks written again)."""
    assert PASSWORD.encode() in shared.plain.read_bytes()
    assert PASSWORD.encode() not in shared.copy.read_bytes()
    for channel in ("http-in", "http-out"):
        assert sorted(exchanges(shared.copy, channel)) == sorted(exchanges(shared.plain, channel))
    assert _answer(shared.copy).startswith("welcome ada: password [redacted:")
    _, recorded = analyze_file(str(shared.plain))
    _, copied = analyze_file(str(shared.copy))
    assert [f.rule for f in copied.findings] == [f.rule for f in recorded.findings] == []


def test_replay_with_the_real_secret_is_same_and_keeps_what_the_server_said(
    shared: Shared, tmp_path: Path
) -> None:
    """`replay COPY --secret password=pw1`: exit 0, `same`; the new session on disk holds the real
    echo, in the `out` line and in the raw response alike (the hiding is the diff's, not the file's)."""
    new = tmp_path / "new.jsonl"
    done = mcptape("replay", str(shared.copy), "--secret", f"password={PASSWORD}", "-o", str(new))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("\nsame")
    assert _answer(new) == ECHO
    assert any(ECHO.encode() in body for body in exchanges(new, "http-out").values())


def test_replay_without_the_secret_sends_the_placeholder_and_says_different(
    shared: Shared, tmp_path: Path
) -> None:
    """Without `--secret` the server gets the placeholder as the password and refuses it: exit 1,
    `different`, and that answer's change shown."""
    new = tmp_path / "new.jsonl"
    done = mcptape("replay", str(shared.copy), "-o", str(new))
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("\ndifferent")
    assert "messages: 1 differ" in done.stdout
    recorded = _answer(shared.copy)
    assert (
        f'result.content[0].text: "{recorded}" -> "Error executing tool login: wrong password"' in done.stdout
    )
    assert "result.isError: false -> true" in done.stdout
    assert _answer(new) == "Error executing tool login: wrong password"
