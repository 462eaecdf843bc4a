"""The writers of the CI formats, pure functions of a `Report` (`report.py`) to bytes: JUnit XML,
SARIF 2.1.0 and GitHub workflow annotations. Each is a row of `commands/outputs.FORMATS`.

* `junit(report)`: `<testsuites>` (the totals) holding one `<testsuite>` per transcript or run,
  its `<testcase>`s with `<failure>`, `<error>` or `<skipped>`;
* `sarif(report)`: one run of the driver `mcptape`, its rules (id, descriptions, help, default
  level), one result per finding located at the transcript's line (`artifactLocation.uri` the
  transcript, `region.startLine` its 1-based line in the file);
* `github(report)`: `::error file=...,line=...,title=...::message` lines (`warning`, `notice`),
  escaped as the Actions runner reads them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote
from xml.etree import ElementTree as ET

from mcptape import jsonsafe
from mcptape.commands.ci.report import (
    ERROR,
    FAILURE,
    SKIPPED,
    Case,
    Report,
    Result,
    Rule,
    Where,
    one_line,
    safe,
    xml_line,
    xml_text,
)
from mcptape.version import __version__

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
GITHUB_COMMAND = {"error": "error", "warning": "warning", "note": "notice"}
ANNOTATIONS_KEPT = 50  # GitHub shows 10 of each kind per step; the rest stay in the other formats


# -- JUnit ----------------------------------------------------------------------------------------
def _counts(cases: Iterable[Case]) -> dict[str, str]:
    listed = list(cases)
    tally = {outcome: sum(1 for c in listed if c.outcome == outcome) for outcome in (FAILURE, ERROR, SKIPPED)}
    return {
        "tests": str(len(listed)),
        "failures": str(tally[FAILURE]),
        "errors": str(tally[ERROR]),
        "skipped": str(tally[SKIPPED]),
    }


def junit(report: Report) -> bytes:
    """JUnit XML: `<testsuites>` with the totals, a `<testsuite>` per suite, a `<testcase>` per case."""
    every = [case for suite in report.suites for case in suite.cases]
    seconds = sum(s.seconds for s in report.suites if s.seconds is not None)
    root = ET.Element(
        "testsuites", {"name": f"mcptape {report.command}", **_counts(every), "time": f"{seconds:.3f}"}
    )
    for suite in report.suites:
        node = ET.SubElement(root, "testsuite", {"name": xml_line(suite.name), **_counts(suite.cases)})
        if suite.seconds is not None:
            node.set("time", f"{suite.seconds:.3f}")
        if suite.properties:
            props = ET.SubElement(node, "properties")
            for name, value in suite.properties.items():
                ET.SubElement(props, "property", name=xml_line(name), value=xml_line(value))
        for case in suite.cases:
            _case(node, case)
    ET.indent(root)
    body: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=False)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + body + b"\n"


def _case(suite: ET.Element, case: Case) -> None:
    node = ET.SubElement(suite, "testcase", classname=xml_line(case.classname), name=xml_line(case.name))
    if case.seconds is not None:
        node.set("time", f"{case.seconds:.3f}")
    if case.where is not None:
        node.set("file", xml_line(case.where.path))
        if case.where.line is not None:
            node.set("line", str(case.where.line))
    if case.outcome in (FAILURE, ERROR):
        outcome = ET.SubElement(node, case.outcome, message=xml_line(case.message))
        if case.kind:
            outcome.set("type", xml_line(case.kind))
        outcome.text = xml_text(case.text or case.message)
    elif case.outcome == SKIPPED:
        ET.SubElement(node, "skipped", message=xml_line(case.message))
    if case.stdout:
        ET.SubElement(node, "system-out").text = xml_text(case.stdout)
    if case.stderr:
        ET.SubElement(node, "system-err").text = xml_text(case.stderr)


# -- SARIF ----------------------------------------------------------------------------------------
def artifact_uri(path: str) -> str:
    """A transcript's path as a SARIF `artifactLocation.uri`: relative to the working directory when
    it is under it (what code scanning and annotations resolve against the checkout), else a
    `file://` URI; percent-encoded."""
    absolute = os.path.abspath(path)
    cwd = os.getcwd()
    if absolute == cwd or absolute.startswith(cwd.rstrip(os.sep) + os.sep):
        relative = PurePosixPath(*Path(os.path.relpath(absolute, cwd)).parts)
        return quote(str(relative), safe="/")
    return Path(absolute).as_uri()


def relative_path(path: str) -> str:
    """A transcript's path for an annotation's `file=`: relative to the working directory when it is
    under it (the checkout), else as given."""
    absolute = os.path.abspath(path)
    cwd = os.getcwd()
    if absolute.startswith(cwd.rstrip(os.sep) + os.sep):
        return os.path.relpath(absolute, cwd)
    return path


def _location(where: Where, index: int | None = None) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": artifact_uri(where.path)}}
    if where.line is not None:
        physical["region"] = {"startLine": where.line}
    location: dict[str, Any] = {"physicalLocation": physical}
    if index is not None:
        location["id"] = index
    if where.note:
        location["message"] = {"text": one_line(where.note)}
    return location


def _rule_json(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.id,
        "name": "".join(part.capitalize() for part in rule.id.replace("/", "-").split("-")),
        "shortDescription": {"text": one_line(rule.summary)},
        "fullDescription": {"text": safe(rule.help or rule.summary)},
        "help": {"text": safe(rule.help or rule.summary)},
        "defaultConfiguration": {"level": rule.level},
        "properties": rule.properties,
    }


def sarif(report: Report) -> bytes:
    """SARIF 2.1.0: one run, the rules of the registry (and the command's own), a result per finding."""
    index = {rule.id: i for i, rule in enumerate(report.rules)}
    results = []
    for found in report.results:
        result: dict[str, Any] = {
            "ruleId": found.rule,
            "level": found.level,
            "message": {"text": safe(found.message)},
            "locations": [_location(found.where)] if found.where is not None else [],
        }
        if found.rule in index:
            result["ruleIndex"] = index[found.rule]
        if found.related:
            result["relatedLocations"] = [_location(w, i) for i, w in enumerate(found.related, 1)]
        if found.properties:
            result["properties"] = found.properties
        if found.suppressed is not None:
            justification = safe(found.suppressed)
            result["suppressions"] = [
                {"kind": "external", "status": "accepted", "justification": justification}
            ]
        results.append(result)
    invocation: dict[str, Any] = {"executionSuccessful": not report.problems}
    if report.problems:
        invocation["toolExecutionNotifications"] = [
            {"level": "error", "message": {"text": one_line(problem)}} for problem in report.problems
        ]
    log = {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "mcptape",
                        "fullName": f"mcptape {report.command}",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": [_rule_json(rule) for rule in report.rules],
                    }
                },
                "invocations": [invocation],
                "results": results,
                "columnKind": "unicodeCodePoints",
            }
        ],
    }
    # A finding's id or argument can be anything the transcript held: a 70-bit integer, 300
    # levels of nesting (orjson refuses both; jsonsafe writes them).
    return jsonsafe.dumps(log, indent=True).encode("utf-8", "surrogateescape") + b"\n"


