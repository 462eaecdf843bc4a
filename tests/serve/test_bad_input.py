"""Bad input: one clear line each, no traceback, the documented exit codes (0 served, 1 a request
without an answer or a client line that is not protocol, 2 usage or unreadable input)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.serve.helpers import mcptape
from tests.serve.tapes import Tape, call, request, time_tape


def one_error_line(stderr: bytes) -> str:
    lines = stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), lines
    assert "Traceback" not in lines[0]
    return lines[0]


def test_a_transcript_with_no_responses_is_exit_2_with_one_line(tmp_path: Path) -> None:
    """A recording where the server never answered: nothing to serve."""
    path = Tape().client(call(1, "now")).client(call(2, "now")).end().write(tmp_path / "silent.jsonl")
    proc = mcptape("serve", path)
    assert proc.returncode == 2 and proc.stdout == b""
    assert "has no recorded response to serve" in one_error_line(proc.stderr)


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"garbage\n", "is not an mcptape transcript"),
        (b"", "is empty"),
        (b'{"mcptape": 1, "command": "not a list"}\n', "line 1 is not a readable header"),
        (b'{"mcptape":1,"started":"2026-', "cut short"),
    ],
    ids=["not-json", "empty", "bad-header", "cut-header"],
)
def test_a_corrupt_transcript_is_exit_2_with_one_line(tmp_path: Path, content: bytes, says: str) -> None:
    """Whatever is wrong with line 1, one Error: line saying it, nothing on stdout."""
    path = tmp_path / "corrupt.jsonl"
    path.write_bytes(content)
    proc = mcptape("serve", path)
    assert proc.returncode == 2 and proc.stdout == b""
    assert says in one_error_line(proc.stderr)


def test_unreadable_lines_inside_a_transcript_are_notes_and_the_rest_is_served(tmp_path: Path) -> None:
    """A damaged line in the middle: a note on stderr, the readable requests still answered."""
    path = time_tape().write(tmp_path / "t.jsonl")
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join([*lines[:3], b"{broken\n", *lines[3:]]))
    proc = mcptape("serve", path, stdin=orjson.dumps(call(1, "now", zone="UTC")) + b"\n")
    assert proc.returncode == 0
    assert orjson.loads(proc.stdout)["result"]["content"][0]["text"] == "12:00 UTC"
    assert b"mcptape serve: note: t.jsonl: transcript line 4" in proc.stderr


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["missing.jsonl"], "does not exist"),
        (["E"], "holds no mcptape transcript"),
        (["T", "--report", "no/such/dir/r.json"], "directory no/such/dir does not exist"),
        (["T", "--ignore", "params.x["], "ignore rule 'params.x['"),
        (["T", "--match", "fuzzy"], "Invalid value for '--match'"),
        (["T", "--inject", "nonsense"], "Invalid value for '--inject'"),
    ],
)
def test_usage_errors_are_exit_2_with_one_line(tmp_path: Path, args: list[str], says: str) -> None:
    """A missing file, an empty folder, an unwritable report, a bad rule, an unknown mode or case."""
    (tmp_path / "empty").mkdir()
    tape = time_tape().write(tmp_path / "t.jsonl")
    places = {"T": str(tape), "E": str(tmp_path / "empty")}
    argv = [places.get(a, a) for a in args]
    proc = mcptape("serve", *argv, stdin=b"")
    assert proc.returncode == 2 and proc.stdout == b""
    assert says in one_error_line(proc.stderr)


def test_a_client_that_sends_garbage_gets_errors_one_line_each_and_exit_1(tmp_path: Path) -> None:
    """Noise, bytes that are not UTF-8, a batch and a cut last line: each a JSON-RPC error on stdout
    and one line on stderr; a good request in between is still served; stdout is protocol only."""
    path = time_tape().write(tmp_path / "t.jsonl")
    good = orjson.dumps(request(9, "tools/list")) + b"\n"
    sent = b"[debug] connecting\n" + good + b"\xff\xfe\n" + b"[1, 2]\n" + b'{"jsonrpc":"2.0","id":3'
    proc = mcptape("serve", path, stdin=sent)
    assert proc.returncode == 1
    answers = [orjson.loads(line) for line in proc.stdout.splitlines()]  # every line is JSON
    assert [(a["id"], a.get("error", {}).get("code")) for a in answers] == [
        (None, -32700),
        (9, None),
        (None, -32700),
        (None, -32600),
        (None, -32700),
    ]
    told = [line for line in proc.stderr.decode().splitlines() if "is not a request serve can answer" in line]
    assert len(told) == 4
    assert "4 client line(s) not protocol" in proc.stderr.decode()
    assert b"Traceback" not in proc.stderr


def test_stdout_carries_only_protocol_even_when_nothing_is_asked(tmp_path: Path) -> None:
    """A client that closes at once: nothing on stdout, the summary on stderr, exit 0."""
    proc = mcptape("serve", time_tape().write(tmp_path / "t.jsonl"), stdin=b"")
    assert proc.returncode == 0 and proc.stdout == b""
    assert proc.stderr.decode().startswith("mcptape serve: 0 served, 0 unmatched, 5 unused")


def test_probe_client_without_a_transcript_is_a_usage_error() -> None:
    """--client needs --from: one line, exit 2, nothing run."""
    proc = mcptape("probe", "--client", "--", "true")
    assert proc.returncode == 2
    assert "probe --client needs --from TRANSCRIPT" in one_error_line(proc.stderr)


def test_hostile_requests_are_answered_and_told_escaped(tmp_path: Path) -> None:
    """A request nested 900 levels deep and a tool name with ESC and RLO: each gets its error, the
    stderr lines hold neither raw control, the report is JSON."""
    deep = b"[" * 900 + b'"x"' + b"]" * 900
    first = (
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":'
        + deep
        + b"}}}\n"
    )
    second = orjson.dumps(call(2, "\x1b[31m\u202egnp.exe")) + b"\n"
    report = tmp_path / "report.json"
    proc = mcptape("serve", time_tape().write(tmp_path / "t.jsonl"), "--report", report, stdin=first + second)
    assert proc.returncode == 1
    assert [orjson.loads(line)["error"]["code"] for line in proc.stdout.splitlines()] == [-32001, -32001]
    assert b"\x1b" not in proc.stderr and "\u202e".encode() not in proc.stderr
    assert "\\x1b[31m\\u202egnp.exe" in proc.stderr.decode()
    assert orjson.loads(report.read_bytes())["counts"]["unmatched"] == 2
