"""The probe against the hand-written test server: strict passes, each defect is caught by its case."""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path

import pytest

from mcptape.harness import Harness
from mcptape.probe.cases import BY_ID, Call
from mcptape.probe.driver import Driver, Status
from mcptape.probe.judge import judge
from mcptape.probe.ledger import OneCall
from mcptape.probe.observed import Verdict
from mcptape.probe.plan import Plan
from mcptape.probe.sessions import absolute_paths, run_case
from tests.probe.support import PB_SERVER, by_id, probe

pytestmark = pytest.mark.slow


def test_the_strict_server_passes_every_case(tmp_path: Path) -> None:
    """A server that rejects every bad frame without acting passes all cases, each with its transcript."""
    result, progress = probe(tmp_path, PB_SERVER)
    rows = by_id(result)
    assert {r.case.id: r.verdict for r in result.results} == {cid: Verdict.PASS for cid in rows}
    assert len(rows) == 18 and not result.failed and result.passed
    assert result.call is not None and result.call.tool == "deploy" and result.baseline == 1
    for row in rows.values():
        assert row.transcript is not None and row.transcript.is_file()
        assert row.executed == 0 and row.http == 0
    assert "rejected it (error -32700)" in rows["debug-line"].did
    assert "next request ran alone (1 calls)" in rows["concatenated"].did
    assert "closed the session (exit 0)" in rows["truncated-eof"].did
    assert "server/discover answered" in rows["start-discover"].did
    assert {"wrong-types:deploy", "unknown-arguments:deploy", "string-params:deploy"} <= set(rows)
    assert len(progress) == 20 and progress[0].startswith("mcptape probe: 15 cases")
    assert "18 cases in all" in progress[1]  # once the clean start's call is answered: how many in all


@pytest.mark.parametrize(
    ("defect", "case", "says"),
    [
        ("tolerant", "banner-after-request", "the bad frame caused 1 executor call(s)"),
        ("concatenated", "concatenated", "the bad frame caused 2 executor call(s)"),
        ("bool-id", "boolean-id", "the bad frame caused 1 executor call(s)"),
        ("string-params", "string-params", "the bad frame caused 1 executor call(s)"),
        ("banner", "start", "stdout is not protocol-only"),
        ("verbose-noise", "start-verbose-env", "stdout is not protocol-only: out line 1"),
        ("exit-noise", "start-warnings", "stdout is not protocol-only"),  # (start goes on: not its exit)
        ("inherit", "debug-line", "the valid request after the reject inherited the bad frame"),
    ],
)
def test_each_defect_is_caught_by_the_case_that_targets_it(
    tmp_path: Path, defect: str, case: str, says: str
) -> None:
    """A server with one known defect fails the case aimed at it, and the reason names what happened."""
    result, _ = probe(tmp_path, [*PB_SERVER, "--defect", defect], cases=[case, "truncated-eof"])
    row = by_id(result)[case]
    assert row.verdict is Verdict.FAIL and result.failed
    assert any(says in reason for reason in row.reasons), row.reasons


def test_stdout_noise_only_under_a_verbose_variable_fails_that_variation_alone(tmp_path: Path) -> None:
    """The verbose-noise server is clean on a plain start and fails only with DEBUG set."""
    result, _ = probe(
        tmp_path, [*PB_SERVER, "--defect", "verbose-noise"], cases=["start-verbose-env", "start-idle"]
    )
    verdicts = {r.case.id: r.verdict for r in result.results}
    assert verdicts == {"start": Verdict.PASS, "start-verbose-env": Verdict.FAIL, "start-idle": Verdict.PASS}


def test_noise_written_while_exiting_non_zero_is_caught(tmp_path: Path) -> None:
    """A server that prints a traceback on stdout and exits 1 fails, and its exit code is reported."""
    result, _ = probe(tmp_path, [*PB_SERVER, "--defect", "exit-noise"], cases=[])
    row = by_id(result)["start"]
    assert row.verdict is Verdict.FAIL and row.exit == "exit 1"
    assert any(f.rule == "non-protocol-output" and f.raw.startswith(b"Traceback") for f in row.findings)


def test_a_server_that_drops_malformed_lines_is_tolerant_not_failing(tmp_path: Path) -> None:
    """Silently dropping a bad frame (no answer, no action) is a warning; the probe still exits clean."""
    result, _ = probe(
        tmp_path, [*PB_SERVER, "--defect", "silent-drop"], cases=["debug-line", "boolean-id", "batch"]
    )
    rows = by_id(result)
    for case in ("debug-line", "boolean-id", "batch"):
        assert rows[case].verdict is Verdict.WARN
        assert rows[case].reasons == ["warning: tolerant: dropped the bad frame silently (no error response)"]
    assert not result.failed


