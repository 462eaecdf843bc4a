"""Must show: `mcptape probe --client` against the official SDK client: a table with a verdict per
case, JSON and JUnit, whatever the SDK does reported as it is (nothing tuned for it to pass)."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree as ET

import orjson
import pytest

from mcptape.serve.injectcases import CASES
from tests.serve.conftest import ProbeRun, Recorded
from tests.serve.helpers import PYTHON, mcptape

pytestmark = pytest.mark.slow

VERDICTS = {"pass", "warning", "FAIL", "inconclusive", "n/a"}


@pytest.mark.timeout(300)  # the shared probe run (every case), perhaps made by this test
def test_probe_client_against_the_sdk_client_gives_a_verdict_per_case(sdk_client_probe: ProbeRun) -> None:
    """A clean run, then ten cases: one row each in the table, the same in probe-client.json and in
    JUnit; valid traffic passes only when the client went on as if nothing happened; the exit code
    follows the verdicts."""
    proc = sdk_client_probe  # `probe --client ... -o probe --junit c.xml ... -- python sdk_client.py`
    out, junit = proc.cwd / "probe", proc.cwd / "c.xml"
    table = proc.stdout.decode()
    assert "case                    verdict  what the client did" in table, table
    document = orjson.loads((out / "probe-client.json").read_bytes())
    cases = document["cases"]
    assert [c["id"] for c in cases] == ["start", *(case.id for case in CASES)]
    assert cases[0]["verdict"] == "pass" and all(c["ran"] for c in cases)
    for case in cases:
        assert case["verdict"] in VERDICTS
        row = next(line for line in table.splitlines() if line.startswith(case["id"] + " "))
        assert row.split()[1] == case["verdict"]
        if case["id"] != "start" and case["legal"] and case["verdict"] != "n/a":  # the form played
            assert (case["verdict"] == "pass") == case["did"].startswith("went on as if nothing happened")
        if case["verdict"] in ("warning", "FAIL") and case["id"] != "start":
            assert case["reasons"], case  # a warning or failure says why
    assert proc.returncode == (1 if document["failed"] else 0), table
    suite = ET.parse(junit).getroot()
    assert suite.get("tests") == "11"
    assert int(suite.get("failures") or 0) == sum(1 for c in cases if c["verdict"] == "FAIL")
    assert {t.get("name") for t in suite.iter("testcase")} == {c["id"] for c in cases}
    assert b"Traceback" not in proc.stderr


def test_a_client_that_fails_the_clean_run_gets_no_cases(time_recording: Recorded, tmp_path: Path) -> None:
    """A client that ignores its server and exits 3: start fails, the cases are not run, exit 1."""
    proc = mcptape(
        "probe", "--client", "--from", time_recording.path, "-o", tmp_path / "p", "--",
        PYTHON, "-c", "raise SystemExit(3)",
    )  # fmt: skip
    assert proc.returncode == 1
    table = proc.stdout.decode()
    assert "start                   FAIL" in table and "the client exited with code 3" in table
    assert "10 not run" in table
