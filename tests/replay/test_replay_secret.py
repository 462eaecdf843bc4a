"""Replaying a redacted transcript: placeholders go as they are unless `--secret` supplies the value."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from mcptape.replay.api import replay
from tests.clients import sdk_session
from tests.conftest import PYTHON, SERVERS, console_script

pytestmark = pytest.mark.slow

SERVER = [PYTHON, str(SERVERS / "rp_login.py")]
PASSWORD = "hunter2-very-secret-pw"


async def login(client: Client) -> dict[str, Any]:
    result = await client.call_tool("login", {"user": "ada", "password": PASSWORD})
    return {"ok": not result.is_error}


@pytest.fixture(scope="module")
def redacted_tape(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("secret") / "login.jsonl"
    command = [console_script(), "record", "--redact", "-q", "-o", str(path), "--", *SERVER]
    seen = sdk_session(command, script=login)
    assert seen.results == {"ok": True}
    assert PASSWORD.encode() not in path.read_bytes(), "record --redact kept the password out"
    return path


def test_placeholders_are_sent_as_they_are(redacted_tape: Path, tmp_path: Path) -> None:
    """Without --secret the server receives the placeholder, and the login now fails."""
    result = replay(redacted_tape, SERVER, output=tmp_path / "new.jsonl", config=False)
    assert result.exit_code == 1
    assert "wrong password" in result.render()
    assert PASSWORD.encode() not in (tmp_path / "new.jsonl").read_bytes()


def test_verified_secret_is_put_back(redacted_tape: Path, tmp_path: Path) -> None:
    """With the right --secret the replay is the same session as the recording."""
    result = replay(
        redacted_tape, SERVER, output=tmp_path / "new.jsonl", config=False, secrets=[f"password={PASSWORD}"]
    )
    assert result.exit_code == 0, result.render()
    assert PASSWORD.encode() in (tmp_path / "new.jsonl").read_bytes(), "the server got the real value"


def test_a_value_that_matches_no_placeholder_is_not_sent(redacted_tape: Path, tmp_path: Path) -> None:
    """A wrong value is refused by the hash check, reported, and never substituted."""
    result = replay(
        redacted_tape, SERVER, output=tmp_path / "new.jsonl", config=False, secrets=["password=guess"]
    )
    assert result.exit_code == 1
    assert "--secret password: the value matches no placeholder" in result.render()
    assert b"guess" not in (tmp_path / "new.jsonl").read_bytes()
