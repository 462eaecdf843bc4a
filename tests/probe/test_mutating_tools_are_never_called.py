"""The probe never names a tool that may change data without --allow-mutating: no frame of any
case family (start, hard inputs, per-tool inputs, base checks, MRTR, corpus) carries its name, so
even a server that tolerates the fault under test cannot run it; the report says it was not
tested; --allow-mutating calls it and says so on stderr before it does."""

from __future__ import annotations

import subprocess
from pathlib import Path

import orjson
import pytest

from mcptape.probe.cases import Call, corpus_case
from mcptape.probe.observed import Verdict
from mcptape.probe.report import render_table, summary_line, to_json
from mcptape.probe.safety import NOT_TESTED, Reach, UnsafeFrame
from tests.conftest import console_script
from tests.probe.support import PB_SERVER, by_id, probe

pytestmark = pytest.mark.slow


def sent_calls(path: Path) -> list[tuple[str, str | None]]:
    """The requests the probe sent in a transcript: each one's id and the tool it names, if any."""
    calls = []
    for line in path.read_bytes().splitlines()[1:]:
        record = orjson.loads(line)
        if record.get("ch") == "in" and "data" in record:
            try:
                message = orjson.loads(record["data"])
            except orjson.JSONDecodeError:
                continue
            params = message.get("params") if isinstance(message, dict) else None
            tool = params.get("name") if isinstance(params, dict) else None
            if isinstance(message, dict) and isinstance(message.get("id"), str):
                calls.append((message["id"], tool if isinstance(tool, str) else None))
    return calls


def names_anywhere(out: Path, tool: str) -> list[str]:
    """The transcripts of a run whose inbound bytes hold `tool` as a JSON string."""
    found = []
    for path in out.glob("*.jsonl"):
        for line in path.read_bytes().splitlines()[1:]:
            record = orjson.loads(line)
            if record.get("ch") == "in" and f'"{tool}'.encode() in record.get("data", "").encode():
                found.append(path.name)
                break
    return found


def test_a_tolerant_mutating_tool_is_never_named_and_is_reported_not_tested(tmp_path: Path) -> None:
    """notify (readOnlyHint: false) acts on any arguments: by default no frame names it, so it
    never acts, and the report says it was not tested; --allow-mutating sends it its hard
    inputs, and its tolerance is caught."""
    command = [*PB_SERVER, "--defect", "second-tool"]
    result, _ = probe(tmp_path / "a", command, cases=["tools", "banner-after-request"])
    assert not [r.case.id for r in result.results if r.case.id.endswith(":notify")]
    assert result.skipped_tools == [("notify", "readOnlyHint: false")]
    assert names_anywhere(tmp_path / "a", "notify") == []
    rows = {row["tool"]: row for row in result.reach}
    assert rows["notify"] == {
        "tool": "notify",
        "may_change_data": "readOnlyHint: false",
        "cases": [],
        "could_run": False,
        "not_tested": NOT_TESTED,
    }
    assert rows["deploy"]["could_run"] and "banner-after-request" in rows["deploy"]["cases"]
    assert f"notify (readOnlyHint: false): no frame named it: {NOT_TESTED}" in render_table(result)
    allowed, _ = probe(tmp_path / "b", command, cases=["tools"], allow_mutating=True)
    assert allowed.skipped_tools == []
    assert by_id(allowed)["unknown-arguments:notify"].verdict is Verdict.FAIL


def test_a_server_whose_only_tool_may_mutate_is_probed_on_tools_list(tmp_path: Path) -> None:
    """The only tool is destructive: every hard input rides on tools/list, no frame names deploy,
    no executor line is written, and the titles say tools/list."""
    result, _ = probe(
        tmp_path, [*PB_SERVER, "--mutating"], cases=["tools", "banner-after-request", "string-params"]
    )
    assert result.call == Call(None)
    assert result.skipped_tools == [("deploy", "destructiveHint: true")]
    verdicts = {r.case.id: r.verdict for r in result.results if r.case.id != "start"}
    assert verdicts == {"banner-after-request": Verdict.PASS, "string-params": Verdict.PASS}
    assert by_id(result)["string-params"].title == "tools/list with params as a (JSON-encoded) string"
    assert names_anywhere(tmp_path, "deploy") == []
    for transcript in tmp_path.glob("*.jsonl"):
        records = [orjson.loads(line) for line in transcript.read_bytes().splitlines()[1:]]
        assert not [r for r in records if r.get("ch") == "exec" and "data" in r], transcript
    assert "1 tool not tested (it may change data: no frame named them" in summary_line(result)


def test_a_recorded_call_of_a_mutating_tool_is_never_replayed(tmp_path: Path) -> None:
    """A successful destructive deploy recorded with --from is not the base of anything: no frame
    names deploy, and the JSON report lists it as not tested."""
    recorded = [Call("deploy", {"target": "production"})]
    result, _ = probe(
        tmp_path, [*PB_SERVER, "--mutating"], cases=["tools", "concatenated"], recorded=recorded
    )
    assert result.call == Call(None)
    assert names_anywhere(tmp_path, "deploy") == []
    assert to_json(result)["reach"] == [
        {
            "tool": "deploy",
            "may_change_data": "destructiveHint: true",
            "cases": [],
            "could_run": False,
            "not_tested": NOT_TESTED,
        }
    ]


