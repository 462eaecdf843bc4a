"""Helpers for the probe's tests: run the probe in-process against a test server."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mcptape.probe.cases import BY_ID, CASES
from mcptape.probe.judge import CaseResult
from mcptape.probe.plan import Plan
from mcptape.probe.runner import ProbeResult, run_probe
from tests.conftest import PYTHON, SERVERS

PB_SERVER = [PYTHON, str(SERVERS / "pb_server.py")]


def probe(
    out: Path,
    command: Sequence[str],
    *,
    cases: Sequence[str] | None = None,
    timeout: float = 3.0,
    **options: Any,
) -> tuple[ProbeResult, list[str]]:
    """Run the probe on `command` (all cases, or `start` plus `cases`, "tools" naming the per-tool
    hard inputs); return it and its progress lines."""
    chosen = (
        CASES
        if cases is None
        else [BY_ID["start"], *(BY_ID[c] for c in cases if c not in ("start", "tools"))]
    )
    options.setdefault("every_tool", cases is None or "tools" in cases)
    lines: list[str] = []
    plan = Plan(list(command), out, timeout=timeout, idle=0.2, cases=chosen, **options)
    return run_probe(plan, progress=lines.append), lines


def by_id(result: ProbeResult) -> dict[str, CaseResult]:
    return {r.case.id: r for r in result.results}
