"""Hard inputs go to every tool; a refused valid call makes the probe inconclusive, never green."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mcptape.errors import UsageError
from mcptape.probe.candidates import candidate_calls
from mcptape.probe.cases import Call, corpus_case
from mcptape.probe.observed import Verdict
from mcptape.probe.recorded import recorded_calls
from tests.conftest import ROOT, console_script
from tests.probe.support import PB_SERVER, by_id, probe

pytestmark = pytest.mark.slow


def test_a_second_tool_that_acts_on_unknown_arguments_fails(tmp_path: Path) -> None:
    """The first tool is strict; the second (it may change data: probed with --allow-mutating) accepts
    an argument its schema forbids and acts on it."""
    command = [*PB_SERVER, "--defect", "second-tool"]
    result, _ = probe(tmp_path, command, cases=["tools"], allow_mutating=True)
    rows = by_id(result)
    assert rows["unknown-arguments:notify"].verdict is Verdict.FAIL and result.failed
    assert any(
        "acted on an argument it does not declare" in r for r in rows["unknown-arguments:notify"].reasons
    )
    for case in ("wrong-types:deploy", "unknown-arguments:deploy", "string-params:deploy"):
        assert rows[case].verdict is Verdict.PASS, (case, rows[case].reasons)
    assert rows["unknown-arguments:deploy"].title == (
        "tools/call deploy with an argument it does not declare (its schema forbids it)"
    )


def test_acting_on_an_undeclared_argument_fails_even_where_the_schema_allows_it(tmp_path: Path) -> None:
    """Extra arguments are allowed by an open schema, but the value must not reach the executor."""
    command = [*PB_SERVER, "--defect", "second-tool-open"]
    result, _ = probe(tmp_path, command, cases=["tools"], allow_mutating=True)
    row = by_id(result)["unknown-arguments:notify"]
    assert row.case.title.endswith("(its schema allows it)")
    assert row.verdict is Verdict.FAIL and row.executed == 1


def test_a_second_tool_tolerant_of_wrong_types_fails_with_allow_mutating(tmp_path: Path) -> None:
    """notify may change data: with --allow-mutating it gets wrong-types, and acting on it fails."""
    command = [*PB_SERVER, "--defect", "second-tool-open"]
    result, _ = probe(tmp_path, command, cases=["tools"], allow_mutating=True)
    rows = by_id(result)
    assert rows["wrong-types:notify"].verdict is Verdict.FAIL and rows["wrong-types:notify"].executed == 1
    assert rows["string-params:notify"].verdict is Verdict.PASS
    assert result.failed


def test_request_level_refusals_share_one_process(tmp_path: Path) -> None:
    """A server that answers each hard input and goes on serves all of them in one process."""
    result, _ = probe(tmp_path, [*PB_SERVER, "--defect", "second-tool"], cases=["tools"])
    assert {r.transcript.name for r in result.results if r.case.group == "tool" and r.transcript} == {
        "tools-1.jsonl"
    }


def test_a_server_that_closes_on_reject_gets_a_new_process_for_the_rest(tmp_path: Path) -> None:
    """Closing the session on a malformed frame is the seed's policy: the next frames get a new process."""
    result, _ = probe(tmp_path, [*PB_SERVER, "--close-on-reject"], cases=["tools"])
    rows = [r for r in result.results if r.case.group == "tool"]
    assert all(r.verdict is Verdict.PASS for r in rows), [(r.case.id, r.reasons) for r in rows]
    assert len({r.transcript for r in rows}) >= 2
    assert by_id(result)["string-params:deploy"].did == "refused it (error -32602); exit 0"


def test_a_refused_valid_call_makes_the_hard_inputs_inconclusive(tmp_path: Path) -> None:
    """When the valid request itself is refused, the cases built from it prove nothing: not a pass."""
    result, _ = probe(
        tmp_path,
        PB_SERVER,
        cases=["banner-after-request", "debug-line"],
        tool="deploy",
        arguments={"target": 5},
    )
    rows = by_id(result)
    assert rows["banner-after-request"].verdict is Verdict.INCONCLUSIVE
    assert "--args JSON, or --from TRANSCRIPT" in rows["banner-after-request"].reasons[0]
    assert rows["debug-line"].verdict is Verdict.PASS  # its bad frame does not come from the call
    assert not result.failed and not result.passed


