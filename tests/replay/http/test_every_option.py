"""Every replay option works on HTTP transcripts, through the one skeleton (real processes: the
official SDK client's sessions with notes_http.py, replayed by `mcptape replay`): a folder, --learn,
--pace recorded, --stub, --http-match, --secret's refusal of a copy with no exchange, and the pytest
plugin on an HTTP corpus."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import orjson
import pytest

from tests.conftest import NESTED_PYTEST
from tests.recorder.http.helpers import records
from tests.replay.http.helpers import Tape, mcptape, notes_server

pytestmark = pytest.mark.slow


def test_a_folder_of_http_transcripts_is_replayed_each_over_http(
    auto_tape: Tape, legacy_tape: Tape, tmp_path: Path
) -> None:
    """Both recordings in one folder, each against its own recorded command and URL: a line each,
    `2 same`, exit 0."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    shutil.copy(auto_tape.path, folder / "auto.jsonl")
    shutil.copy(legacy_tape.path, folder / "legacy.jsonl")
    done = mcptape("replay", str(folder))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"2 transcripts under {folder}: 2 same, 0 different, 0 unreadable" in done.stdout
    assert done.stdout.count("same        ") == 2


def test_learn_replays_an_http_transcript_n_times(auto_tape: Tape) -> None:
    """`--learn 2`: two replays over HTTP, nothing varies but the minted values (compared by
    presence), so nothing is proposed and the replays are same: exit 0."""
    done = mcptape("replay", str(auto_tape.path), "--learn", "2", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    learned = orjson.loads(done.stdout)
    assert learned["completed"] is True and learned["proposed"] == [] and all(learned["same_after"])


def test_recorded_pace_sends_each_request_at_its_recorded_time(tape: Tape, tmp_path: Path) -> None:
    """`--pace recorded`: same, the minted values still carried, and the requests spread over at
    least the recorded span between the first and the last."""
    new = tmp_path / "new.jsonl"
    done = mcptape("replay", str(tape.path), "--pace", "recorded", "-o", str(new), "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    result = orjson.loads(done.stdout)
    assert result["diff"]["same"] is True and result["completed"] is True

    def span(path: Path) -> float:
        starts: list[float] = [r["t"] for r in records(path) if r["ch"] == "http-in"]
        return max(starts) - min(starts)

    # The sends keep the recorded offsets from the driver's start; each is timed where the proxy
    # reads it, so the first exchange's delivery (a connection, a thread scheduled under load) can
    # shorten the measured span by a few ms of a span of ~80 ms. A causal replay of this session
    # spans ~35 ms: 3/4 of the recorded span tells recorded pacing from it.
    assert span(new) >= 0.75 * span(tape.path)


def test_a_stubbed_command_the_server_runs_is_the_stub(auto_tape: Tape, tmp_path: Path) -> None:
    """`--stub git` with a build that runs `git --version` at start-up: the new session's exec line
    says the stub answered (the real git never ran, the server saw exit 255), and the diff names it
    (the recording had no such call: exit 1)."""
    new = tmp_path / "new.jsonl"
    command = notes_server(auto_tape.port, "--run", "git")
    done = mcptape("replay", str(auto_tape.path), "--stub", "git", "-o", str(new), "--json", "--", *command)
    result = orjson.loads(done.stdout)
    [call] = [orjson.loads(r["data"]) for r in records(new) if r["ch"] == "exec"]
    assert call["source"] == "stub" and call["argv"][1:] == ["--version"]
    out = b"".join(r["data"].encode() for r in records(new) if r["ch"] == "stdout")
    assert b"notes_http: git exited 255" in out
    assert done.returncode == 1
    assert [m["title"] for m in result["diff"]["messages"]] == [
        "exec call #1 for no request [new exec line 1]"
    ]


def test_http_match_is_checked_and_taken(auto_tape: Tape) -> None:
    """`--http-match` names the cassette's matching fields as for stdio: an unknown field is one
    error line (exit 2); known fields are taken, and the replay is same."""
    bad = mcptape("replay", str(auto_tape.path), "--http-match", "colour")
    assert bad.returncode == 2 and "--http-match: unknown field 'colour'" in bad.stderr
    good = mcptape("replay", str(auto_tape.path), "--http-match", "method,url")
    assert good.returncode == 0, good.stdout + good.stderr


def test_a_redacted_copy_with_no_exchange_is_one_error_line(auto_tape: Tape, tmp_path: Path) -> None:
    """A copy an older `mcptape redact` made kept no HTTP exchange (its raw records without their
    number): replaying it says so in one line, exit 2, and names what to do instead."""
    lines = auto_tape.path.read_bytes().splitlines(keepends=True)
    old = [lines[0]]
    for line in lines[1:]:
        record = orjson.loads(line)
        if record.get("ch") in ("http-in", "http-out"):
            record = {"t": record["t"], "ch": record["ch"], "data": "[redacted:0123456789abcdef]"}
        old.append(orjson.dumps(record) + b"\n")
    shared = tmp_path / "shared.jsonl"
    shared.write_bytes(b"".join(old))
    done = mcptape("replay", str(shared))
    assert done.returncode == 2 and done.stdout == ""
    assert "has no HTTP exchange" in done.stderr and "redact the recording again" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_pytest_plugin_runs_an_http_corpus(auto_tape: Tape, tmp_path: Path) -> None:
    """`pytest corpus/ --mcptape-server CMD`: the HTTP transcript is one item, replayed over HTTP
    against CMD at the recorded URL: it passes against the same build and fails with the diff
    against a changed one."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    shutil.copy(auto_tape.path, folder / "notes.jsonl")

    def run(*flags: str) -> subprocess.CompletedProcess[str]:
        server = shlex.join(notes_server(auto_tape.port, *flags))
        args = ["-q", "-rf", str(folder), "--mcptape-server", server]
        return subprocess.run(
            [*NESTED_PYTEST, *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )

    same = run()
    assert same.returncode == 0 and "1 passed" in same.stdout, same.stdout + same.stderr
    changed = run("--v2")
    assert changed.returncode == 1 and "1 failed" in changed.stdout
    assert 'result.content[0].text: "Hello, Ada!" -> "Hi, Ada!"' in changed.stdout
