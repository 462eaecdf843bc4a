"""The client probe's reports: a table like the server probe's, and JSON. JUnit XML, SARIF and
GitHub annotations are the report formats' (`commands/outputs.py`, fed by `commands/ci/client.py`).

Every byte the client wrote goes through `textsafe` before it reaches a terminal.
"""

from __future__ import annotations

import shlex
from typing import Any

from mcptape.serve.clientprobe import ClientProbe, ClientResult, summary_counts
from mcptape.serve.judge import FAIL, INCONCLUSIVE, NA, PASS, WARN
from mcptape.textsafe import escape, escape_text


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