# -- GitHub workflow commands ---------------------------------------------------------------------
def _data(text: str) -> str:
    """A workflow command's message: `%`, CR and LF escaped (the runner's escapeData)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    """A workflow command's property value: also `:` and `,` (the runner's escapeProperty)."""
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(result: Result) -> str:
    """One `::error file=...,line=...,title=...::message` line (`warning`, `notice`)."""
    props = []
    if result.where is not None:
        props.append(f"file={_property(one_line(relative_path(result.where.path)))}")
        if result.where.line is not None:
            props.append(f"line={result.where.line}")
    props.append(f"title={_property(one_line(result.title))}")
    return f"::{GITHUB_COMMAND[result.level]} {','.join(props)}::{_data(safe(result.message))}"


def github(report: Report) -> bytes:
    """The annotations (the first ANNOTATIONS_KEPT; a notice says how many more), the problems,
    then the summary line."""
    shown = [result for result in report.results if result.suppressed is None]  # accepted: no annotation
    lines = [annotation(result) for result in shown[:ANNOTATIONS_KEPT]]
    more = len(shown) - ANNOTATIONS_KEPT
    if more > 0:
        lines.append(
            f"::notice title=mcptape {report.command}::{more} more finding(s) not annotated "
            "(--sarif or --junit has every one)"
        )
    lines.extend(f"::error title=mcptape {report.command}::{_data(one_line(p))}" for p in report.problems)
    if report.summary:
        lines.append(one_line(report.summary))
    return ("\n".join(lines) + "\n").encode()
