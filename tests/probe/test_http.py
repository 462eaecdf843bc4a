"""`mcptape probe --url URL -- CMD`: the hard inputs of Streamable HTTP against the official SDK's
server (stateful with SSE answers, stateless with JSON answers: it must pass) and a deliberately
tolerant one (each MUST it breaks fails, each dubious tolerance warns); zero actions counted from
the executor tap; the same report, JUnit, SARIF, baseline and tools.lock.json as stdio.

Each server is probed once per module (one process, one transcript); the tests read that run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import orjson
import pytest

from mcptape.probe.http.cases import HTTP_CASES
from mcptape.probe.http.gate import chosen_cases, run_http_probe
from mcptape.probe.judge import CaseResult
from mcptape.probe.observed import Verdict
from mcptape.probe.plan import Plan
from mcptape.probe.runner import ProbeResult
from tests.conftest import PYTHON, SERVERS, console_script
from tests.recorder.http.helpers import free_port

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
SDK_HTTP = [PYTHON, str(HERE / "sdk_http_server.py")]
TOLERANT = [PYTHON, str(SERVERS / "pb_http_server.py")]
# the same server, each tap line (naming its request) written 0.3 s after the answer
LATE_TOLERANT = [PYTHON, str(HERE / "late_tap.py"), "0.3", str(SERVERS / "pb_http_server.py")]
SESSION_CASES = ("http-no-session", "http-foreign-session", "http-after-delete")


def _probe(out: Path, command: list[str], port: int, cases: tuple[str, ...] = ()) -> ProbeResult:
    plan = Plan([*command], out, timeout=10, start_timeout=60)
    chosen = chosen_cases(cases)
    return run_http_probe(plan, f"http://127.0.0.1:{port}/mcp", chosen, progress=lambda _: None)


def _rows(result: ProbeResult) -> dict[str, CaseResult]:
    return {r.case.id: r for r in result.results}


@pytest.fixture(scope="module")
def sdk_stateful(tmp_path_factory: pytest.TempPathFactory) -> ProbeResult:
    """The SDK's MCPServer, stateful, answering on SSE streams."""
    port = free_port()
    return _probe(tmp_path_factory.mktemp("sdk-sse"), [*SDK_HTTP, str(port)], port)


@pytest.fixture(scope="module")
def sdk_stateless(tmp_path_factory: pytest.TempPathFactory) -> ProbeResult:
    """The SDK's MCPServer, stateless, answering with JSON bodies."""
    port = free_port()
    return _probe(tmp_path_factory.mktemp("sdk-json"), [*SDK_HTTP, str(port), "--json", "--stateless"], port)


@pytest.fixture(scope="module")
def tolerant(tmp_path_factory: pytest.TempPathFactory) -> ProbeResult:
    port = free_port()
    return _probe(tmp_path_factory.mktemp("tolerant"), [*TOLERANT, str(port)], port)


def test_the_stateful_sdk_server_passes_every_http_case(sdk_stateful: ProbeResult) -> None:
    """A correct server passes: each bad request refused with the status the specification names,
    the session cases included, no action but the valid calls', GET opens an event stream."""
    rows = _rows(sdk_stateful)
    assert list(rows) == ["start", *(c.case.id for c in HTTP_CASES)]
    assert sdk_stateful.passed and not sdk_stateful.failed, [(r.case.id, r.reasons) for r in rows.values()]
    assert sdk_stateful.baseline == 1 and sdk_stateful.call is not None and sdk_stateful.call.tool == "lookup"
    assert "session minted" in rows["start"].did
    assert "refused it (HTTP 400)" in rows["http-not-json"].did
    assert "refused it (HTTP 404)" in rows["http-after-delete"].did
    assert "an event stream" in rows["http-get"].did
    for case in ("http-not-json", "http-not-utf8", "http-json-array", "http-bad-protocol-version"):
        assert rows[case].verdict is Verdict.PASS and rows[case].executed == 0, (case, rows[case].did)
        assert "next request ran alone (1 calls)" in rows[case].did