def test_a_corpus_frame_naming_a_mutating_tool_is_not_sent(tmp_path: Path) -> None:
    """A --corpus frame that names deploy (destructive) is n/a and never written; one that names
    nothing is sent."""
    writes = corpus_case(
        "writes.json",
        b'{"jsonrpc":"2.0","id":"MCPTAPE_MARKER","method":"tools/call",'
        b'"params":{"name":"deploy","arguments":{"target":"x"}}} trailing\n',
    )
    noise = corpus_case("noise.txt", b"just noise MCPTAPE_MARKER\n")
    from mcptape.probe.cases import BY_ID
    from mcptape.probe.plan import Plan
    from mcptape.probe.runner import run_probe

    plan = Plan(
        [*PB_SERVER, "--mutating"],
        tmp_path,
        timeout=3.0,
        cases=[BY_ID["start"], writes, noise],
        every_tool=False,
    )
    result = run_probe(plan, progress=lambda line: None)
    rows = by_id(result)
    assert rows["corpus-writes.json"].verdict is Verdict.NA
    assert (
        rows["corpus-writes.json"].did == f"not sent: it names deploy (destructiveHint: true); {NOT_TESTED}"
    )
    assert not (tmp_path / "corpus-writes.json.jsonl").exists()
    assert rows["corpus-noise.txt"].verdict is Verdict.PASS and (tmp_path / "corpus-noise.txt.jsonl").exists()
    assert names_anywhere(tmp_path, "deploy") == []


def test_the_guard_refuses_a_frame_naming_a_mutating_tool_in_any_encoding() -> None:
    """The last check before a frame is written refuses the name as a JSON string, plain or encoded
    once more (params as a string), and lets a path that merely contains it through."""
    reach = Reach(allow_mutating=False)
    reach.learn(
        [
            {"name": "write_file", "annotations": {"destructiveHint": True}},
            {"name": "read_file", "annotations": {"readOnlyHint": True}},
        ]
    )
    plain = Call("write_file", {}).line("x")
    encoded = orjson.dumps({"params": orjson.dumps({"name": "write_file"}).decode()})
    for frame in (plain, encoded):
        with pytest.raises(UnsafeFrame):
            reach.sent("case", frame)
    reach.sent("read", Call("read_file", {"path": "/tmp/write_file.txt"}).line("y"))
    assert reach.by_case == {"read": ["read_file"]}
    Reach(allow_mutating=True).sent("case", plain)


def test_a_named_mutating_tool_needs_allow_mutating(tmp_path: Path) -> None:
    """--tool deploy (destructive) without --allow-mutating: one Error line, exit 2, nothing called."""
    done = subprocess.run(
        [
            console_script(),
            "probe",
            "--timeout",
            "3",
            "-o",
            str(tmp_path),
            "--tool",
            "deploy",
            "--",
            *PB_SERVER,
            "--mutating",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("Error:")]
    assert errors == [
        "Error: --tool deploy: it may change data (destructiveHint: true), and the probe would call it "
        "(add --allow-mutating and point the server at a scratch copy of its data)"
    ]
    assert "Traceback" not in done.stderr
    assert names_anywhere(tmp_path, "deploy") == []


def test_allow_mutating_says_which_tools_it_will_call_before_calling_them(tmp_path: Path) -> None:
    """With --allow-mutating, stderr names the tools that may change data before the first call,
    and the destructive one becomes the valid call."""
    options = ["--timeout", "3", "--case", "start", "--json", "--allow-mutating", "-o", str(tmp_path)]
    done = subprocess.run(
        [console_script(), "probe", *options, "--", *PB_SERVER, "--mutating"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    said = lines.index(
        "mcptape probe: --allow-mutating: these tools may change data and will be called for real: "
        "deploy (destructiveHint: true)"
    )
    assert said < next(i for i, line in enumerate(lines) if "start" in line and "pass" in line)
    assert orjson.loads(done.stdout)["valid_request"] == {
        "tool": "deploy",
        "arguments": {"target": "mcptape-probe"},
    }


def test_a_tool_listed_twice_is_forbidden_if_either_listing_may_change_data() -> None:
    """A server that lists a name as read-only and again as destructive gets the stricter reading."""
    reach = Reach(allow_mutating=False)
    reach.learn([{"name": "sync", "annotations": {"readOnlyHint": True}}])
    reach.learn([{"name": "sync", "annotations": {"destructiveHint": True}}])
    assert reach.forbidden == {"sync": "destructiveHint: true"}
    with pytest.raises(UnsafeFrame):
        reach.sent("case", Call("sync", {}).line(1))
