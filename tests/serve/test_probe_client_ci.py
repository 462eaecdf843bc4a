"""`probe --client` writes the CI formats through the one writer, as the server probe does: JUnit
totals that are the table's verdicts, a SARIF result per case that did not pass located where its
hard output was written in the case's served transcript, GitHub annotations; real processes (the
official SDK client script against `mcptape serve`)."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import orjson
import pytest

from mcptape.serve.clientprobe import START
from mcptape.serve.injectcases import CASES
from tests.commands.ci.sarif import assert_valid_sarif
from tests.serve.conftest import ProbeRun, Recorded
from tests.serve.helpers import PYTHON, SDK_CLIENT, mcptape

pytestmark = pytest.mark.slow

LEVEL = {"FAIL": "error", "inconclusive": "error", "warning": "warning"}
TITLES = {case.id: case.title for case in (START, *CASES)}
JUNIT_TAG = {"FAIL": "failure", "inconclusive": "error", "n/a": "skipped"}


def _table_verdicts(table: str, ids: list[str]) -> dict[str, str]:
    """Each case's verdict as the table prints it (the second column of its row)."""
    rows: dict[str, str] = {}
    for line in table.splitlines():
        words = line.split()
        if len(words) > 1:
            rows.setdefault(words[0], words[1])  # the row, not the details after the table
    return {case: rows[case] for case in ids}


def _record_at(path: Path, line: int) -> dict[str, Any]:
    record: dict[str, Any] = orjson.loads(path.read_bytes().splitlines()[line - 1])
    return record


def _bytes_of(record: dict[str, Any]) -> bytes:
    return base64.b64decode(record["b64"]) if "b64" in record else record["data"].encode()


@pytest.mark.timeout(300)  # the shared probe run (every case), perhaps made by this test
def test_the_client_probe_s_junit_and_sarif_follow_its_table(sdk_client_probe: ProbeRun) -> None:
    """Every case against the SDK client, with --junit and --sarif: the JUnit totals are the
    table's verdicts (FAIL a failure, inconclusive an error, n/a skipped), one SARIF result per case
    that did not pass, `client-probe/CASE` described by the case's title, located in the case's
    served transcript at the stdout record written when its hard output was played."""
    proc = sdk_client_probe  # `probe --client ... -o probe --junit c.xml --sarif c.sarif ...`
    where = proc.cwd  # where it ran: the paths in its reports are relative to it
    assert b"Traceback" not in proc.stderr, proc.stderr.decode()
    played = orjson.loads((where / "probe" / "probe-client.json").read_bytes())["cases"]
    ids = [c["id"] for c in played]
    titles = {c["id"]: c["title"] for c in played}  # a pair case's title is the form it was played in
    assert all(
        titles[c] == TITLES[c] for c in ids if c not in ("concatenated-responses", "swapped-responses")
    )
    verdicts = _table_verdicts(proc.stdout.decode(), ids)
    assert proc.returncode == (1 if {"FAIL", "inconclusive"} & set(verdicts.values()) else 0)

    root = ET.parse(where / "c.xml").getroot()
    assert root.tag == "testsuites" and root.get("name") == "mcptape probe --client"
    tally = list(verdicts.values())
    assert root.get("tests") == str(len(ids)) == "11"
    assert root.get("failures") == str(tally.count("FAIL"))
    assert root.get("errors") == str(tally.count("inconclusive"))
    assert root.get("skipped") == str(tally.count("n/a"))
    cases = {case.get("name") or "": case for case in root.iter("testcase")}
    assert list(cases) == ids
    for case_id, case in cases.items():
        assert case.get("classname") == "mcptape.probe.client"
        tags = {child.tag for child in case} - {"system-out", "system-err"}
        assert tags == ({JUNIT_TAG[verdicts[case_id]]} if verdicts[case_id] in JUNIT_TAG else set())

    log = orjson.loads((where / "c.sarif").read_bytes())
    assert_valid_sarif(log)
    run = log["runs"][0]
    assert run["tool"]["driver"]["fullName"] == "mcptape probe --client"
    rules = {rule["id"]: rule for rule in run["tool"]["driver"]["rules"]}
    assert list(rules) == [f"client-probe/{case_id}" for case_id in ids]
    for case_id in ids:
        assert rules[f"client-probe/{case_id}"]["shortDescription"]["text"] == titles[case_id]
    results = {r["ruleId"].removeprefix("client-probe/"): r for r in run["results"]}
    assert len(results) == len(run["results"])
    assert set(results) == {c for c, v in verdicts.items() if v in LEVEL}
    for case_id, result in results.items():
        assert result["level"] == LEVEL[verdicts[case_id]]
        assert result["message"]["text"].startswith(f"{titles[case_id]}: {verdicts[case_id]}\ndid: ")
        physical = result["locations"][0]["physicalLocation"]
        assert physical["artifactLocation"]["uri"] == f"probe/client-{case_id}.jsonl"
        served = orjson.loads((where / "probe" / f"client-{case_id}.report.json").read_bytes())
        inject = served["inject"][0]
        if not inject["played"]:
            assert "region" not in physical
            continue
        transcript = where / "probe" / f"client-{case_id}.jsonl"
        line = physical["region"]["startLine"]
        record = _record_at(transcript, line)
        assert record["ch"] == "out" and record["t"] >= inject["at"]["t"] - 1e-6, record
        earlier = [_record_at(transcript, n) for n in range(2, line)]
        assert all(r["t"] < inject["at"]["t"] for r in earlier if r.get("ch") == "out")
        if case_id not in ("split-response", "concatenated-responses", "swapped-responses", "truncated-eof"):
            assert inject["marker"].encode() in _bytes_of(record)  # the hard output itself


