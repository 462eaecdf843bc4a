"""Must show: bad input to `mcptape export` gives one `Error:` line, no traceback, the documented exit
code, and nothing written half: a file that is not a transcript, a refused or silent collector, an
option that does not fit the format, an output that exists. A torn last line is said once and what
came before it is exported."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.export.helpers import export, listener, tool_session, write_transcript
from tests.recorder.http.helpers import refused_port

pytestmark = pytest.mark.slow

ECHO = ROOT / "transcripts" / "sdk-echo-tool-handshake.jsonl"


def one_error(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), stderr
    assert "Traceback" not in stderr
    return lines[0]


def test_a_file_that_is_not_a_transcript_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    """Any JSON but a transcript header: exit 2, one line naming the file; -o is not created, even
    when a good transcript came first."""
    bogus = tmp_path / "other.json"
    bogus.write_text('{"hello": "world"}\n')
    out = tmp_path / "out.html"
    for name in ("html", "har", "otlp"):
        done = export(str(ECHO), str(bogus), "--format", name, "-o", str(out))
        assert done.returncode == 2
        assert "other.json" in one_error(done.stderr) and "not an mcptape transcript" in done.stderr
        assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["other.json"]


def test_a_refused_collector_is_one_line_and_exit_1(tmp_path: Path) -> None:
    """Nothing listens: three attempts (bounded), then one line naming the URL and the reason."""
    with refused_port() as port:
        started = time.monotonic()
        done = export(str(ECHO), "--format", "otlp", "--endpoint", f"http://127.0.0.1:{port}")
    assert done.returncode == 1
    error = one_error(done.stderr)
    assert f"http://127.0.0.1:{port}/v1/traces" in error and "refused" in error and "3 attempt(s)" in error
    assert time.monotonic() - started < 30


def test_a_collector_that_never_answers_times_out(tmp_path: Path) -> None:
    """A socket that accepts and says nothing: each attempt ends after --timeout, exit 1."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        done = export(
            str(ECHO), "--format", "otlp", "--endpoint", f"http://127.0.0.1:{port}", "--timeout", "0.5"
        )
    assert done.returncode == 1
    assert "no answer within 0.5 s (3 attempt(s))" in one_error(done.stderr) or "timed out" in done.stderr


def test_a_collector_that_refuses_the_body_is_not_retried(tmp_path: Path) -> None:
    """415 (a collector that takes no protobuf) is an answer, not an outage: one attempt, exit 1."""
    with listener(status=415) as collector:
        done = export(str(ECHO), "--format", "otlp", "--endpoint", collector.url)
    assert done.returncode == 1 and len(collector.requests) == 1
    assert "HTTP 415" in one_error(done.stderr)


def test_options_that_do_not_fit_are_usage_errors(tmp_path: Path) -> None:
    """--endpoint with a format that is not otlp, a URL that is not http(s), an unknown format."""
    cases = [
        (["--format", "html", "--endpoint", "http://127.0.0.1:1"], "--endpoint sends traces"),
        (["--format", "otlp", "--endpoint", "ftp://x"], "is not an http(s) URL"),
        (["--format", "pdf"], "'pdf' is not one of 'otlp', 'har', 'html'"),
    ]
    for args, said in cases:
        done = export(str(ECHO), *args)
        assert done.returncode == 2 and said in one_error(done.stderr), done.stderr


def test_an_existing_output_is_kept_without_overwrite(tmp_path: Path) -> None:
    """-o names a file that exists: refused before any work; --overwrite replaces it whole."""
    out = tmp_path / "report.html"
    out.write_text("mine")
    done = export(str(ECHO), "--format", "html", "-o", str(out))
    assert done.returncode == 2 and "already exists" in one_error(done.stderr)
    assert out.read_text() == "mine"
    done = export(str(ECHO), "--format", "html", "-o", str(out), "--overwrite")
    assert done.returncode == 0 and out.read_text().startswith("<!DOCTYPE html>")


def test_the_input_is_never_the_output(tmp_path: Path) -> None:
    """`-o` naming the transcript itself (even with --overwrite) is refused; the transcript stays."""
    transcript = write_transcript(tmp_path / "t.jsonl", tool_session())
    before = transcript.read_bytes()
    done = export(str(transcript), "--format", "har", "-o", str(transcript), "--overwrite")
    assert done.returncode == 2 and "is the input transcript" in one_error(done.stderr)
    assert transcript.read_bytes() == before


def test_a_torn_last_line_is_said_once_and_the_rest_exported(tmp_path: Path) -> None:
    """A recorder killed mid-write: the complete lines are exported; stderr says the last is cut."""
    transcript = write_transcript(tmp_path / "t.jsonl", tool_session())
    with transcript.open("ab") as fh:
        fh.write(b'{"t": 0.7, "ch": "out", "data": "{\\"jsonrpc\\"')
    done = export(str(transcript), "--format", "har")
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("truncated last line") == 1 and "Traceback" not in done.stderr
    assert done.stdout.count('"pageref"') == 4  # the four calls
