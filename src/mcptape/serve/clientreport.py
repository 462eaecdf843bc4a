"""The client probe's reports: a table like the server probe's, JSON, and JUnit XML.

Every byte the client wrote goes through `textsafe` before it reaches a terminal; XML carries text
escaped by its own rules (and through `textsafe` when it holds a character XML cannot).
"""

from __future__ import annotations

import shlex
from typing import Any
from xml.etree import ElementTree as ET

from mcptape.serve.clientprobe import ClientProbe, ClientResult, summary_counts
from mcptape.serve.judge import FAIL, INCONCLUSIVE, NA, PASS, WARN
from mcptape.textsafe import escape, escape_text, has_unsafe


def summary_line(probe: ClientProbe) -> str:
    tally = summary_counts(probe.results)
    skipped = sum(1 for r in probe.results if not r.ran)
    parts = [f"{tally[PASS]} passed", f"{tally[WARN]} warnings", f"{tally[FAIL] - skipped} failed"]
    if skipped:
        parts.append(f"{skipped} not run")
    if tally[INCONCLUSIVE]:
        parts.append(f"{tally[INCONCLUSIVE]} inconclusive")
    if tally[NA]:
        parts.append(f"{tally[NA]} not applicable")
    head = "FAIL" if tally[FAIL] else "INCONCLUSIVE" if tally[INCONCLUSIVE] else "ok"
    return f"{head}: {', '.join(parts)} in {probe.seconds:.1f}s"


def render_table(probe: ClientProbe) -> str:
    """One row per case, then the details of what did not pass."""
    plan = probe.plan
    rows = [(escape_text(r.case.id), r.verdict, escape_text(r.did)) for r in probe.results]
    width = max(len("case"), *(len(r[0]) for r in rows))
    vwidth = max(len("verdict"), *(len(r[1]) for r in rows))
    lines = [
        f"mcptape probe --client: {escape_text(shlex.join(plan.client))}",
        f"served: {escape_text(str(plan.transcript))} (as `mcptape serve ...`, the client's last arguments)",
        "",
        f"{'case':<{width}}  {'verdict':<{vwidth}}  what the client did",
        f"{'-' * width}  {'-' * vwidth}  {'-' * 19}",
    ]
    lines += [f"{case:<{width}}  {verdict:<{vwidth}}  {did}" for case, verdict, did in rows]
    details = [r for r in probe.results if r.verdict in (FAIL, WARN, INCONCLUSIVE) and r.ran]
    if details:
        lines.append("")
    for result in details:
        lines.append(f"{escape_text(result.case.id)} ({result.verdict}): {escape_text(result.case.title)}")
        lines += [f"  - {escape_text(reason)}" for reason in result.reasons]
        if result.run.stderr:
            first = result.run.stderr.strip().split(b"\n", 1)[0]
            lines.append(f"  client stderr: {escape(first, 100)}")
        if result.run.transcript is not None:
            lines.append(f"  transcript: {escape_text(str(result.run.transcript))}   (mcptape view it)")
    lines += ["", summary_line(probe)]
    return "\n".join(lines) + "\n"


def case_json(result: ClientResult) -> dict[str, Any]:
    run = result.run
    return {
        "id": result.case.id,
        "title": result.case.title,
        "legal": result.case.legal,
        "verdict": result.verdict,
        "ran": result.ran,
        "did": result.did,
        "reasons": result.reasons,
        "exit": run.exit,
        "hung": run.hung,
        "seconds": round(run.seconds, 3),
        "stdout": run.stdout.decode("utf-8", "backslashreplace"),
        "stderr_head": run.stderr[:4096].decode("utf-8", "backslashreplace"),
        "transcript": str(run.transcript) if run.transcript is not None else None,
        "serve": run.report,
    }


def to_json(probe: ClientProbe) -> dict[str, Any]:
    return {
        "client": probe.plan.client,
        "transcript": str(probe.plan.transcript),
        "out_dir": str(probe.plan.out_dir),
        "failed": probe.failed,
        "counts": summary_counts(probe.results),
        "seconds": round(probe.seconds, 3),
        "cases": [case_json(r) for r in probe.results],
    }


def junit_xml(probe: ClientProbe) -> bytes:
    """One testcase per case (`mcptape.probe.client`): failures as <failure>, inconclusive as
    <error>, n/a and not run as <skipped>, the rest's words in <system-out>, the client's stderr in
    <system-err>."""
    tally = summary_counts(probe.results)
    skipped = sum(1 for r in probe.results if not r.ran)
    suite = ET.Element(
        "testsuite",
        name="mcptape probe --client",
        tests=str(len(probe.results)),
        failures=str(tally[FAIL] - skipped),
        errors=str(tally[INCONCLUSIVE]),
        skipped=str(tally[NA] + skipped),
        time=f"{probe.seconds:.3f}",
    )
    props = ET.SubElement(suite, "properties")
    ET.SubElement(props, "property", name="client", value=_safe(shlex.join(probe.plan.client)))
    for result in probe.results:
        case = ET.SubElement(
            suite,
            "testcase",
            classname="mcptape.probe.client",
            name=result.case.id,
            time=f"{result.run.seconds:.3f}",
        )
        text = "\n".join([result.case.title, f"did: {result.did}", *result.reasons])
        if not result.ran or result.verdict == NA:
            ET.SubElement(case, "skipped", message=_safe(result.did))
        elif result.verdict == FAIL:
            failure = ET.SubElement(
                case, "failure", message=_safe(result.reasons[0] if result.reasons else result.did)
            )
            failure.text = _safe(text)
        elif result.verdict == INCONCLUSIVE:
            error = ET.SubElement(case, "error", message=_safe(result.did), type="inconclusive")
            error.text = _safe(text)
        else:
            ET.SubElement(case, "system-out").text = _safe(text)
        if result.run.stderr:
            ET.SubElement(case, "system-err").text = _safe(
                result.run.stderr.decode("utf-8", "backslashreplace")
            )
    ET.indent(suite)
    body: bytes = ET.tostring(suite, encoding="utf-8", xml_declaration=False)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + body + b"\n"


def _safe(text: str) -> str:
    """Text XML 1.0 can hold and a CI page shows as it is (textsafe's one definition)."""
    return escape_text(text) if has_unsafe(text, "\n\t") else text
