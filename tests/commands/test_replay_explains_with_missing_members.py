"""replay explains a difference by a recorded environment variable the replay did not give back
(left unset, changed): a difference where a member exists on one side only (the MISSING marker) is read as
no text, not encoded as JSON (a TypeError: a traceback after the whole replay ran)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.commands.tapes import unsafe_chars
from tests.inprocess import run

ROOT = Path(__file__).resolve().parents[2]


def test_a_replay_whose_answers_lose_members_while_a_recorded_name_is_unset(tmp_path: Path) -> None:
    """The recorded server had NOTES_TOKEN set, which replay leaves unset; the new build (`cat`)
    answers each request with the request itself, so `result` is missing and `method` new: exit
    1, the differences and the unset name shown."""
    lines = (ROOT / "transcripts" / "sdk-echo-tool-handshake.jsonl").read_text().splitlines()
    header = json.loads(lines[0])
    header["env"] = {"names": ["NOTES_TOKEN"]}
    session = tmp_path / "s.jsonl"
    session.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    result = run(
        "replay", session, "--step-timeout", "1", "-o", tmp_path / "new.jsonl", "--", "cat", text=True
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert "NOTES_TOKEN" in result.stdout + result.stderr and unsafe_chars(result.stdout) == []
