"""Everywhere a verdict goes: the promise findings of one transcript file, through check's text,
`--json`, `--junit`, `--sarif`, `--format github`, and the bug-report bundle (`mcptape report`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import orjson
from click.testing import CliRunner

from mcptape.commands.check import check_command
from mcptape.commands.share import report_command
from tests.check.helpers import Item, events
from tests.check.rules.promises import READ_ONLY_TOOL, call, cancel, done, listing, tap

SESSION: list[Item] = [
    *listing(1, READ_ONLY_TOOL, {"name": "deploy", "inputSchema": {"type": "object"}}),
    call(2, "lookup", key="a"),
    tap(2, "cache-write", kind="update"),
    done(2),
    call(3, "deploy", target="web"),
    tap(3, "deploy"),
    cancel(3),
    call(4, "deploy", target="web"),
    tap(4, "deploy"),
    done(4),
    call(5, "nope"),
    (
        "out",
        orjson.dumps({"jsonrpc": "2.0", "id": 5, "error": {"code": -32602, "message": "Unknown tool"}})
        + b"\n",
    ),
    ("exit", {"code": 0, "signal": None}),
]
RULES = {"hint-read-only", "ran-twice", "unknown-tool"}


def _write(path: Path) -> Path:
    header = {"mcptape": 1, "started": "2026-12-04T00:00:00Z", "command": ["srv"], "cwd": "/", "recorder": {}}
    lines = [orjson.dumps(header)]
    for event in events(*SESSION):
        record: dict[str, Any] = {"t": event.t, "ch": event.ch}
        record.update(event.fields if event.fields is not None else {"data": event.data.decode()})
        lines.append(orjson.dumps(record))
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def test_the_text_report_tags_each_promise_finding_with_its_party(tmp_path: Path) -> None:
    """Exit 1 (an error), each rule with its severity and party, the action and the call beside it."""
    result = CliRunner().invoke(check_command, [str(_write(tmp_path / "s.jsonl"))])
    assert result.exit_code == 1
    out = result.output
    assert "error   hint-read-only" in out and "[server]" in out
    assert "warning ran-twice" in out and "info    unknown-tool" in out and "[client]" in out
    assert "request: in line 2:" in out and "tools/list: out line 1:" in out  # the call, the promise
    assert "cancel: in line 4:" in out and "retry: in line 5:" not in out  # the finding is at the retry


def test_json_lists_the_promise_findings_with_their_related_lines(tmp_path: Path) -> None:
    """`--json`: the rule ids, severities, parties, and the roles of the lines each names."""
    result = CliRunner().invoke(check_command, [str(_write(tmp_path / "s.jsonl")), "--json"])
    document = json.loads(result.output)
    found = {f["rule"]: f for f in document["findings"]}
    assert set(found) == RULES
    assert (found["hint-read-only"]["severity"], found["hint-read-only"]["party"]) == ("error", "server")
    assert [r["role"] for r in found["hint-read-only"]["related"]] == ["exec", "request", "tools/list"]
    assert [r["role"] for r in found["ran-twice"]["related"]] == [
        "request",
        "exec",
        "cancel",
        "retry",
        "exec",
    ]


def test_junit_sarif_and_github_annotations_carry_the_promise_findings(tmp_path: Path) -> None:
    """A JUnit test case, a SARIF result (its rule in the registry's table, stage promises) and a
    workflow annotation for each finding."""
    path = _write(tmp_path / "s.jsonl")
    junit, sarif = tmp_path / "out.xml", tmp_path / "out.sarif"
    result = CliRunner().invoke(
        check_command, [str(path), "--junit", str(junit), "--sarif", str(sarif), "--format", "github"]
    )
    assert result.exit_code == 1
    cases = ET.parse(junit).getroot().iter("testcase")
    assert {rule for case in cases for rule in RULES if rule in (case.get("name") or "")} >= RULES
    run = json.loads(sarif.read_text())["runs"][0]
    assert {r["ruleId"] for r in run["results"]} == RULES
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert rules["hint-read-only"]["properties"]["stage"] == "promises"
    levels = {r["ruleId"]: r["level"] for r in run["results"]}
    assert levels == {"hint-read-only": "error", "ran-twice": "warning", "unknown-tool": "note"}
    annotations = [line for line in result.output.splitlines() if line.startswith("::")]
    assert any(line.startswith("::error ") and "hint-read-only" in line for line in annotations)
    assert any(line.startswith("::warning ") and "ran-twice" in line for line in annotations)


def test_the_bug_report_bundle_lists_the_promise_findings(tmp_path: Path) -> None:
    """`mcptape report`: report.md names each finding, its rule and the lines it points at."""
    out = tmp_path / "bundle"
    result = CliRunner().invoke(report_command, [str(_write(tmp_path / "s.jsonl")), "-o", str(out)])
    assert result.exit_code in (0, 1), result.output
    text = (out / "report.md").read_text()
    for rule in RULES:
        assert f"**{rule}**" in text