def test_the_stateless_sdk_server_passes_and_its_session_cases_are_not_applicable(
    sdk_stateless: ProbeResult,
) -> None:
    """Without a session id there is no session to leave out, forge or end: n/a, and still no failure."""
    rows = _rows(sdk_stateless)
    assert sdk_stateless.passed, [(r.case.id, r.reasons) for r in rows.values()]
    assert "session none (stateless)" in rows["start"].did
    assert {case: rows[case].verdict for case in SESSION_CASES} == dict.fromkeys(SESSION_CASES, Verdict.NA)
    assert rows["http-not-json"].verdict is Verdict.PASS and rows["http-not-json"].executed == 0


def test_a_tolerant_server_fails_each_must_and_warns_on_each_dubious_tolerance(tolerant: ProbeResult) -> None:
    """The tolerant server runs what it should refuse: FAIL where a MUST is broken (with the action
    the tap saw), a warning where no MUST forbids serving it, a pass where the spec says serve it."""
    verdicts = {r.case.id: r.verdict for r in tolerant.results}
    fail, warn = Verdict.FAIL, Verdict.WARN
    assert verdicts == {
        "start": Verdict.PASS,
        "http-not-json": fail,
        "http-not-utf8": fail,
        "http-json-array": fail,
        "http-text-plain": warn,
        "http-no-content-type": warn,
        "http-no-session": warn,
        "http-foreign-session": warn,
        "http-no-protocol-version": Verdict.PASS,
        "http-bad-protocol-version": fail,
        "http-oversized": warn,
        "http-get": fail,
        "http-after-delete": fail,
    }
    rows = _rows(tolerant)
    assert rows["http-not-json"].executed == 1 and rows["http-json-array"].executed == 1
    assert any("MUST return an HTTP error status code" in r for r in rows["http-not-json"].reasons)
    assert any(
        "MUST respond to requests containing that session ID" in r for r in rows["http-after-delete"].reasons
    )
    # a lenient case that ran the valid request inside it did what a valid call does: a warning, no failure
    assert "ran it as the valid call it is (1 calls)" in rows["http-text-plain"].did


def test_a_read_only_tool_that_writes_fails_over_http_too(tmp_path: Path) -> None:
    """The tolerant server's lookup says readOnlyHint but its tap says kind update: the clean start
    and the case that called it fail as declared read-only but wrote (the check core's rule)."""
    port = free_port()
    result = _probe(tmp_path, [*TOLERANT, str(port), "--writes"], port, ("http-no-protocol-version",))
    rows = _rows(result)
    for case in ("start", "http-no-protocol-version"):
        assert rows[case].verdict is Verdict.FAIL, (case, rows[case].reasons)
        assert any(r.startswith("declared read-only but wrote: ") for r in rows[case].reasons)


def test_a_tap_line_recorded_after_the_next_request_is_still_its_requests(
    tolerant: ProbeResult, tmp_path: Path
) -> None:
    """Each tap line comes 0.3 s after its answer, after the next request was sent: named by its
    request id, it is that request's, so the verdicts, reasons and counts are those of the same
    server acting at once (the clean start's valid call makes 1 call, every case the same)."""
    port = free_port()
    late = _probe(tmp_path, [*LATE_TOLERANT, str(port)], port)

    def seen(result: ProbeResult) -> list[tuple[str, Verdict, int, int, str]]:
        return [(r.case.id, r.verdict, r.executed, r.http, r.did) for r in result.results]

    assert seen(late) == seen(tolerant)
    assert late.baseline == tolerant.baseline == 1
    assert sum(1 for r in late.results if "next request ran alone (1 calls)" in r.did) >= 5


def test_a_valid_calls_tap_line_recorded_late_is_its_own_not_the_next_requests(tmp_path: Path) -> None:
    """The SDK server's tap lines name no request; the clean start's comes at once (one valid call
    makes one line), every later one 0.3 s after its answer, in the next hard input's window: each
    valid call owes one line (the ledger), so every case passes as without the delay."""
    port = free_port()
    late = [PYTHON, str(HERE / "late_tap.py"), "0.3", "--anonymous", "--on-time", "1", *SDK_HTTP[1:]]
    result = _probe(tmp_path, [*late, str(port)], port)
    rows = _rows(result)
    assert result.baseline == 1 and rows["start"].baseline_unnamed == 1
    assert [(r.case.id, r.reasons) for r in result.results if r.verdict is Verdict.FAIL] == []
    assert all(r.executed == 0 and r.http == 0 for r in result.results)
    assert sum(1 for r in result.results if "next request ran alone" in r.did) >= 5