def test_a_server_that_closes_the_session_on_reject_passes(tmp_path: Path) -> None:
    """Ending the session after a bad frame (nothing executed) is one of the two good outcomes."""
    result, _ = probe(tmp_path, [*PB_SERVER, "--close-on-reject"], cases=["debug-line", "string-params"])
    rows = by_id(result)
    for case in ("debug-line", "string-params"):
        assert rows[case].verdict is Verdict.PASS
        assert "closed the session (exit 0)" in rows[case].did


def test_http_attempts_of_a_bad_frame_are_failures(tmp_path: Path) -> None:
    """An action seen only by the HTTP sink (no tap line) is traced to the bad frame that caused it."""
    command = [*PB_SERVER, "--action", "http", "--defect", "tolerant"]
    result, _ = probe(tmp_path, command, cases=["banner-after-request", "debug-line"])
    rows = by_id(result)
    assert result.baseline == 1
    assert rows["banner-after-request"].verdict is Verdict.FAIL
    assert rows["banner-after-request"].http == 1 and rows["banner-after-request"].executed == 0
    assert rows["debug-line"].verdict is Verdict.PASS


def test_a_server_that_hangs_is_timed_out_and_the_probe_ends(tmp_path: Path) -> None:
    """A server that stops answering (and ignores SIGTERM) is reported as hung; the probe does not hang."""
    t0 = time.monotonic()
    result, _ = probe(tmp_path, [*PB_SERVER, "--defect", "hang"], cases=["batch", "debug-line"], timeout=1.0)
    elapsed = time.monotonic() - t0
    rows = by_id(result)
    assert rows["batch"].verdict is Verdict.FAIL
    assert any(r.startswith("hung: no answer to ping within 1.0s") for r in rows["batch"].reasons)
    assert rows["batch"].exit == "signal 9"
    assert rows["debug-line"].verdict is Verdict.PASS
    assert elapsed < 15


def test_a_server_that_never_starts_answering_blocks_the_other_cases(tmp_path: Path) -> None:
    """When the clean start hangs, the other cases are reported as not run instead of each timing out."""
    command = ["/bin/sh", "-c", "exec sleep 30"]
    result, _ = probe(tmp_path, command, cases=["debug-line"], timeout=0.5, start_timeout=0.5)
    rows = by_id(result)
    assert rows["start"].verdict is Verdict.FAIL and "no answer to initialize" in rows["start"].did
    assert rows["debug-line"].verdict is Verdict.FAIL and rows["debug-line"].did.startswith("not run")


def test_relative_paths_are_made_absolute_for_the_empty_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`python server.py` still finds its script when the case runs in an empty working directory."""
    (tmp_path / "server.py").write_text("")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "x.js").write_text("")
    (tmp_path / "tolerant").mkdir()
    monkeypatch.chdir(tmp_path)
    assert absolute_paths(["python", "server.py", "--defect", "tolerant", "sub/x.js", "-v"]) == [
        "python",
        str(tmp_path / "server.py"),
        "--defect",
        "tolerant",
        str(tmp_path / "sub" / "x.js"),
        "-v",
    ]


def test_a_server_that_stops_reading_stdin_cannot_block_the_probe(tmp_path: Path) -> None:
    """A write the server never takes is abandoned after the timeout, and the server is still ended."""
    t0 = time.monotonic()
    never_reads = [sys.executable, "-c", "import time; time.sleep(60)"]
    with Harness(never_reads, tmp_path / "deaf.jsonl", shutdown_timeout=0.5) as harness:
        driver = Driver(harness, timeout=1.0)
        assert driver.send(b"x" * (8 << 20) + b"\n") is Status.TIMEOUT
        assert driver.send(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n') is Status.TIMEOUT
    assert harness.status is not None and harness.status.signal == signal.SIGTERM
    assert time.monotonic() - t0 < 10


def test_a_session_that_ends_before_the_hard_input_is_not_a_pass(tmp_path: Path) -> None:
    """Closing the session is a good answer to a bad frame, not to the handshake that comes before it."""
    quits = [sys.executable, "-c", "import sys; sys.stdin.readline()"]
    plan = Plan(quits, tmp_path, timeout=2.0, start_timeout=5.0)
    observed = run_case(BY_ID["debug-line"], plan, Call("deploy", {"target": "x"}))
    assert observed is not None  # (None only for a case that waited for a clean start that failed)
    row = judge(observed, OneCall(1))
    assert row.verdict is Verdict.FAIL
    assert row.reasons == [
        "the hard input was never judged: the server ended the session before answering initialize"
    ]


def test_a_relative_symlink_is_made_absolute_not_resolved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`.venv/bin/python server.py` keeps the virtualenv's python in the empty working directory: the
    link is made absolute, not replaced by the interpreter it points to (which has no venv)."""
    (tmp_path / "real").write_text("")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python").symlink_to(tmp_path / "real")
    monkeypatch.chdir(tmp_path)
    assert absolute_paths(["bin/python"]) == [str(tmp_path / "bin" / "python")]
