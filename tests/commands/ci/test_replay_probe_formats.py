"""`replay` and `probe` write the same CI formats through the same writer: a replay's differences and
a probe's failed cases as SARIF results at their transcript lines, JUnit test cases, annotations."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from tests.commands.ci.sarif import assert_valid_sarif
from tests.commands.tapes import assert_clean_run, run
from tests.conftest import SERVERS, console_script
from tests.probe.support import PB_SERVER

pytestmark = pytest.mark.slow

# The demo server's code on tests/servers/lite.py (the formats are the subject, not the SDK server)
DEMO_SERVER = [sys.executable, str(SERVERS / "fast" / "demo_server.py")]
CHANGED = [*DEMO_SERVER, "--changed"]


def test_a_replay_that_differs_is_a_failed_case_and_a_result_at_the_recorded_line(
    tapes: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The demo's clean session against a build whose answer changed: the changed response is a
    `replay/changed` error at the line of the recorded answer, the JUnit case failed, the annotation
    points there too."""
    shutil.copy(tapes / "demo-clean.jsonl", tmp_path / "clean.jsonl")
    monkeypatch.chdir(tmp_path)
    result = run(
        "replay",
        "clean.jsonl",
        "--junit",
        "r.xml",
        "--sarif",
        "r.sarif",
        "--format",
        "github",
        "--",
        *CHANGED,
    )
    assert_clean_run(result, codes=[1])
    log = json.loads((tmp_path / "r.sarif").read_text())
    assert_valid_sarif(log)
    changed = [r for r in log["runs"][0]["results"] if r["ruleId"] == "replay/changed"]
    assert len(changed) == 1 and changed[0]["level"] == "error"
    location = changed[0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "clean.jsonl"
    recorded = (tmp_path / "clean.jsonl").read_text().splitlines()[location["region"]["startLine"] - 1]
    record = json.loads(recorded)
    assert record["ch"] == "out" and "deployed" in record["data"]
    assert '-> "preview of feature-x is live"' in changed[0]["message"]["text"]
    root = ET.parse(tmp_path / "r.xml").getroot()
    [case] = root.iter("testcase")
    failure = case.find("failure")
    assert failure is not None and (failure.get("message") or "").startswith("different: 1 message")
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"::error file=clean.jsonl,line={location['region']['startLine']},title=")
    assert lines[-1] == "mcptape replay: 0 same, 1 different, 0 unreadable"


def test_a_replay_folder_gives_a_suite_per_transcript_and_learn_refuses_the_formats(
    tapes: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder with a transcript and a file that is not one: a passing case for the same session
    (replayed against its own build), an error case for the unreadable file; --learn does not take
    --junit."""
    folder = tmp_path / "tapes"
    folder.mkdir()
    shutil.copy(tapes / "demo-clean.jsonl", folder / "clean.jsonl")
    (folder / "broken.jsonl").write_text("{}\n")
    monkeypatch.chdir(tmp_path)
    same = DEMO_SERVER
    result = run("replay", "tapes", "--junit", "r.xml", "--sarif", "r.sarif", "--", *same)
    assert_clean_run(result, codes=[2])
    root = ET.parse(tmp_path / "r.xml").getroot()
    outcomes = {
        s.get("name"): [child.tag for case in s.iter("testcase") for child in case]
        for s in root.iter("testsuite")
    }
    assert outcomes == {"tapes/broken.jsonl": ["error"], "tapes/clean.jsonl": []}
    log = json.loads((tmp_path / "r.sarif").read_text())
    assert_valid_sarif(log)
    assert log["runs"][0]["invocations"][0]["executionSuccessful"] is False
    refused = run("replay", "tapes/clean.jsonl", "--learn", "2", "--junit", "r.xml", "--", *same)
    assert_clean_run(refused, codes=[2])
    assert "--learn runs its own replays" in refused.stderr


def test_a_probe_failure_is_a_junit_failure_a_sarif_result_and_an_annotation(tmp_path: Path) -> None:
    """A server that acts on concatenated objects: its case fails in JUnit (as probe always wrote
    it), is a `probe/concatenated` error in SARIF located in the case's transcript (the one probe.json
    names: the clean start's process may host it), with the server's
    findings of that case; --format github prints them instead of the table; exit 1."""
    proc = subprocess.run(
        [
            console_script(), "probe", "-o", "out", "--junit", "p.xml", "--sarif", "p.sarif",
            "--format", "github", "--timeout", "3", "--case", "concatenated",
            "--", *PB_SERVER, "--defect", "concatenated",
        ],
        cwd=tmp_path, capture_output=True, timeout=120, check=False, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    root = ET.parse(tmp_path / "p.xml").getroot()
    assert root.get("failures") == "1" and [c.get("name") for c in root.iter("testcase")] == [
        "start",
        "concatenated",
    ]
    log = json.loads((tmp_path / "p.sarif").read_text())
    assert_valid_sarif(log)
    results = log["runs"][0]["results"]
    case = next(r for r in results if r["ruleId"] == "probe/concatenated")
    uri = case["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    ran = next(
        c
        for c in json.loads((tmp_path / "out" / "probe.json").read_text())["cases"]
        if c["id"] == "concatenated"
    )
    transcript = Path(ran["transcript"]).relative_to(tmp_path).as_posix()  # the process that ran it
    assert uri == transcript and case["level"] == "error"
    assert "exec-after-reject" in {r["ruleId"] for r in results}
    assert all(r["properties"]["party"] == "server" for r in results if not r["ruleId"].startswith("probe/"))
    lines = proc.stdout.decode().splitlines()
    assert lines[0].startswith(f"::error file={transcript},")
    assert lines[-1].startswith("mcptape probe: FAIL: 1 passed, 1 failed")
