"""Fields of the wrong JSON type never crash a reading command: in the header they make the file
"not a readable header" (exit 2, one line); in an event line they make it an unreadable line
(counted, reported, skipped)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from mcptape.cli import main
from mcptape.errors import TranscriptError
from mcptape.transcript import open_transcript
from mcptape.transcript.index import TranscriptIndex
from mcptape.transcript.reader import BadLine

HEADER: dict[str, Any] = {
    "mcptape": 1,
    "started": "2026-11-29T19:38:30.593206Z",
    "command": ["srv"],
    "cwd": "/",
    "recorder": {"name": "mcptape", "version": "0.1.0"},
}
PING = b'{"t":0.1,"ch":"in","data":"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1,\\"method\\":\\"ping\\"}\\n"}\n'
PONG = b'{"t":0.2,"ch":"out","data":"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1,\\"result\\":{}}\\n"}\n'
EXIT = b'{"t":0.3,"ch":"exit","code":0}\n'  # the recording is whole (no incomplete-capture)


def _file(path: Path, header: dict[str, Any], *lines: bytes) -> Path:
    path.write_bytes(orjson.dumps(header) + b"\n" + b"".join(lines))
    return path


def _run(args: list[str]) -> int:
    """The exit code of `mcptape ARGS`, run in this process."""
    try:
        main(args)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


BAD_HEADERS = {
    "recorder-string": ({"recorder": "ab"}, '"recorder" is a string, not an object'),
    "recorder-array": ({"recorder": [1, 2]}, '"recorder" is an array, not an object'),
    "started-number": ({"started": 5}, '"started" is an integer, not a string'),
    "command-string": ({"command": "srv"}, '"command" is a string, not an array of strings'),
    "command-numbers": ({"command": ["srv", 2]}, '"command" holds an integer, not only strings'),
    "cwd-object": ({"cwd": {"a": 1}}, '"cwd" is an object, not a string'),
}


@pytest.mark.parametrize(("fields", "why"), BAD_HEADERS.values(), ids=BAD_HEADERS.keys())
def test_a_header_field_of_the_wrong_type_is_not_a_readable_header(
    tmp_path: Path, fields: dict[str, Any], why: str
) -> None:
    """The reader and the viewer's index refuse it with one sentence naming the field."""
    path = _file(tmp_path / "t.jsonl", {**HEADER, **fields}, PING, PONG)
    with pytest.raises(TranscriptError) as info:
        open_transcript(path)
    assert str(info.value) == (
        f"{path}: line 1 is not a readable header ({why}) (the file was edited or damaged: record it again)"
    )
    with pytest.raises(TranscriptError, match="not a readable header"):
        TranscriptIndex(path)


@pytest.mark.parametrize(
    "command",
    [
        ["check"],
        ["check", "--json"],
        ["diff", "{other}"],
        ["report", "-o", "{dir}/r"],
        ["redact", "-o", "{dir}/x"],
    ],
    ids=["check", "check-json", "diff", "report", "redact"],
)
def test_every_reading_command_refuses_a_mistyped_header_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    """`"recorder": "ab"` was a traceback and exit 1 in every reading command; now exit 2, one line."""
    path = _file(tmp_path / "t.jsonl", {**HEADER, "recorder": "ab"}, PING, PONG)
    other = _file(tmp_path / "other.jsonl", HEADER, PING, PONG)
    args = [a.format(other=other, dir=tmp_path) for a in command]
    assert _run([args[0], str(path), *args[1:]]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("Error: ") and err.count("\n") == 1 and "not a readable header" in err


def test_missing_or_null_header_fields_read_as_empty(tmp_path: Path) -> None:
    """Only a wrong type is refused: a header with `null` or no `command`, `cwd`, `recorder` reads."""
    path = _file(tmp_path / "t.jsonl", {"mcptape": 1, "command": None, "cwd": None}, PING)
    header = open_transcript(path).header
    assert (header.command, header.cwd, header.started, header.recorder) == ([], "", "", {})


BAD_RECORDS = {
    "time-string": (b'{"t":"0.15","ch":"in","data":"x\\n"}\n', "t is a string, not a number"),
    "time-boolean": (b'{"t":true,"ch":"in","data":"x\\n"}\n', "t is a boolean, not a number"),
    "channel-number": (b'{"t":0.15,"ch":5,"data":"x\\n"}\n', "ch is an integer, not a string"),
    "data-number": (b'{"t":0.15,"ch":"in","data":5}\n', "data is an integer, not a string"),
    "b64-array": (b'{"t":0.15,"ch":"in","b64":[1]}\n', "b64 is an array, not a string"),
    "b64-invalid": (b'{"t":0.15,"ch":"in","b64":"***"}\n', "b64 is not valid base64"),
    "no-bytes": (b'{"t":0.15,"ch":"out"}\n', "a record of channel out without data or b64"),
    "eof-without-of": (b'{"t":0.15,"ch":"eof"}\n', "an eof record without of"),
    "eof-of-array": (b'{"t":0.15,"ch":"eof","of":[1]}\n', "of of an eof record is an array"),
    "exit-code-string": (b'{"t":0.15,"ch":"exit","code":"x"}\n', "code of an exit record is a string"),
    "note-msg-object": (b'{"t":0.15,"ch":"note","msg":{}}\n', "msg of a note record is an object"),
    "unknown-kind": (
        b'{"t":0.15,"ch":"zzz","secret":{"a":1}}\n',
        "a record of an unknown kind (channel 'zzz', no data or b64)",
    ),
}


@pytest.mark.parametrize(("line", "why"), BAD_RECORDS.values(), ids=BAD_RECORDS.keys())
def test_a_record_of_the_wrong_shape_is_an_unreadable_line(tmp_path: Path, line: bytes, why: str) -> None:
    """The reader says why in the line's problem; the viewer shows the same reason on its row."""
    path = _file(tmp_path / "t.jsonl", HEADER, PING, line, PONG)
    transcript = open_transcript(path)
    assert [e.index for e in transcript.events()] == [0, 2]
    assert [(p.line, p.reason) for p in transcript.problems] == [(3, f"not an event ({why})")]
    index = TranscriptIndex(path)
    index.scan(final=True)
    row = index.event(1)
    assert isinstance(row, BadLine) and row.reason == f"not an event ({why})"


@pytest.mark.parametrize(("line", "why"), BAD_RECORDS.values(), ids=BAD_RECORDS.keys())
def test_check_notes_a_record_of_the_wrong_shape_and_checks_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: bytes, why: str
) -> None:
    """`check --json`: exit 0 (the session around it is clean), the line in `notes`, no traceback."""
    path = _file(tmp_path / "t.jsonl", HEADER, PING, line, PONG, EXIT)
    assert _run(["check", "--json", str(path)]) == 0
    out, err = capsys.readouterr()
    document = orjson.loads(out)
    assert document["clean"] and document["summary"]["latency"]["pairs"] == 1
    assert document["notes"] == [
        f"transcript line 3 (byte {len(orjson.dumps(HEADER)) + 1 + len(PING)}): not an event ({why})"
    ]
    assert err == ""
