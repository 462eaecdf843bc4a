"""A replay says when the tool surface changed, on a line of its own, judged by the tool surface's
diff (issue 28, item 4): a removed tool and a new required argument are breaking, a description
that starts instructing the model is suspicious."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from mcptape.commands.ci.replay import Replayed, replay_report
from mcptape.commands.ci.writers import junit, sarif
from mcptape.replay.api import replay
from tests.clients import python_server, sdk_session
from tests.conftest import SERVERS

pytestmark = pytest.mark.slow

SERVER = SERVERS / "rp_surface.py"


async def greet(client: Client) -> dict[str, Any]:
    result = await client.call_tool("greet", {"name": "Ada"})
    return {"greet": result.content[0].text}  # type: ignore[union-attr]


@pytest.fixture(scope="module")
def surface_tape(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An SDK session with rp_surface v1: the tools listed, greet called (do not modify)."""
    path = tmp_path_factory.mktemp("surface") / "surface.jsonl"
    seen = sdk_session(python_server(SERVER), record_to=path, script=greet)
    assert seen.tools == ["add", "greet", "legacy"] and seen.results["greet"] == "Hello, Ada!"
    return path


def test_a_changed_surface_gets_its_own_line_in_text_and_json(surface_tape: Path) -> None:
    """Against v2: 'tool surface: 2 breaking, 1 suspicious changes', each change on a line, the
    description's new words named; --json carries the same changes and counts."""
    result = replay(surface_tape, python_server(SERVER, "--v2"), config=False)
    assert not result.same
    lines = result.render().splitlines()
    heads = [line for line in lines if line.startswith("tool surface:")]
    assert len(heads) == 1 and heads[0].startswith("tool surface: 2 breaking, 1 suspicious changes: "), lines
    below = lines[lines.index(heads[0]) + 1 :]
    assert any(line.split()[:2] == ["breaking", "tool"] and "legacy removed" in line for line in below)
    assert any(line.split()[:3] == ["breaking", "tool", "add"] and "/inputSchema" in line for line in below)
    assert any(line.split()[:3] == ["suspicious", "tool", "greet"] for line in below)
    assert lines.index(heads[0]) < lines.index("messages: 1 differ")  # before the tools/list diff
    doc = result.to_json()["surface"]
    assert doc["counts"] == {"breaking": 2, "suspicious": 1, "compatible": 0}
    assert doc["summary"] == "2 breaking, 1 suspicious changes"
    assert {(c["tool"], c["severity"]) for c in doc["changes"]} == {
        ("legacy", "breaking"),
        ("add", "breaking"),
        ("greet", "suspicious"),
    }
    suspicious = next(c for c in doc["changes"] if c["severity"] == "suspicious")
    assert "words" in suspicious and "id_rsa" in suspicious["words"]


def test_an_unchanged_surface_says_nothing_in_text_and_no_change_in_json(surface_tape: Path) -> None:
    """Against v1 itself: same, no 'tool surface' line, and --json says 'no change'."""
    result = replay(surface_tape, python_server(SERVER), config=False)
    assert result.same, result.render()
    assert "tool surface" not in result.render()
    doc = result.to_json()["surface"]
    assert doc["summary"] == "no change" and doc["changes"] == []


def test_a_changed_surface_is_in_sarif_and_junit(surface_tape: Path) -> None:
    """Against v2, replay's SARIF has a result per change under the `tools diff` rules (breaking an
    error, suspicious a warning), and the JUnit failure's text carries the `tool surface:` line."""
    result = replay(surface_tape, python_server(SERVER, "--v2"), config=False)
    report = replay_report([Replayed(str(surface_tape), result)])
    run = json.loads(sarif(report))["runs"][0]
    surface = sorted((r["ruleId"], r["level"]) for r in run["results"] if r["ruleId"].startswith("tools-"))
    assert surface == [("tools-breaking", "error")] * 2 + [("tools-suspicious", "warning")]
    rules = {rule["id"] for rule in run["tool"]["driver"]["rules"]}
    assert {"tools-breaking", "tools-suspicious", "tools-compatible"} <= rules
    failure = ET.fromstring(junit(report)).find(".//testcase/failure")
    assert failure is not None and "tool surface: 2 breaking, 1 suspicious changes" in (failure.text or "")


def test_an_unchanged_surface_adds_nothing_to_sarif(surface_tape: Path) -> None:
    """Against v1 itself, replay's SARIF has no tool surface result and JUnit's case passes."""
    result = replay(surface_tape, python_server(SERVER), config=False)
    report = replay_report([Replayed(str(surface_tape), result)])
    results = json.loads(sarif(report))["runs"][0]["results"]
    assert [r for r in results if r["ruleId"].startswith("tools-")] == []
    assert [c.outcome for s in report.suites for c in s.cases] == ["passed"]


def test_a_surface_change_an_ignore_rule_hid_is_in_the_passing_junit_case(surface_tape: Path) -> None:
    """Against v2 with the tools/list result ignored, the replay is same, and its JUnit case passes
    with the `tool surface:` line in its system-out."""
    result = replay(surface_tape, python_server(SERVER, "--v2"), config=False, ignore=["tools/list:result"])
    assert result.same, result.render()
    case = ET.fromstring(junit(replay_report([Replayed(str(surface_tape), result)]))).find(".//testcase")
    assert case is not None and case.find("failure") is None
    out = case.find("system-out")
    assert out is not None and "tool surface: 2 breaking, 1 suspicious changes" in (out.text or "")
