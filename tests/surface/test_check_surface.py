"""`mcptape check` reports the tool surface: a listing that changes mid-session (`tools-drift`) and
a session's surface against a committed lock (`--tools-lock`, `tools-lock`), as check findings in
every output (text, JSON, SARIF, JUnit, GitHub annotations) and in the exit code."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest

from tests import inprocess
from tests.clients import run_session
from tests.surface.support import listed_twice, tools, weather

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
REAL = sorted((ROOT / "transcripts").glob("*.jsonl"))


def check(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`mcptape check ARGS...` (in this process: tests/inprocess.py), its output as text."""
    return inprocess.run("check", *args, cwd=cwd, text=True)


def _record(variant: str, path: Path, script: Any = None) -> Path:
    kwargs: dict[str, Any] = {"script": script} if script is not None else {}
    anyio.run(lambda: run_session(weather(variant), record_to=path, mode="legacy", **kwargs))
    return path


def _surface(findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [f for f in findings if f["rule"] in ("tools-drift", "tools-lock")]


@pytest.mark.parametrize(("variant", "severity"), [("drift", "warning"), ("drift-quiet", "error")])
def test_a_description_rewritten_mid_session_is_a_check_finding_at_the_later_listing(
    variant: str, severity: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The SDK server's second tools/list answer carries a description that gained an instruction:
    check reports tools-drift (party server) at that answer's line, a warning after
    notifications/tools/list_changed and an error without it, and exits 1."""
    session = listed_twice(tmp_path_factory, variant)
    result = check(str(session), "--json")
    assert result.returncode == 1, result.stdout + result.stderr
    document = orjson.loads(result.stdout)
    (found,) = _surface(document["findings"])
    assert (found["rule"], found["severity"], found["party"]) == ("tools-drift", severity, "server")
    assert "get_forecast /description" in found["message"] and "addresses the model" in found["message"]
    lines = session.read_text().splitlines()
    answer = orjson.loads(lines[found["event"] + 2 - 1])
    assert answer["ch"] == "out" and '"tools"' in answer["data"] and "IMPORTANT" in answer["data"]
    records = [orjson.loads(line) for line in lines[1:]]
    listings = [n for n, r in enumerate(records) if r["ch"] == "out" and '"tools":[' in r.get("data", "")]
    assert len(listings) == 2 and found["event"] == listings[-1]  # the later answer, not the first
    text = check(str(session))
    assert "tools-drift" in text.stdout and "changed mid-session" in text.stdout


def test_drift_findings_reach_sarif_junit_and_github_annotations(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The CI outputs carry the drift finding like any other: a SARIF result with rule tools-drift at
    the answer's transcript line, a failed JUnit case, a ::warning annotation."""
    session = listed_twice(tmp_path_factory, "drift")
    result = check(
        str(session), "--format", "github", "--sarif", "out.sarif", "--junit", "out.xml", cwd=tmp_path
    )
    assert result.returncode == 1, result.stdout + result.stderr
    [annotation] = [line for line in result.stdout.splitlines() if "tools-drift" in line]
    assert annotation.startswith("::warning ")
    sarif = orjson.loads((tmp_path / "out.sarif").read_bytes())
    [run] = sarif["runs"]
    [drift] = [r for r in run["results"] if r["ruleId"] == "tools-drift"]
    line = drift["locations"][0]["physicalLocation"]["region"]["startLine"]
    assert "IMPORTANT" in session.read_text().splitlines()[line - 1]
    assert "tools-drift" in {r["id"] for r in run["tool"]["driver"]["rules"]}
    junit = (tmp_path / "out.xml").read_text()
    assert "tools-drift" in junit and "<failure" in junit


def test_listing_the_same_tools_twice_is_no_finding(tmp_path_factory: pytest.TempPathFactory) -> None:
    """A session that lists the unchanged tools twice checks clean."""
    session = listed_twice(tmp_path_factory, "base")
    result = check(str(session), "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    assert _surface(orjson.loads(result.stdout)["findings"]) == []


@pytest.mark.parametrize("transcript", REAL, ids=[p.stem for p in REAL])
def test_the_real_sessions_check_with_no_surface_finding(transcript: Path, tmp_path: Path) -> None:
    """The real servers' committed sessions gain no finding: no drift, and none against their own lock."""
    before = check(str(transcript), "--json")
    lock = tmp_path / "tools.lock.json"
    assert tools("lock", str(transcript), "-o", str(lock)).returncode == 0
    after = check(str(transcript), "--json", "--tools-lock", str(lock))
    assert after.returncode == before.returncode, after.stdout + after.stderr
    found = orjson.loads(after.stdout)["findings"]
    assert _surface(found) == []
    assert found == orjson.loads(before.stdout)["findings"]


@pytest.fixture(scope="module")
def base_lock(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The lock of the base weather server, from a recorded session."""
    folder = tmp_path_factory.mktemp("lock")
    session = _record("base", folder / "base.jsonl")
    lock = folder / "tools.lock.json"
    result = tools("lock", str(session), "-o", str(lock))
    assert result.returncode == 0, result.stderr
    return lock


@pytest.mark.parametrize(
    ("variant", "severity", "path"),
    [("rug", "warning", "/description"), ("required", "error", "/inputSchema/properties/units")],
)
def test_tools_lock_flags_a_rewrite_and_a_breaking_change_at_the_listing(
    variant: str, severity: str, path: str, base_lock: Path, tmp_path: Path
) -> None:
    """check --tools-lock: a rewritten description is a warning, a required argument added an
    error, each a tools-lock finding of the server at the tools/list answer that carried it."""
    session = _record(variant, tmp_path / "s.jsonl")
    clean = check(str(session), "--json")
    assert _surface(orjson.loads(clean.stdout)["findings"]) == []
    result = check(str(session), "--json", "--tools-lock", str(base_lock))
    assert result.returncode == 1, result.stdout + result.stderr
    (found,) = _surface(orjson.loads(result.stdout)["findings"])
    assert (found["rule"], found["severity"], found["party"]) == ("tools-lock", severity, "server")
    assert f"tool get_forecast {path}" in found["message"]
    answer = orjson.loads(session.read_text().splitlines()[found["event"] + 1])
    assert answer["ch"] == "out" and '"tools":[' in answer["data"]


def test_a_compatible_change_against_the_lock_is_no_finding(base_lock: Path, tmp_path: Path) -> None:
    """A tool added and an optional argument added do not fail check --tools-lock."""
    session = _record("compatible", tmp_path / "s.jsonl")
    result = check(str(session), "--json", "--tools-lock", str(base_lock))
    assert _surface(orjson.loads(result.stdout)["findings"]) == [], result.stdout


def test_an_unreadable_tools_lock_is_a_usage_error(tmp_path: Path) -> None:
    """A truncated lock: one line on stderr, exit 2, before any transcript is read."""
    lock = tmp_path / "tools.lock.json"
    lock.write_text('{"mcptapeToolsLock": 1, "tools": [')
    result = check(str(REAL[0]), "--tools-lock", str(lock))
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith("Error: ")
