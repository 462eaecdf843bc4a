"""Must show: the official SDK client over Streamable HTTP against an SDK MCPServer, recorded through
`mcptape record --http-upstream`, replayed with `mcptape replay FILE --http-upstream URL -- CMD`
(real processes): `same` against the same server, `different` with the change shown against a build
whose tool answers another text."""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

from mcptape.check.analyze import analyze_file
from tests.recorder.http.helpers import exchanges, records
from tests.replay.http.helpers import Tape, mcptape, notes_server

pytestmark = pytest.mark.slow


def _request_lines(path: Path) -> list[bytes]:
    """The request lines of the exchanges (sorted)."""
    return sorted(data.split(b"\r\n", 1)[0] for data in exchanges(path, "http-in").values())


Replayed = Callable[[Tape], tuple[subprocess.CompletedProcess[str], Path]]


@pytest.fixture(scope="module")
def same_server(tmp_path_factory: pytest.TempPathFactory) -> Replayed:
    """`replay FILE --http-upstream URL -o NEW -- CMD` of a recording against the same server: its
    output and the new session, run once per recording for the tests that each ran this same replay
    (read them, never modify them)."""
    made: dict[Path, tuple[subprocess.CompletedProcess[str], Path]] = {}

    def get(tape: Tape) -> tuple[subprocess.CompletedProcess[str], Path]:
        if tape.path not in made:
            new = tmp_path_factory.mktemp("same-server") / "new.jsonl"
            argv = ["replay", str(tape.path), "--http-upstream", tape.url, "-o", str(new), "--"]
            made[tape.path] = mcptape(*argv, *notes_server(tape.port)), new
        return made[tape.path]

    return get


def test_a_replay_against_the_same_server_is_same(tape: Tape, same_server: Replayed) -> None:
    """Exit 0 and `same`; the new session is an HTTP transcript of the same requests (POST, GET and
    DELETE alike), recorded through the same proxy, and `check` finds nothing in it."""
    done, new = same_server(tape)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("\nsame")
    assert _request_lines(new) == _request_lines(tape.path)
    header = orjson.loads(new.read_bytes().splitlines()[0])
    assert header["http"]["upstream"] == tape.url and header["replay_of"] == str(tape.path)
    _, analysis = analyze_file(str(new))
    assert analysis.findings == [] and analysis.clean


def test_a_build_whose_tool_answers_another_text_is_different_and_shows_it(
    tape: Tape, tmp_path: Path
) -> None:
    """`--v2` greets with "Hi": exit 1, `different`, and that one answer's change named in the
    report (the minted values aside)."""
    new = tmp_path / "v2.jsonl"
    done = mcptape(
        "replay",
        str(tape.path),
        "--http-upstream",
        tape.url,
        "-o",
        str(new),
        "--",
        *notes_server(tape.port, "--v2"),
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("\ndifferent")
    assert "messages: 1 differ" in done.stdout
    assert 'result.content[0].text: "Hello, Ada!" -> "Hi, Ada!"' in done.stdout
    assert new.exists()


def test_json_output_is_the_report_alone(auto_tape: Tape) -> None:
    """`--json`: stdout is one JSON document (the new server's own stdout line is recorded, not
    printed), with the substitutions and the diff; the temporary new session is removed."""
    done = mcptape(
        "replay",
        str(auto_tape.path),
        "--http-upstream",
        auto_tape.url,
        "--json",
        "--",
        *notes_server(auto_tape.port),
    )
    assert done.returncode == 0, done.stderr
    report = orjson.loads(done.stdout)
    assert report["same"] is True and report["completed"] is True and report["new_transcript"] is None
    assert report["sent"] == report["total"] == len(_request_lines(auto_tape.path))
    assert sorted(s["path"] for s in report["substitutions"]) == [
        "params.arguments.handle",
        "params.requestState",
    ]
    assert "notes_http: serving" not in done.stdout


def test_the_server_is_started_first_and_stopped_after(legacy_tape: Tape, same_server: Replayed) -> None:
    """With `-- CMD`: its stdout is recorded on `stdout` (not the protocol), it ends the way the
    recorded one ended, and its port is free again afterwards."""
    done, new = same_server(legacy_tape)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = records(new)
    stdout = "".join(r["data"] for r in lines if r["ch"] == "stdout")
    assert stdout == f"notes_http: serving on 127.0.0.1:{legacy_tape.port}\n"
    old_end = [r for r in records(legacy_tape.path) if r["ch"] == "exit"]
    new_end = [r for r in lines if r["ch"] == "exit"]
    assert [(r["code"], r["signal"]) for r in new_end] == [(r["code"], r["signal"]) for r in old_end]
    with socket.socket() as s:
        s.bind(("127.0.0.1", legacy_tape.port))  # nothing listens there any more