def test_a_late_tap_line_of_a_read_only_tool_that_writes_fails_the_request_it_names(tmp_path: Path) -> None:
    """With --writes and the tap 0.3 s late, the clean start and the case whose request the line
    names fail as declared read-only but wrote: a late line is not lost past its window."""
    port = free_port()
    cases = ("http-no-protocol-version", "http-text-plain")
    rows = _rows(_probe(tmp_path, [*LATE_TOLERANT, str(port), "--writes"], port, cases))
    for case in ("start", *cases):
        assert rows[case].verdict is Verdict.FAIL, (case, rows[case].reasons)
        assert any(r.startswith("declared read-only but wrote: ") for r in rows[case].reasons), case
    assert rows["start"].baseline == 1


def test_the_http_transcript_is_one_check_and_tools_lock_read(tolerant: ProbeResult) -> None:
    """DIR/http.jsonl holds the session; DIR/tools.lock.json is its surface, named in the result."""
    out = tolerant.plan.out_dir
    assert (out / "http.jsonl").is_file()
    assert tolerant.surface_lock is not None and tolerant.surface_lock.path == out / "tools.lock.json"
    lock = orjson.loads((out / "tools.lock.json").read_bytes())
    assert [t["name"] for t in lock["tools"]] == ["lookup"]


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([console_script(), "probe", *args], cwd=cwd, capture_output=True, timeout=120)


def test_the_command_line_gives_json_junit_sarif_and_a_baseline_that_accepts(tmp_path: Path) -> None:
    """`probe --url URL -- CMD`: exit 1 on the tolerant server with JUnit failures and SARIF results;
    --write-baseline then --baseline accepts those deviations: exit 0, JUnit skipped, SARIF suppressed."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    server = [*TOLERANT, str(port)]
    first = _cli(
        tmp_path, "--url", url, "-o", "out", "--json", "--write-baseline", "base.json", "--", *server
    )
    assert first.returncode == 1, first.stderr
    report = orjson.loads(first.stdout)
    assert report["failed"] and report["tools_lock"]["path"] == str(tmp_path / "out" / "tools.lock.json")
    accepted = orjson.loads((tmp_path / "base.json").read_bytes())["accepted"]
    assert "http-not-json" in {e["case"] for e in accepted}
    reports = ["--junit", "p.xml", "--sarif", "p.sarif"]
    second = _cli(tmp_path, "--url", url, "-o", "out", "--baseline", "base.json", *reports, "--", *server)
    assert second.returncode == 0, second.stdout + second.stderr
    suite = ET.parse(tmp_path / "p.xml").getroot()
    assert suite.get("failures") == "0"
    skipped = [c.find("skipped") for c in suite.iter("testcase") if c.get("name") == "http-not-json"]
    assert skipped and skipped[0] is not None and (skipped[0].get("message") or "").startswith("accepted")
    sarif = orjson.loads((tmp_path / "p.sarif").read_bytes())
    results = sarif["runs"][0]["results"]
    assert results and all(
        r.get("suppressions") for r in results if "http-not-json" in orjson.dumps(r).decode()
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--url", "http://127.0.0.1:{port}/mcp"], b"nothing accepts connections at http://127.0.0.1:"),
        (["--url", "http://example.com/mcp", "--", "true"], b"is not on this machine (loopback)"),
        (["--url", "http://127.0.0.1:{port}/mcp", "--", sys.executable, "-c", "import sys; sys.exit(3)"],
         b"the server exited (code 3) before accepting connections"),
    ],
)  # fmt: skip
def test_a_url_that_does_not_answer_or_a_server_that_dies_is_one_error_line(
    tmp_path: Path, args: list[str], says: bytes
) -> None:
    """Nothing listening, a host that is not loopback, a server that dies at start: `Error:` on one
    line, exit 2, no traceback."""
    port = free_port()
    done = _cli(tmp_path, "-o", "out", *(a.replace("{port}", str(port)) for a in args))
    assert done.returncode == 2, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith(b"Error: ")]
    assert len(errors) == 1 and says in errors[0], done.stderr
    assert b"Traceback" not in done.stderr
