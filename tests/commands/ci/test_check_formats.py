"""`mcptape check --junit FILE --sarif FILE --format github`: one result per finding at its line in
the transcript file, rule ids and descriptions from the registry, severities as SARIF levels, a JUnit
test case per finding that fails exactly when the exit code says so."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from mcptape.check.rules import RULES
from tests.commands.ci.sarif import assert_valid_sarif
from tests.commands.tapes import assert_clean_run, line, message, record, run, unsafe_chars, write

pytestmark = pytest.mark.slow

ANNOTATION = re.compile(r"^::(error|warning|notice) file=([^,:]+),line=(\d+),title=([^:]*)::(.*)$")


@pytest.fixture
def work(tapes: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the demo tapes under a working directory of the test's own."""
    shutil.copytree(tapes, tmp_path / "tapes")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_sarif_has_the_required_structure_and_a_result_per_finding_at_its_file_line(work: Path) -> None:
    """Each finding of the buggy session is a result citing its registry rule, at the transcript's
    path and at the line of the file that holds the offending record."""
    result = run("check", "tapes/demo-buggy.jsonl", "--json", "--sarif", "out.sarif")
    assert_clean_run(result, codes=[1])
    findings = json.loads(result.stdout)["findings"]
    log = json.loads((work / "out.sarif").read_text())
    assert_valid_sarif(log)
    [run_] = log["runs"]
    assert run_["tool"]["driver"]["name"] == "mcptape"
    assert {r["id"] for r in run_["tool"]["driver"]["rules"]} >= set(RULES)
    results = run_["results"]
    assert [r["ruleId"] for r in results] == [f["rule"] for f in findings]
    lines = (work / "tapes" / "demo-buggy.jsonl").read_text().splitlines()
    for found, finding in zip(results, findings, strict=True):
        location = found["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == "tapes/demo-buggy.jsonl"
        number = location["region"]["startLine"]
        assert number == finding["event"] + 2
        assert json.loads(lines[number - 1])["ch"] == finding["channel"]
        assert found["level"] == {"error": "error", "warning": "warning", "info": "note"}[finding["severity"]]
        assert found["message"]["text"].startswith(finding["message"])


def test_the_rules_carry_their_registry_description_help_and_level() -> None:
    """A SARIF rule is the registry's: its summary, a help that names its severity and party, its level."""
    from mcptape.commands.ci.findings import registry_rules

    rules = {rule.id: rule for rule in registry_rules()}
    assert rules.keys() == RULES.keys()
    exec_rule = rules["exec-after-reject"]
    assert exec_rule.summary == RULES["exec-after-reject"].summary and exec_rule.level == "error"
    assert rules["unanswered-request"].level == "warning"
    assert "docs/check.md" in exec_rule.help


def test_junit_fails_a_test_case_per_counted_finding_and_passes_a_clean_transcript(work: Path) -> None:
    """Several transcripts: a suite each; the buggy one has a failing case per finding, the clean one
    a passing case; the totals add up and the exit code is 1."""
    result = run("check", "tapes/", "--junit", "out.xml")
    assert_clean_run(result, codes=[1])
    root = ET.parse(work / "out.xml").getroot()
    assert root.tag == "testsuites"
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert set(suites) == {f"tapes/demo-{name}.jsonl" for name in ("buggy", "clean", "replay")}
    buggy = suites["tapes/demo-buggy.jsonl"]
    failures = buggy.findall("testcase/failure")
    assert len(failures) == int(buggy.get("failures") or 0) == 2
    assert {f.get("type") for f in failures} == {"non-protocol-output", "exec-after-reject"}
    assert all(f.get("message") and f.text for f in failures)
    clean = suites["tapes/demo-clean.jsonl"]
    [case] = clean.findall("testcase")
    assert case.get("name") == "no findings" and not list(case)
    assert root.get("tests") == str(sum(len(s.findall("testcase")) for s in suites.values()))
    assert root.get("failures") == "2"


def test_a_finding_the_gate_does_not_count_is_a_skipped_case_and_exit_0(work: Path) -> None:
    """With --party client the server's findings do not fail: skipped cases, no failure, exit 0;
    SARIF still lists them at their level."""
    result = run(
        "check", "tapes/demo-buggy.jsonl", "--party", "client", "--junit", "out.xml", "--sarif", "out.sarif"
    )
    assert_clean_run(result, codes=[0])
    root = ET.parse(work / "out.xml").getroot()
    assert root.get("failures") == "0" and root.get("skipped") == "2"
    assert all("not counted" in (s.get("message") or "") for s in root.iter("skipped"))
    log = json.loads((work / "out.sarif").read_text())
    assert [r["level"] for r in log["runs"][0]["results"]] == ["error", "error"]


def test_github_annotations_point_at_the_transcript_lines(work: Path) -> None:
    """--format github: an ::error line per finding with file, line and title, then a summary line;
    the file and line are the ones SARIF gives."""
    result = run("check", "tapes/demo-buggy.jsonl", "--format", "github", "--sarif", "out.sarif")
    assert_clean_run(result, codes=[1])
    *annotations, summary = result.stdout.splitlines()
    log = json.loads((work / "out.sarif").read_text())
    places = [
        (
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
        )
        for r in log["runs"][0]["results"]
    ]
    parsed = [ANNOTATION.match(a) for a in annotations]
    assert all(parsed), annotations
    assert [(m.group(2), int(m.group(3))) for m in parsed if m] == places
    assert [m.group(1) for m in parsed if m] == ["error", "error"]
    assert "%0A" in annotations[0] and "\n" not in annotations[0]
    assert summary.startswith("mcptape check: 1 transcript (1 failing the gate, 0 unreadable), 2 findings")


def test_an_unreadable_transcript_is_an_error_case_and_an_unsuccessful_run(work: Path) -> None:
    """Among several files, one that cannot be read: a JUnit error, SARIF's invocation unsuccessful
    with the reason, exit 2."""
    (work / "tapes" / "broken.jsonl").write_text("not a transcript\n")
    result = run("check", "tapes/", "--junit", "out.xml", "--sarif", "out.sarif", "--format", "github")
    assert_clean_run(result, codes=[2])
    root = ET.parse(work / "out.xml").getroot()
    [error] = root.iter("error")
    assert error.get("type") == "unreadable"
    log = json.loads((work / "out.sarif").read_text())
    assert_valid_sarif(log)
    [invocation] = log["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    assert "broken.jsonl" in invocation["toolExecutionNotifications"][0]["message"]["text"]
    assert any(
        a.startswith("::error title=mcptape check::tapes/broken.jsonl") for a in result.stdout.splitlines()
    )


HOSTILE = (
    "\x1b]8;;http://attacker.example\x07click\x1b]8;;\x07 \u202eevil\u202c\u2066x\u2069 %0A::warning::no\r\n"
)


def test_transcript_bytes_reach_no_format_raw(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stdout line with ESC/OSC sequences, bidi controls, a carriage return and a forged workflow
    command: escaped by textsafe in the SARIF strings, the XML text and the annotations; the
    annotation stays one line and its message cannot open a second command."""
    monkeypatch.chdir(tmp_path)
    write(
        tmp_path / "evil,name:1.jsonl",
        [
            line(0.1, "out", HOSTILE),
            line(0.2, "in", message(id=1, method="tools/list")),
            line(0.3, "out", message(id=1, result={"tools": []})),
            record(t=0.4, ch="exit", code=0, signal=None),
        ],
    )
    result = run(
        "check", "evil,name:1.jsonl", "--format", "github", "--junit", "out.xml", "--sarif", "out.sarif"
    )
    assert_clean_run(result, codes=[1])
    [annotation, _summary] = result.stdout.splitlines()
    assert annotation.startswith("::error file=evil%2Cname%3A1.jsonl,line=2,title=")
    command, data = annotation[2:].split("::", 1)  # the runner reads up to the first "::"
    assert command.startswith("error file=") and "%0A" in data and "%250A" in data
    assert "::warning::" in data  # only as text of this message: no line of its own to start
    log = json.loads((tmp_path / "out.sarif").read_text())
    strings: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            strings.append(value)
        elif isinstance(value, dict):
            for key, item in value.items():
                strings.append(key)
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(log)
    assert all(unsafe_chars(s) == [] for s in strings)
    assert any("\\x1b]8;;http://attacker.example\\x07" in s for s in strings)
    assert log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (
        "evil%2Cname%3A1.jsonl"
    )
    xml = (tmp_path / "out.xml").read_text()
    root = ET.fromstring(xml)
    texts = [t for el in root.iter() for t in [el.text or "", *el.attrib.values()]]
    assert all(unsafe_chars(t) == [] for t in texts) and "\\u202e" in xml


def test_an_output_never_replaces_the_input_and_a_bad_path_fails_before_the_check(
    work: Path,
) -> None:
    """--sarif naming the transcript itself, or a file in a missing folder: exit 2 with one Error
    line, the transcript intact, nothing written."""
    before = (work / "tapes" / "demo-buggy.jsonl").read_bytes()
    same = run("check", "tapes/demo-buggy.jsonl", "--sarif", "tapes/demo-buggy.jsonl")
    assert_clean_run(same, codes=[2])
    assert (
        same.stderr.startswith("Error: tapes/demo-buggy.jsonl is the input transcript") and same.stdout == ""
    )
    assert (work / "tapes" / "demo-buggy.jsonl").read_bytes() == before
    missing = run("check", "tapes/demo-buggy.jsonl", "--junit", "nowhere/out.xml")
    assert_clean_run(missing, codes=[2])
    assert "does not exist" in missing.stderr and missing.stdout == ""
    both = run("check", "tapes/demo-buggy.jsonl", "--junit", "x.xml", "--sarif", "./x.xml")
    assert_clean_run(both, codes=[2])
    assert not (work / "x.xml").exists()


def test_an_output_is_replaced_whole(work: Path) -> None:
    """An existing report is replaced at once (written aside, then renamed): no temporary file stays."""
    (work / "out.sarif").write_text("old")
    assert_clean_run(run("check", "tapes/demo-clean.jsonl", "--sarif", "out.sarif"), codes=[0])
    assert json.loads((work / "out.sarif").read_text())["runs"][0]["results"] == []
    assert sorted(p.name for p in work.iterdir()) == ["out.sarif", "tapes"]


def test_json_and_format_github_together_are_a_usage_error(work: Path) -> None:
    """Both choose what stdout gets: exit 2, one Error line."""
    result = run("check", "tapes/demo-clean.jsonl", "--json", "--format", "github")
    assert_clean_run(result, codes=[2])
    assert result.stderr.startswith("Error: --json and --format github")
