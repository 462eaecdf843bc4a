"""`mcptape redact` on the command line: its output, and one clear error for bad input."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mcptape.share.live import redacting_writer
from mcptape.transcript import Event, open_transcript
from mcptape.transcript.files import open_output
from mcptape.transcript.writer import new_header, write_transcript
from tests import inprocess

SECRET = "sk-abcdefghijklmnopqrstuvwx"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return inprocess.run(*args, text=True)  # as the process gives it (tests/inprocess.py)


def _transcript(path: Path) -> Path:
    events = [
        Event(0.1, "out", text="banner " + SECRET[:10]),
        Event(0.2, "out", text=SECRET[10:] + "\n"),
        Event(0.3, "err", text="no newline at the end " + SECRET),
        Event(0.4, "eof", fields={"of": "err"}),
        Event(0.5, "note", fields={"msg": "saw Authorization: Bearer Zq12345678"}),
    ]
    write_transcript(path, new_header(["srv", "--token", "tok-1234567"], "/tmp"), events)
    return path


def test_redact_writes_one_redacted_event_per_line(tmp_path: Path) -> None:
    """Fragments are joined before matching; the copy is mode 0600 and holds no secret."""
    src = _transcript(tmp_path / "in.jsonl")
    dst = tmp_path / "out.jsonl"
    result = _run("redact", str(src), "-o", str(dst))
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert "4 secret(s) replaced (3 distinct)" in result.stderr
    body = dst.read_bytes()
    for secret in (SECRET, "tok-1234567", "Zq12345678"):
        assert secret.encode() not in body
    events = list(open_transcript(dst).events())
    outs = [e.data for e in events if e.ch == "out"]
    assert len(outs) == 1 and outs[0].startswith(b"banner [redacted:") and outs[0].endswith(b"\n")
    errs = [e.data for e in events if e.ch == "err"]
    assert errs[0].startswith(b"no newline at the end [redacted:") and not errs[0].endswith(b"\n")
    assert (dst.stat().st_mode & 0o777) == 0o600


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--redact", "acct-("], "is not a valid regular expression"),
        (["--redact", "a*"], "matches the empty string"),
    ],
)
def test_bad_rules_fail_with_one_error_line(tmp_path: Path, extra: list[str], message: str) -> None:
    """A malformed regex: `Error: ...` on stderr, exit 2, no output file."""
    src = _transcript(tmp_path / "in.jsonl")
    result = _run("redact", str(src), "-o", str(tmp_path / "out.jsonl"), *extra)
    assert result.returncode == 2
    assert result.stderr.startswith("Error: ") and message in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out.jsonl").exists()


def test_unreadable_inputs_fail_with_one_error_line(tmp_path: Path) -> None:
    """Missing, unreadable (mode 0, a directory), non-transcript input, or the input as output: exit 2."""
    src = _transcript(tmp_path / "in.jsonl")
    locked = _transcript(tmp_path / "locked.jsonl")
    os.chmod(locked, 0)
    garbage = tmp_path / "garbage.txt"
    garbage.write_text("hello\n")
    cases = [
        ([str(tmp_path / "missing.jsonl")], "does not exist"),
        ([str(garbage)], "not an mcptape transcript"),
        ([str(src), "--overwrite"], "is the input transcript"),
        ([str(tmp_path)], "is a directory"),
    ]
    if os.geteuid() != 0:  # root reads a mode-0 file anyway
        cases.append(([str(locked)], "permission denied"))
    for args, message in cases:
        out = args[0] if "--overwrite" in args else str(tmp_path / "out.jsonl")
        result = _run("redact", args[0], "-o", out, *args[1:])
        assert result.returncode == 2, args
        assert result.stderr.startswith("Error: ") and message in result.stderr, result.stderr
        assert not (tmp_path / "out.jsonl").exists()
    assert src.read_bytes().count(SECRET[10:].encode()) == 2  # the input is untouched


def test_an_existing_output_is_refused_without_overwrite(tmp_path: Path) -> None:
    """The copy never silently replaces a file."""
    src = _transcript(tmp_path / "in.jsonl")
    dst = tmp_path / "out.jsonl"
    dst.write_text("keep me")
    result = _run("redact", str(src), "-o", str(dst))
    assert (
        result.returncode == 2 and "already exists (pass --overwrite, or choose another -o)" in result.stderr
    )
    assert dst.read_text() == "keep me"


def test_a_directory_as_output_is_refused_as_a_directory(tmp_path: Path) -> None:
    """-o DIR names the directory as the problem (not 'already exists ... give -o a directory')."""
    src = _transcript(tmp_path / "in.jsonl")
    for extra in ([], ["--overwrite"]):
        result = _run("redact", str(src), "-o", str(tmp_path), *extra)
        assert result.returncode == 2
        assert result.stderr == f"Error: cannot write {tmp_path}: it is a directory (name a file)\n"


def test_the_live_writer_redacts_a_secret_split_across_chunks(tmp_path: Path) -> None:
    """record --redact's writer: chunks are held until the newline, then one redacted line is written."""
    path = tmp_path / "live.jsonl"
    writer = redacting_writer(open_output(path), clock_start=0.0, command=["srv"], environ={})
    writer.header(new_header(["srv"], "/tmp"))
    writer.chunk(0.1, "out", b'{"text":"' + SECRET[:12].encode())
    writer.chunk(0.2, "out", SECRET[12:].encode() + b'"}\n{"id":')
    writer.chunk(0.3, "out", b"1}\npartial " + SECRET.encode())
    writer.fields(0.4, "eof", of="out")
    writer.close()
    body = path.read_bytes()
    assert SECRET.encode() not in body
    outs = [(e.t, e.data) for e in open_transcript(path).events() if e.ch == "out"]
    assert [t for t, _ in outs] == [0.2, 0.3, 0.3]  # a line is timed by its last fragment
    assert outs[1][1] == b'{"id":1}\n'
    assert outs[2][1].startswith(b"partial [redacted:")


def test_the_live_writer_writes_held_lines_when_the_session_is_idle(tmp_path: Path) -> None:
    """A complete line reaches the file a moment later even if nothing else happens (tail -f works)."""
    path = tmp_path / "idle.jsonl"
    writer = redacting_writer(open_output(path), clock_start=0.0, command=["srv"], environ={})
    writer.header(new_header(["srv"], "/tmp"))
    writer.chunk(0.1, "err", b"ready\n")
    deadline = time.monotonic() + 5
    while b"ready" not in path.read_bytes() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert b'"data":"ready\\n"' in path.read_bytes()
    writer.close()


@pytest.mark.parametrize(("flag", "imported"), [([], False), (["--redact"], True)])
def test_only_record_redact_loads_the_redaction_code(tmp_path: Path, flag: list[str], imported: bool) -> None:
    """The plain record path never imports mcptape.share (it must start and relay fast)."""
    argv = [
        sys.executable,
        "-X",
        "importtime",
        "-m",
        "mcptape",
        "record",
        "-q",
        "-o",
        str(tmp_path / "t.jsonl"),
    ]
    argv += [*flag, "--", sys.executable, "-c", "print('hi')"]
    result = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    assert result.returncode == 0 and result.stdout == "hi\n"
    assert ("mcptape.share.live" in result.stderr) is imported
