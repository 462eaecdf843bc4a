"""Accepted deviations: a committed baseline turns known, understood deviations into `accepted`
(text, JSON, JUnit skipped with the reason, SARIF suppressed), anything new or worse still fails,
an entry that no longer happens is stale, and a file that is not a baseline is one Error line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import orjson
import pytest

from mcptape.probe import baseline
from tests.conftest import console_script
from tests.probe.support import PB_SERVER

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
SDK_SERVER = [sys.executable, str(HERE / "sdk_server.py")]
SDK_BASELINE = HERE / "sdk-server.baseline.json"


def run(tmp_path: Path, *options: str, server: list[str]) -> subprocess.CompletedProcess[str]:
    command = [console_script(), "probe", "--timeout", "5", "-o", str(tmp_path / "out"), *options]
    return subprocess.run([*command, "--", *server], capture_output=True, text=True, timeout=300)


def test_the_official_sdk_server_passes_with_its_committed_baseline(tmp_path: Path) -> None:
    """MCPServer accepts invalid UTF-8 by design (replacement characters): with the committed
    baseline it exits 0, the case is accepted with the team's reason in every format."""
    junit, sarif = tmp_path / "p.xml", tmp_path / "p.sarif"
    cases = ("--case", "invalid-utf8", "--case", "debug-line")
    done = run(
        tmp_path,
        *cases,
        "--baseline",
        str(SDK_BASELINE),
        "--json",
        "--junit",
        str(junit),
        "--sarif",
        str(sarif),
        server=SDK_SERVER,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {c["id"]: c for c in orjson.loads(done.stdout)["cases"]}
    assert rows["invalid-utf8"]["verdict"] == "accepted"
    reason = rows["invalid-utf8"]["accepted"]["reason"]
    assert rows["invalid-utf8"]["accepted"]["was"] == "FAIL" and 'errors="replace"' in reason
    assert orjson.loads(done.stdout)["stale_baseline"] == []  # entries of cases not run are not stale
    skipped = {c.get("name"): c.find("skipped") for c in ET.parse(junit).iter("testcase")}
    node = skipped["invalid-utf8"]
    assert node is not None and node.get("message") == f"accepted: {reason}"
    results = orjson.loads(sarif.read_bytes())["runs"][0]["results"]
    mine = [r for r in results if r["ruleId"] == "probe/invalid-utf8"]
    assert mine and mine[0]["suppressions"] == [
        {"kind": "external", "status": "accepted", "justification": reason}
    ]


def test_a_new_deviation_fails_despite_the_baseline(tmp_path: Path) -> None:
    """The same SDK server printing a banner on stdout: the baseline does not accept it, exit 1."""
    options = ("--case", "invalid-utf8", "--baseline", str(SDK_BASELINE), "--json")
    done = run(tmp_path, *options, server=[*SDK_SERVER, "--banner"])
    assert done.returncode == 1, done.stdout + done.stderr
    rows = {c["id"]: c for c in orjson.loads(done.stdout)["cases"]}
    assert rows["start"]["verdict"] == "FAIL" and rows["start"]["accepted"] is None
    assert "stdout is not protocol-only" in rows["start"]["reasons"][0]


def test_a_worse_deviation_fails_and_a_gone_one_is_stale(tmp_path: Path) -> None:
    """An accepted warning that became an action fails ("worse"); an accepted failure that now passes
    is reported stale and does not fail the run."""
    file = tmp_path / "b.json"
    entries = [
        {"case": "banner-after-request", "tool": "deploy", "verdict": "warning", "reason": "dropped"},
        {"case": "debug-line", "tool": None, "verdict": "FAIL", "reason": "old bug"},
    ]
    file.write_bytes(orjson.dumps({"mcptape_probe_baseline": 1, "accepted": entries}))
    cases = ("--case", "banner-after-request", "--case", "debug-line", "--json")
    done = run(tmp_path, *cases, "--baseline", str(file), server=[*PB_SERVER, "--defect", "tolerant"])
    assert done.returncode == 1, done.stderr
    document = orjson.loads(done.stdout)
    rows = {c["id"]: c for c in document["cases"]}
    assert rows["banner-after-request"]["verdict"] == "FAIL"
    assert rows["banner-after-request"]["reasons"][0].startswith(
        "worse than the baseline: warning with 0 action(s) accepted, FAIL with 1 now"
    )
    assert [e["case"] for e in document["stale_baseline"]] == ["debug-line"]
    table = run(tmp_path, "--case", "debug-line", "--baseline", str(file), server=PB_SERVER)
    assert table.returncode == 0, table.stdout
    assert "stale baseline entries (their case ran and no longer deviates as written" in table.stdout
    assert "1 stale baseline entry (no longer happens)" in table.stdout


def test_write_baseline_writes_every_deviation_sorted_and_keeps_reasons(tmp_path: Path) -> None:
    """--write-baseline lists each case that did not pass, sorted by case id, with an empty reason
    for the team to fill, or the reason the --baseline given already had; it loads back."""
    file = tmp_path / "b.json"
    server = [*PB_SERVER, "--defect", "silent-drop"]
    cases = ("--case", "string-params", "--case", "debug-line", "--case", "boolean-id")
    first = run(tmp_path, *cases, "--write-baseline", str(file), server=server)
    assert first.returncode == 0, first.stderr  # warnings only
    written = orjson.loads(file.read_bytes())
    assert [e["case"] for e in written["accepted"]] == ["boolean-id", "debug-line", "string-params"]
    assert {e["reason"] for e in written["accepted"]} == {""}
    assert written["accepted"][0] == {
        "case": "boolean-id",
        "tool": "deploy",
        "verdict": "warning",
        "actions": 0,
        "seen": "no answer to it; next request ran alone (1 calls)",  # deploy reports on the tap
        "reason": "",
    }
    written["accepted"][1]["reason"] = "debug lines are ignored on purpose"
    file.write_bytes(orjson.dumps(written))
    again = tmp_path / "again.json"
    second = run(tmp_path, *cases, "--baseline", str(file), "--write-baseline", str(again), server=server)
    assert second.returncode == 0 and "3 accepted by the baseline" in second.stdout, second.stdout
    kept = orjson.loads(again.read_bytes())["accepted"]
    assert [e["reason"] for e in kept] == ["", "debug lines are ignored on purpose", ""]
    assert len(baseline.load(again)) == 3


def test_a_baseline_that_is_not_one_is_one_error_line(tmp_path: Path) -> None:
    """Not JSON, the wrong shape, an entry without a case: one Error line, exit 2, nothing run."""
    bad = {
        "garbage.json": b"{not json",
        "list.json": b"[]",
        "nocase.json": b'{"mcptape_probe_baseline": 1, "accepted": [{"reason": "x"}]}',
        "verdict.json": b'{"mcptape_probe_baseline": 1, "accepted": [{"case": "x", "verdict": "ok"}]}',
    }
    for name, data in bad.items():
        (tmp_path / name).write_bytes(data)
        done = run(tmp_path, "--baseline", str(tmp_path / name), server=PB_SERVER)
        assert done.returncode == 2, (name, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"Error: --baseline {tmp_path / name}"), lines
        assert not (tmp_path / "out" / "start.jsonl").exists()
