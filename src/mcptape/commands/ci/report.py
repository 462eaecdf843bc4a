"""What a command found, in the terms the report formats share: a `Report` of JUnit suites of test
cases (what a CI counts as passed or failed) and results (one per finding: a rule, a level, a
message, a place in a transcript file), with the rules they cite. The adapters beside this module
(`check.py`, `replay.py`, `probe.py`, `client.py`, `tools.py`) build one from a command's result;
the writers (`writers.py`) and the table of formats (`commands/outputs.py`) read it.

Every string a report holds goes through `textsafe`'s one definition of unsafe text once more when
it is written (`safe`, `one_line`, `xml_text`): a transcript's bytes were escaped by the adapters,
and nothing else may reach a CI page that would hide, reorder or drive what its reader sees.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcptape.textsafe import escape_controls, has_unsafe

LEVELS = ("error", "warning", "note")  # SARIF's result levels (GitHub: error, warning, notice)
PASSED, FAILURE, ERROR, SKIPPED = "passed", "failure", "error", "skipped"


@dataclass(frozen=True)
class Rule:
    """What a result cites: a rule's id, its one-line summary, a longer help, its default level."""

    id: str
    summary: str
    help: str
    level: str
    properties: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Where:
    """A place in a file: its path as given, and its 1-based line (None: the file as a whole)."""

    path: str
    line: int | None = None
    note: str = ""  # what is there (a related location's message)


@dataclass(frozen=True)
class Result:
    """One finding: one SARIF result, one annotation."""

    rule: str
    level: str
    title: str  # one line (the annotation's title)
    message: str  # may hold several lines
    where: Where | None = None
    related: tuple[Where, ...] = ()
    properties: dict[str, Any] = field(default_factory=dict)
    suppressed: str | None = None  # accepted by the team (a probe baseline): the justification


@dataclass(frozen=True)
class Case:
    """One JUnit test case: PASSED, FAILURE, ERROR or SKIPPED, with a one-line `message` and a body."""

    name: str
    classname: str
    outcome: str = PASSED
    message: str = ""
    text: str = ""
    kind: str = ""  # the failure's or error's `type`
    seconds: float | None = None
    where: Where | None = None
    stdout: str = ""
    stderr: str = ""


@dataclass
class Suite:
    """One JUnit test suite: a transcript's check, a replay, a probe run."""

    name: str
    cases: list[Case] = field(default_factory=list)
    seconds: float | None = None
    properties: dict[str, str] = field(default_factory=dict)


@dataclass
class Report:
    """What one command run found, in the terms the CI formats share."""

    command: str  # "check", "replay", "probe"
    suites: list[Suite] = field(default_factory=list)
    results: list[Result] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # what stopped part of the run (unreadable)
    summary: str = ""  # one line, the end of `--format github`


# -- text safety ----------------------------------------------------------------------------------
_XML_NONCHARACTERS = str.maketrans({0xFFFE: "\\ufffe", 0xFFFF: "\\uffff"})


def safe(text: str) -> str:
    """`text` with every unsafe character (textsafe's one definition) escaped, except the newlines
    and tabs that lay out a message's lines."""
    if not has_unsafe(text, "\n\t"):
        return text
    return "\n".join("\t".join(map(escape_controls, line.split("\t"))) for line in text.split("\n"))


def one_line(text: str) -> str:
    """`text` on one safe line (a title, an attribute, a property)."""
    return escape_controls(text)


def xml_text(text: str) -> str:
    """`safe` text for XML, which cannot hold U+FFFE and U+FFFF either (noncharacters textsafe
    leaves visible)."""
    return safe(text).translate(_XML_NONCHARACTERS)


def xml_line(text: str) -> str:
    return one_line(text).translate(_XML_NONCHARACTERS)
