"""An incomplete capture is visible: a transcript without its `exit` record, or whose last line is
torn, is a warning (`incomplete-capture`, party `capture`: the recording itself), so a CI gate
tells a cut recording from a clean one."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from click.testing import CliRunner

from mcptape.check.analyze import Analyzer, analyze_file
from mcptape.check.model import CAPTURE, Severity
from mcptape.check.reorder import ordered
from mcptape.check.report import render_text
from mcptape.commands.check import check_command
from mcptape.diff.sessions import diff_events
from mcptape.transcript import Event, open_transcript
from mcptape.transcript.writer import new_header, write_transcript
from tests.check.helpers import events, request, result, run
from tests.conftest import PYTHON, console_script

PING, PONG = request(1, "ping"), result(1)


def _recorded(path: Path, channel: str) -> bytes:
    """The bytes of `channel` in a transcript being written (a torn last line is left out)."""
    return b"".join(e.data for e in open_transcript(path).events() if e.ch == channel)


def _write(path: Path, evs: list[Event]) -> Path:
    write_transcript(path, new_header(["python", "server.py"], "/srv"), evs)
    return path


def test_a_session_with_its_exit_record_is_complete() -> None:
    """The recorder saw the server end: nothing to say about the capture."""
    assert run(("in", PING), ("out", PONG), ("exit", {"code": 0})).findings == []


def test_a_session_without_an_exit_record_is_an_incomplete_capture() -> None:
    """No exit record: a warning of party capture at the last event, saying why."""
    analysis = run(("in", PING), ("out", PONG), complete=False)
    [found] = analysis.findings
    assert (found.rule, found.severity, found.party) == ("incomplete-capture", Severity.WARNING, CAPTURE)
    assert (found.channel, found.event, found.line) == ("transcript", 1, 3)
    assert "no exit record" in found.message


def test_a_torn_last_line_is_an_incomplete_capture_at_that_line(tmp_path: Path) -> None:
    """A recorder killed mid-write: its exit record came before, but the last line is cut."""
    path = _write(tmp_path / "t.jsonl", events(("in", PING), ("out", PONG), ("exit", {"code": 0})))
    size = path.stat().st_size
    with open(path, "ab") as fh:
        fh.write(b'{"t":9.0,"ch":"out","da')
    _, analysis = analyze_file(str(path))
    [found] = analysis.findings
    assert found.rule == "incomplete-capture" and "transcript line 5" in found.message
    assert (found.line, found.offset, found.event) == (5, size, 3)
    assert "no exit record" not in found.message


def test_the_capture_finding_is_kept_past_the_bound_on_findings() -> None:
    """With every slot taken by other findings, the cut is still reported."""
    analyzer = Analyzer(max_findings=3)
    for i in range(10):
        analyzer.push(i * 0.001, "out", "noise\n", i)
    analysis = analyzer.finish()
    assert analysis.findings[-1].rule == "incomplete-capture" and analysis.findings_truncated == 7


def test_check_exits_1_on_a_cut_recording_whatever_the_party(tmp_path: Path) -> None:
    """`--party server` (a CI gate for a server) still fails a recording it could not read whole;
    `--fail-on error` lets a warning pass."""
    path = _write(tmp_path / "cut.jsonl", events(("in", PING), ("out", PONG)))
    for args in ([], ["--party", "server"], ["--party", "client"]):
        res = CliRunner().invoke(check_command, [str(path), *args])
        assert res.exit_code == 1, (args, res.output)
        assert "capture: the recording itself (1)" in res.output
        assert "warning incomplete-capture   transcript line 3 [capture]" in res.output
    assert CliRunner().invoke(check_command, [str(path), "--fail-on", "error"]).exit_code == 0


def test_the_diff_does_not_count_the_capture_as_a_difference(tmp_path: Path) -> None:
    """Replaying a recording cut before its exit compares the traffic; the exit has its own line."""
    cut = events(("in", PING), ("out", PONG))
    whole = events(("in", PING), ("out", PONG), ("exit", {"code": 0}))
    diff = diff_events(cut, whole)
    assert diff.findings_added == [] and diff.findings_removed == []


def test_a_recorder_killed_mid_session_leaves_a_capture_check_warns_about(tmp_path: Path) -> None:
    """A real `mcptape record` killed with SIGKILL: no exit record; its clean twin (stdin closed,
    the server exits) is complete."""
    server = [PYTHON, "-c", "import sys\nfor line in sys.stdin: print(line.strip(), flush=True)"]
    whole, cut = tmp_path / "whole.jsonl", tmp_path / "cut.jsonl"
    for path in (whole, cut):
        proc = subprocess.Popen(
            [console_script(), "record", "-q", "-o", str(path), "--", *server],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        proc.stdin.flush()
        assert proc.stdout.readline().startswith(b'{"jsonrpc"')
        if path == cut:
            # the recorder writes what it forwarded just after: wait for the whole answer line,
            # which can come in two writes (print() under PYTHONUNBUFFERED writes the text, then
            # the newline): killed between them, the recording ends mid-line (incomplete-frame)
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and not _recorded(path, "out").endswith(b"\n"):
                time.sleep(0.02)
            os.kill(proc.pid, signal.SIGKILL)
        else:
            proc.stdin.close()
        proc.wait(timeout=20)
        proc.stdout.close()
        if proc.stdin and not proc.stdin.closed:
            proc.stdin.close()
    time.sleep(0.2)  # the orphaned server of the killed recorder sees EOF and ends
    _, complete = analyze_file(str(whole))
    _, incomplete = analyze_file(str(cut))
    assert [f.rule for f in complete.findings] == []
    assert [f.rule for f in incomplete.findings] == ["incomplete-capture"]
    assert "Verdict: 1 finding (0 errors)" in render_text(incomplete)
    # what the killed recorder forwarded both ways is there, in time order (the file may hold the
    # answer's record first: two pumps write, and every reader orders by time)
    assert [e.ch for e in ordered(open_transcript(cut).events())][:2] == ["in", "out"]