def test_the_client_probe_prints_annotations_with_format_github(
    time_recording: Recorded, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--format github: stdout holds one annotation per SARIF result, at the same file and line,
    then the table's summary line; no table."""
    monkeypatch.chdir(tmp_path)
    proc = mcptape(
        "probe", "--client", "--from", time_recording.path, "-o", "probe", "--case", "banner-before-response",
        "--case", "split-response", "--sarif", "c.sarif", "--format", "github", "--",
        PYTHON, SDK_CLIENT, "--together",
        timeout=120,
    )  # fmt: skip
    lines = proc.stdout.decode().splitlines()
    document = orjson.loads((tmp_path / "probe" / "probe-client.json").read_bytes())
    assert [c["id"] for c in document["cases"]] == ["start", "banner-before-response", "split-response"]
    assert proc.returncode == (1 if document["failed"] else 0)
    assert "what the client did" not in proc.stdout.decode()
    counts = document["counts"]
    head = "FAIL" if counts["FAIL"] else "INCONCLUSIVE" if counts["inconclusive"] else "ok"
    summary = f"mcptape probe --client: {head}: {counts['pass']} passed, {counts['warning']} warnings"
    assert lines[-1].startswith(summary), lines
    results = orjson.loads((tmp_path / "c.sarif").read_bytes())["runs"][0]["results"]
    assert len(lines) - 1 == len(results) == sum(1 for c in document["cases"] if c["verdict"] in LEVEL)
    for line, result in zip(lines[:-1], results, strict=True):
        physical = result["locations"][0]["physicalLocation"]
        head = f"::{result['level']} file={physical['artifactLocation']['uri']}"
        if "region" in physical:
            head += f",line={physical['region']['startLine']}"
        assert line.startswith(head + ",title=mcptape probe --client%3A "), line


def test_a_clean_run_that_fails_is_the_one_result_at_the_recorded_transcript(
    time_recording: Recorded, tmp_path: Path
) -> None:
    """A client that never starts its server: `client-probe/start` is the one SARIF error, located
    at the transcript given to --from (no session was served); JUnit has the start as a failure and
    the ten cases not run as skipped."""
    proc = mcptape(
        "probe", "--client", "--from", time_recording.path, "-o", tmp_path / "p", "--junit",
        tmp_path / "c.xml", "--sarif", tmp_path / "c.sarif", "--", PYTHON, "-c", "raise SystemExit(3)",
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr.decode()
    log = orjson.loads((tmp_path / "c.sarif").read_bytes())
    assert_valid_sarif(log)
    [result] = log["runs"][0]["results"]
    assert result["ruleId"] == "client-probe/start" and result["level"] == "error"
    assert "the client exited with code 3" in result["message"]["text"]
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == time_recording.path.absolute().as_uri()
    root = ET.parse(tmp_path / "c.xml").getroot()
    assert (root.get("tests"), root.get("failures"), root.get("errors"), root.get("skipped")) == (
        "11",
        "1",
        "0",
        "10",
    )
    start = next(root.iter("testcase"))
    failure = start.find("failure")
    assert failure is not None and failure.get("message") == "the client exited with code 3"


def test_an_output_naming_the_served_transcript_is_refused_before_the_client_runs(
    time_recording: Recorded, tmp_path: Path
) -> None:
    """--sarif on the --from transcript would destroy the recording: one Error line, exit 2, the
    client never run (no output folder made)."""
    before = time_recording.path.read_bytes()
    proc = mcptape(
        "probe", "--client", "--from", time_recording.path, "-o", tmp_path / "p", "--sarif",
        time_recording.path, "--", PYTHON, SDK_CLIENT,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.decode().startswith("Error: ") and b"Traceback" not in proc.stderr
    assert not (tmp_path / "p").exists()
    assert time_recording.path.read_bytes() == before
