"""The one writer's pure formats, on reports built by hand: GitHub's escaping rules, the JUnit totals,
the text every format shows."""

from __future__ import annotations

from xml.etree import ElementTree as ET

from mcptape.commands.ci.report import ERROR, FAILURE, SKIPPED, Case, Report, Result, Suite, Where, safe
from mcptape.commands.ci.writers import ANNOTATIONS_KEPT, annotation, github, junit


def test_an_annotation_escapes_data_and_properties_as_the_runner_reads_them() -> None:
    """In the message: `%`, CR and LF; in a property also `:` and `,` (actions/toolkit's escapeData
    and escapeProperty)."""
    found = Result("x", "warning", "a: b, c 100%", "50% done\nnext line\rback", Where("d,ir:/f%.jsonl", 7))
    assert annotation(found) == (
        "::warning file=d%2Cir%3A/f%25.jsonl,line=7,title=a%3A b%2C c 100%25::50%25 done%0Anext line\\rback"
    )


def test_levels_map_to_the_three_workflow_commands_and_a_file_without_a_line() -> None:
    """error -> ::error, warning -> ::warning, note -> ::notice; no line when the place is a whole file."""
    assert annotation(Result("r", "note", "t", "m", Where("a.jsonl"))) == "::notice file=a.jsonl,title=t::m"
    assert annotation(Result("r", "error", "t", "m")).startswith("::error title=t::")


def test_annotations_stop_at_the_kept_number_and_say_how_many_more() -> None:
    """A flood of findings gives ANNOTATIONS_KEPT lines and one notice with the rest's count."""
    report = Report("check", results=[Result("r", "error", "t", str(i)) for i in range(ANNOTATIONS_KEPT + 7)])
    lines = github(report).decode().splitlines()
    assert len(lines) == ANNOTATIONS_KEPT + 1
    assert (
        lines[-1]
        == "::notice title=mcptape check::7 more finding(s) not annotated (--sarif or --junit has every one)"
    )


def test_safe_keeps_the_layout_and_escapes_the_rest() -> None:
    """Newlines and tabs stay; a bidi override, a C1 control and a lone carriage return are escaped."""
    assert safe("a\n\tb") == "a\n\tb"
    assert safe("x\u202ey\x85z\r") == "x\\u202ey\\x85z\\r"


def test_junit_totals_count_each_outcome() -> None:
    """`<testsuites>` and each `<testsuite>` count tests, failures, errors and skipped of their cases."""
    report = Report(
        "check",
        suites=[
            Suite("a", [Case("1", "c", FAILURE, "m"), Case("2", "c", SKIPPED, "s"), Case("3", "c")]),
            Suite("b", [Case("4", "c", ERROR, "e\uffff")]),
        ],
    )
    root = ET.fromstring(junit(report))
    assert {k: root.get(k) for k in ("tests", "failures", "errors", "skipped")} == {
        "tests": "4",
        "failures": "1",
        "errors": "1",
        "skipped": "1",
    }
    [a, b] = root.iter("testsuite")
    assert (a.get("tests"), a.get("failures"), b.get("errors")) == ("3", "1", "1")
    error = b.find("testcase/error")
    assert error is not None and error.get("message") == "e\\uffff"
