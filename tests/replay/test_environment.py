"""Replay starts the server with the environment names the recording had (issue 27, item 3).

One real SDK session with tests/servers/rp_env.py (tools that show its environment), recorded through
`mcptape record` with GREETING (a value never recorded) and TZ (a value recorded) in its environment,
then replayed from a replayer whose environment has other variables and no GREETING.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from mcptape.errors import UsageError
from mcptape.replay.api import replay
from mcptape.replay.settings import ReplaySettings
from mcptape.transcript import open_transcript
from tests import inprocess
from tests.replay.conftest import ENV_SERVER as SERVER
from tests.replay.conftest import NONCE, RECORDED

pytestmark = pytest.mark.slow


def replayer_env() -> dict[str, str]:
    """This process's environment with a variable the recording never had, another TZ, no GREETING."""
    here = {k: v for k, v in os.environ.items() if k != "GREETING"}
    return {**here, "MCPTAPE_QA_REPLAYER_ONLY": "1", "TZ": "UTC"}


def test_the_header_records_names_and_only_the_allowed_values(env_tape: Path) -> None:
    """The header names GREETING and TZ, keeps TZ's value, and holds no other value at all."""
    header = open_transcript(env_tape).header
    env = header.extra["env"]
    assert {"GREETING", "TZ", "PATH"} <= set(env["names"])
    assert env["values"]["TZ"] == "Europe/Paris"
    assert all(n in ("LANG", "LANGUAGE", "TZ") or n.startswith("LC_") for n in env["values"])
    line1 = env_tape.read_bytes().split(b"\n", 1)[0]
    assert b"hello-from-the-recording" not in line1 and os.environ["PATH"].encode() not in line1


def test_the_recorded_names_with_a_given_value_replay_the_same(env_tape: Path, tmp_path: Path) -> None:
    """With --env GREETING=..., the server sees the recorded names only (not the replayer's extra
    variable), TZ as recorded (not the replayer's UTC): the session is the same."""
    given = {"GREETING": RECORDED["GREETING"]}
    result = replay(
        env_tape,
        SERVER,
        output=tmp_path / "new.jsonl",
        env=replayer_env(),
        set_env=given,
        config=False,
        ignore=NONCE,
    )
    assert result.same, result.render()
    assert result.environment is not None and result.environment.mode == "recorded"
    new_env = open_transcript(result.new).header.extra["env"]
    assert new_env["values"]["TZ"] == "Europe/Paris"
    assert "MCPTAPE_QA_REPLAYER_ONLY" not in new_env["names"]
    assert "note: environment: set by --env: GREETING" in result.render()


def test_a_recorded_name_with_no_value_here_is_left_unset_and_explains_the_change(env_tape: Path) -> None:
    """Without a value for GREETING, it is left unset, the report says so, and names the two
    responses that show it as the ones the environment may explain (text and JSON)."""
    result = replay(env_tape, SERVER, env=replayer_env(), config=False, ignore=NONCE)
    assert not result.same
    text = result.render()
    assert "1 recorded variable(s) have no value here and were left unset: GREETING" in text
    assert 'result.content[0].text: "GREETING=hello-from-the-recording" -> "GREETING=(unset)"' in text
    explained = [line for line in text.splitlines() if "may differ because of the environment" in line]
    assert len(explained) == 2 and all("it shows GREETING" in line for line in explained), text
    doc = result.to_json()["environment"]
    assert doc["mode"] == "recorded" and doc["unset"] == ["GREETING"]
    assert [e["names"] for e in doc["explains"]] == [["GREETING"], ["GREETING"]]


def test_inherit_env_gives_the_replayers_whole_environment(env_tape: Path) -> None:
    """--inherit-env passes the replayer's variables (the names differ) and says which ones the
    recorded server did not have."""
    result = replay(env_tape, SERVER, env=replayer_env(), inherit_env=True, config=False, ignore=NONCE)
    assert not result.same
    doc = result.to_json()["environment"]
    assert doc["mode"] == "inherited" and "MCPTAPE_QA_REPLAYER_ONLY" in doc["extra"]
    assert {"name": "TZ", "recorded": "Europe/Paris", "here": "UTC"} in doc["changed"]
    assert "note: environment: --inherit-env passed" in result.render()


def test_a_transcript_without_a_recorded_environment_inherits(env_tape: Path, tmp_path: Path) -> None:
    """An old header (no env member) is replayed with the replayer's environment, and says so in JSON."""
    lines = env_tape.read_bytes().split(b"\n", 1)
    header = orjson.loads(lines[0])
    del header["env"]
    old = tmp_path / "old.jsonl"
    old.write_bytes(orjson.dumps(header) + b"\n" + lines[1])
    here = {**replayer_env(), "GREETING": RECORDED["GREETING"], "TZ": "Europe/Paris"}
    result = replay(old, SERVER, env=here, config=False, ignore=NONCE)
    assert result.to_json()["environment"]["mode"] == "unrecorded"
    new_names = open_transcript(result.new).header.extra["env"]["names"]
    assert "MCPTAPE_QA_REPLAYER_ONLY" in new_names and not result.same


@pytest.mark.parametrize("item", ["GREETING", "=x", ""])
def test_an_env_option_that_is_not_name_value_is_refused(item: str) -> None:
    """`--env` takes NAME=VALUE: anything else is a usage error, before any server starts."""
    with pytest.raises(UsageError, match="is not NAME=VALUE"):
        ReplaySettings.resolve(config=False, set_env=[item])


def test_a_header_env_member_mcptape_did_not_write_is_one_error_line(env_tape: Path, tmp_path: Path) -> None:
    """A header whose env values hold a name that is not LANG, LC_* or TZ: one line, exit 2."""
    lines = env_tape.read_bytes().split(b"\n", 1)
    header = orjson.loads(lines[0])
    header["env"]["values"]["GREETING"] = "leaked"
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(orjson.dumps(header) + b"\n" + lines[1])
    proc = inprocess.run("replay", str(bad), "--no-config", "--env", "A=1", "--", *SERVER)
    assert proc.returncode == 2
    assert proc.stderr.count(b"\n") == 1 and b"env member mcptape did not write" in proc.stderr
