"""The clean start's variations of environment and working directory, run together in one process.

`start-warnings` (PYTHONWARNINGS=always, PYTHONDEVMODE=1), `start-verbose-env` (DEBUG=* and the
other debug variables) and `start-empty-cwd` (an empty working directory and XDG_CONFIG_HOME) each
make the server's process different, so none can share a process with a hard input. They can share
one with each other: the server starts once with every variation at once (`start-variations.jsonl`)
and does the clean start (handshake, tools/list, the valid call, exit). A server that keeps stdout
protocol-only and exits cleanly under all of them at once passes each; one that does not is run
again under each variation alone (`<case>.jsonl`), so each case's verdict is its own variation's.
That saves two server start-ups in the run that passes (a Python SDK server's is most of a probe's
CPU) and costs three in the one that does not. What it changes: two variations could in principle
hide each other (a server that logs on stdout under DEBUG=* only when it finds its config file in
the working directory passes together and fails start-verbose-env alone); `--case ID` runs one
variation alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from mcptape.probe.cases import START, Case, title_for
from mcptape.probe.judge import CaseResult, judge
from mcptape.probe.observed import Verdict
from mcptape.probe.plan import Plan
from mcptape.probe.ready import Ready
from mcptape.probe.sessions import run_case

TOGETHER = "start-variations"  # the case and transcript of the variations run together


def varies_the_process(case: Case) -> bool:
    """A clean start whose variation is its server's environment or working directory."""
    return case.group == START and (bool(case.env) or case.empty_cwd) and not (case.idle or case.discover)


def together(cases: Sequence[Case]) -> Case:
    """One clean start with every variation of `cases` at once."""
    env: dict[str, str] = {}
    for case in cases:
        env.update(case.env)
    names = ", ".join(case.id for case in cases)
    return Case(
        TOGETHER,
        START,
        f"clean start ({{request}}) with the variations of {names} at once",
        env=env,
        empty_cwd=any(case.empty_cwd for case in cases),
    )


def run_variations(
    cases: Sequence[Case], plan: Plan, ready: Ready, rank: int | None = None
) -> list[CaseResult]:
    """The variations in one server process; when they do not pass together, each again alone."""
    observed = run_case(together(cases), plan, ready=ready, rank=rank)
    if observed is None:
        return []  # the clean start failed: not run
    shared = judge(observed, None)
    if shared.verdict is Verdict.PASS:
        plan.reach.share(TOGETHER, [case.id for case in cases])  # the reach table names cases
        others = {case.id: ", ".join(c.id for c in cases if c is not case) for case in cases}
        return [
            replace(
                shared,
                case=case,
                title=f"{title_for(case, observed.call)} (in one process with {others[case.id]})",
                reasons=list(shared.reasons),
                findings=list(shared.findings),
            )
            for case in cases
        ]
    results: list[CaseResult] = []
    for case in cases:
        alone = run_case(case, plan, ready=ready)
        if alone is None:
            continue
        result = judge(alone, None)
        result.did = f"{result.did} (run alone: the variations together did not pass, {observed.path.name})"
        results.append(result)
    return results