def test_probe_of_mcp_server_time_without_args_does_not_exit_0(tmp_path: Path) -> None:
    """Derived arguments ("mcptape-probe" as a timezone) are refused: the run says so and exits 1."""
    server = str(Path(sys.executable).parent / "mcp-server-time")
    done = subprocess.run(
        [console_script(), "probe", "-o", str(tmp_path), "--case", "banner-after-request", "--", server],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stdout
    assert "INCONCLUSIVE: " in done.stdout and "--from TRANSCRIPT" in done.stdout
    assert "refused before it: get_current_time" in done.stdout


def test_the_valid_call_is_a_read_only_tool_or_a_named_one() -> None:
    """Only read-only tools are tried (all of them, read-only first, with --allow-mutating); a call
    recorded with --from wins over derived arguments; --tool names any tool, one that may change
    data only with --allow-mutating."""
    tools = [
        {"name": "create", "inputSchema": {"type": "object"}},
        {"name": "danger", "annotations": {"destructiveHint": True}},
        {"name": "look", "annotations": {"readOnlyHint": True}, "inputSchema": {"type": "object"}},
        {"name": "tidy", "annotations": {"destructiveHint": False}},
    ]
    assert [c.tool for c in candidate_calls(None, None, [], tools)] == ["look"]
    assert [c.tool for c in candidate_calls(None, None, [], tools, True)] == ["look", "tidy", "create"]
    recorded = [Call("create", {"a": 1}), Call("look", {"q": "x"})]
    assert candidate_calls(None, None, recorded, tools) == [Call("look", {"q": "x"})]
    assert candidate_calls(None, None, recorded[:1], tools) == [Call("look", {})]
    assert candidate_calls("create", None, recorded, tools, True) == [Call("create", {"a": 1})]
    with pytest.raises(UsageError, match="--tool create: it may change data"):
        candidate_calls("create", None, recorded, tools)
    assert candidate_calls(None, {"z": 1}, [], tools) == [Call("look", {"z": 1})]
    assert candidate_calls(None, None, [], tools[:2]) == [Call(None)]


def test_calls_are_taken_from_a_recorded_session() -> None:
    """--from keeps the tools/call requests that the server answered with a success."""
    calls = recorded_calls(ROOT / "transcripts" / "mcp-server-time-handshake.jsonl")
    assert calls[0] == Call("get_current_time", {"timezone": "Europe/Paris"})
    assert [c.tool for c in calls] == ["get_current_time", "convert_time"]


def test_a_corpus_frame_is_sent_as_it_is(tmp_path: Path) -> None:
    """A corpus file is one frame: its marker placeholder filled, EOF after a frame without newline."""
    case = corpus_case("bad id.json", b'{"jsonrpc":"2.0","id":"MCPTAPE_MARKER","method":1}\n')
    assert case.id == "corpus-bad_id.json" and not case.eof and case.build is not None
    assert case.build(Call(None), "m-1", 0).data == b'{"jsonrpc":"2.0","id":"m-1","method":1}\n'
    assert corpus_case("cut", b'{"jsonrpc":').eof


def test_corpus_frames_are_probed_as_cases(tmp_path: Path) -> None:
    """`--corpus DIR` adds one case per file; a strict server rejects each and passes."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "null-id.json").write_bytes(b'{"jsonrpc":"2.0","id":null,"method":"tools/call"}\n')
    (corpus / "noise.txt").write_bytes(b"MCPTAPE_MARKER hello\n")
    done = subprocess.run(
        [
            console_script(),
            "probe",
            "-o",
            str(tmp_path / "out"),
            "--corpus",
            str(corpus),
            "--timeout",
            "3",
            "--case",
            "corpus-noise.txt",
            "--case",
            "corpus-null-id.json",
            "--",
            *PB_SERVER,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "corpus-noise.txt" in done.stdout and "corpus-null-id.json" in done.stdout
    assert (tmp_path / "out" / "corpus-noise.txt.jsonl").is_file()
