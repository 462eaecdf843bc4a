"""What `probe --client` found, as a `Report` (`ci/report.py`).

* JUnit: one suite, a test case per case (classname `mcptape.probe.client`): FAIL is a `<failure>`,
  inconclusive an `<error type="inconclusive">`, n/a and not run `<skipped>`, the rest's words in
  `<system-out>`, the client's stderr in `<system-err>`;
* SARIF and annotations: a result per case that ran and did not pass (rule `client-probe/CASE`;
  `error` for FAIL and inconclusive, `warning` for a warning), located at the case's transcript
  (what `serve -o` recorded of the session): the line where the hard output was written, or the
  file as a whole when it was not played. The rules are the run's cases, described from the case
  table (`serve/inject.py`) and the verdicts `serve/judge.py` gives each outcome.
"""

from __future__ import annotations

import shlex
from dataclasses import replace
from pathlib import Path
from typing import Any

from mcptape.commands.ci.findings import file_line
from mcptape.commands.ci.report import ERROR, FAILURE, SKIPPED, Case, Report, Result, Rule, Suite, Where
from mcptape.errors import TranscriptError
from mcptape.serve.clientprobe import START, ClientProbe, ClientResult
from mcptape.serve.clientreport import summary_line
from mcptape.serve.injectcases import Case as InjectCase
from mcptape.serve.judge import ERROR as REPORTED
from mcptape.serve.judge import (
    FAIL,
    HUNG,
    INCONCLUSIVE,
    NA,
    OUTCOME_TEXT,
    PASS,
    TOLERANT,
    WARN,
    WRONG,
    verdict,
)
from mcptape.transcript.reader import open_transcript

CLASSNAME = "mcptape.probe.client"
LEVEL = {FAIL: "error", INCONCLUSIVE: "error", WARN: "warning"}
OUTCOMES = (REPORTED, TOLERANT, WRONG, HUNG)  # what the client probe tells apart (exit, output, time limit)
EARLY = 1e-6  # a written record's time is rounded to the microsecond


def client_probe_report(probe: ClientProbe) -> Report:
    """`probe --client`'s report: a suite of its cases, a result per case that did not pass."""
    client = shlex.join(probe.plan.client)
    suite = Suite(
        f"mcptape probe --client: {client}",
        seconds=probe.seconds,
        properties={"client": client, "transcript": str(probe.plan.transcript)},
    )
    report = Report("probe --client", [suite])
    for result in probe.results:
        suite.cases.append(_case(result))
        level = LEVEL.get(result.verdict)
        if level is None or not result.ran:
            continue
        report.results.append(
            Result(
                f"client-probe/{result.case.id}",
                level,
                f"mcptape probe --client: {result.case.id} {result.verdict}",
                _text(result),
                _where(result, probe.plan.transcript),
                properties={"verdict": result.verdict, "exit": result.run.exit, "hung": result.run.hung},
            )
        )
    report.rules = [case_rule(r.case) for r in probe.results]
    report.summary = f"mcptape probe --client: {summary_line(probe)}"
    return report


def case_rule(case: InjectCase) -> Rule:
    """A case of the table as a rule: its title, what each thing the client may do is judged, and
    the level of the worst of those verdicts."""
    rule = f"client-probe/{case.id}"
    if case is START:
        return Rule(
            rule,
            case.title,
            f"{case.title}: the client must exit 0 with every request answered from the recording; "
            "otherwise no case is run. See docs/serve.md.",
            "error",
        )
    judged = {outcome: verdict(case, outcome) for outcome in OUTCOMES}
    kind = "valid traffic a client must take" if case.legal else "output that is not valid traffic"
    parts = [f"{OUTCOME_TEXT[outcome]}: {judged[outcome]}" for outcome in OUTCOMES]
    help_text = f"{case.title} ({kind}). What the client did, judged: {'; '.join(parts)}."
    if not case.legal:
        help_text += f" Going on is tolerant: it {case.tolerated}."
    help_text += " See docs/serve.md."
    level = "error" if FAIL in judged.values() else "warning"
    return Rule(rule, case.title, help_text, level, {"legal": case.legal})


def _text(result: ClientResult) -> str:
    """What the case is, its verdict, what the client did and why (as the table's details)."""
    return "\n".join([f"{result.case.title}: {result.verdict}", f"did: {result.did}", *result.reasons])


def _case(result: ClientResult) -> Case:
    run = result.run
    text = "\n".join([result.case.title, f"did: {result.did}", *result.reasons])
    case = Case(
        result.case.id,
        CLASSNAME,
        seconds=run.seconds,
        where=Where(str(run.transcript)) if run.transcript is not None and run.transcript.exists() else None,
        stderr=run.stderr.decode("utf-8", "backslashreplace") if run.stderr else "",
    )
    if not result.ran or result.verdict == NA:
        return replace(case, outcome=SKIPPED, message=result.did)
    if result.verdict == FAIL:
        return replace(
            case, outcome=FAILURE, message=result.reasons[0] if result.reasons else result.did, text=text
        )
    if result.verdict == INCONCLUSIVE:
        return replace(case, outcome=ERROR, message=result.did, text=text, kind="inconclusive")
    assert result.verdict in (PASS, WARN), result.verdict
    return replace(case, stdout=text)


def _where(result: ClientResult, recorded: Path) -> Where:
    """The case's served transcript, at the line where the hard output was written when it was
    played; the recorded transcript when serve never ran (the client did not start it)."""
    path = result.run.transcript
    if path is None or not path.exists():
        return Where(str(recorded))
    return Where(str(path), _played_line(path, result.run.report))


def _played_line(path: Path, report: dict[str, Any] | None) -> int | None:
    """The file line of the first stdout record written when the case was played (serve's report
    gives that time, on the clock of the transcript it wrote)."""
    inject = (report or {}).get("inject") or []
    at = inject[0].get("at") if inject and isinstance(inject[0], dict) else None
    t = at.get("t") if isinstance(at, dict) else None
    if not isinstance(t, (int, float)):
        return None
    try:
        for event in open_transcript(path).events():
            if event.ch == "out" and event.t >= t - EARLY:
                return file_line(event.index)
    except TranscriptError:
        return None
    return None
