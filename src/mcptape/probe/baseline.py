"""Accepted deviations: a baseline the team commits, so a known, understood deviation does not turn
the gate off and everything else still fails.

`probe --write-baseline FILE` writes every case that did not pass (FAIL, inconclusive, warning),
one entry each, sorted by case id:

    {"mcptape_probe_baseline": 1,
     "accepted": [{"case": "invalid-utf8", "tool": "echo", "verdict": "FAIL", "actions": 0,
                   "seen": "accepted it (answered with a result); ...", "reason": ""}]}

`reason` is the team's to fill (why this is accepted); `seen` is what the server did when it was
written; `tool` is the tool the case's frames named (when exactly one), `actions` its executor
calls and HTTP attempts. `probe --baseline FILE` turns each case that matches an entry into
`accepted`: same case id, same tool (when the entry names one), the same verdict, and no more
actions than the entry. Anything else that did not pass stands: a new case, a worse verdict
(a warning that became a failure), a new action. An entry whose case ran and no longer deviates as
written (it passes, or it changed) is **stale**: reported, so the team removes it, never a failure.
"""

from __future__ import annotations

import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from mcptape.errors import UsageError
from mcptape.probe.judge import CaseResult
from mcptape.probe.observed import Verdict
from mcptape.textsafe import escape_controls

FORMAT_KEY = "mcptape_probe_baseline"
RECORDED = (Verdict.FAIL, Verdict.INCONCLUSIVE, Verdict.WARN)  # what a baseline can accept
RANK = {Verdict.WARN: 1, Verdict.INCONCLUSIVE: 2, Verdict.FAIL: 3}
HINT = 'a JSON object {"mcptape_probe_baseline": 1, "accepted": [{"case": ..., "reason": ...}]}'


@dataclass(frozen=True)
class Entry:
    """One accepted deviation."""

    case: str
    verdict: Verdict
    tool: str | None = None
    actions: int = 0
    reason: str = ""
    seen: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "case": self.case,
            "tool": self.tool,
            "verdict": self.verdict.value,
            "actions": self.actions,
            "seen": self.seen,
            "reason": self.reason,
        }


def load(path: Path) -> list[Entry]:
    """The entries of the baseline at `path`; a usage error (one line) when it is not one."""
    name = escape_controls(str(path))
    try:
        if path.exists() and not path.is_dir() and not stat.S_ISREG(path.stat().st_mode):
            # before open(): a FIFO with no writer would block it
            raise UsageError(f"--baseline {name}: not a regular file (a pipe, socket or device)", hint=HINT)
        data = path.read_bytes()
    except OSError as exc:
        raise UsageError(
            f"--baseline {name}: {exc.strerror or exc}", hint="write one with --write-baseline FILE"
        ) from None
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise UsageError(f"--baseline {name}: not valid JSON ({exc})", hint=HINT) from None
    if not isinstance(document, dict) or document.get(FORMAT_KEY) != 1:
        raise UsageError(f"--baseline {name}: not an mcptape probe baseline (no {FORMAT_KEY}: 1)", hint=HINT)
    accepted = document.get("accepted")
    if not isinstance(accepted, list):
        raise UsageError(f"--baseline {name}: 'accepted' is not a list", hint=HINT)
    return [_entry(name, n, item) for n, item in enumerate(accepted)]


def _entry(name: str, n: int, item: Any) -> Entry:
    where = f"--baseline {name}: accepted[{n}]"
    if not isinstance(item, dict) or not isinstance(item.get("case"), str) or not item["case"]:
        raise UsageError(f"{where} has no case id", hint=HINT)
    verdicts = {v.value: v for v in RECORDED}
    verdict = item.get("verdict", Verdict.FAIL.value)
    if type(verdict) is not str or verdict not in verdicts:
        shown = escape_controls(repr(verdict[:40])) if type(verdict) is str else "not a string"
        raise UsageError(f"{where}: verdict {shown} is not one of {', '.join(verdicts)}", hint=HINT)
    tool, actions, reason = item.get("tool"), item.get("actions", 0), item.get("reason", "")
    if tool is not None and not isinstance(tool, str):
        raise UsageError(f"{where}: tool is not a string", hint=HINT)
    if isinstance(actions, bool) or not isinstance(actions, int) or actions < 0:
        raise UsageError(f"{where}: actions is not a count", hint=HINT)
    if not isinstance(reason, str):
        raise UsageError(f"{where}: reason is not a string", hint=HINT)
    seen = item.get("seen", "")
    return Entry(
        item["case"], verdicts[verdict], tool, actions, reason, seen if isinstance(seen, str) else ""
    )


def entry_for(result: CaseResult, tools: list[str], reason: str = "") -> Entry:
    """The baseline entry of a case that did not pass (`tools`: the tools its frames named)."""
    verdict = result.was or result.verdict
    tool = tools[0] if len(tools) == 1 else None
    return Entry(result.case.id, verdict, tool, result.executed + result.http, reason, result.did)


def apply(entries: list[Entry], results: list[CaseResult], reached: dict[str, list[str]]) -> list[Entry]:
    """Mark each result an entry accepts as `accepted`; return the stale entries (their case ran and
    no longer deviates as written). `reached`: case id -> the tools its frames named."""
    by_case: dict[str, list[Entry]] = {}
    for entry in entries:
        by_case.setdefault(entry.case, []).append(entry)
    used: set[int] = set()
    ran: set[str] = set()
    for result in results:
        if not result.ran:
            continue
        ran.add(result.case.id)
        if result.verdict not in RECORDED:
            continue
        for entry in by_case.get(result.case.id, []):
            if entry.tool is not None and entry.tool not in reached.get(result.case.id, []):
                continue  # the case rode on another tool: another deviation
            if entry.verdict is result.verdict and result.executed + result.http <= entry.actions:
                accept(result, entry)
                used.add(id(entry))
                break
            if RANK[result.verdict] > RANK[entry.verdict] or result.executed + result.http > entry.actions:
                result.reasons.insert(
                    0,
                    f"worse than the baseline: {entry.verdict.value} with {entry.actions} action(s) "
                    f"accepted, {result.verdict.value} with {result.executed + result.http} now",
                )
                used.add(id(entry))  # it still happens, worse: not stale
                break
    return [e for e in entries if id(e) not in used and e.case in ran]


def accept(result: CaseResult, entry: Entry) -> None:
    """`result` is an accepted deviation: its verdict becomes `accepted`, the old one is kept."""
    result.was = result.verdict
    result.verdict = Verdict.ACCEPTED
    result.accepted = entry.reason or "accepted in the baseline (no reason given)"


def document(results: list[CaseResult], reached: dict[str, list[str]], previous: list[Entry]) -> bytes:
    """The baseline of this run: an entry per case that did not pass, sorted by case id; a reason
    already given for the same case and tool in `previous` (--baseline) is kept."""
    reasons = {(e.case, e.tool): e.reason for e in previous}
    entries = []
    for result in results:
        if not result.ran or (result.was or result.verdict) not in RECORDED:
            continue
        entry = entry_for(result, reached.get(result.case.id, []))
        reason = reasons.get((entry.case, entry.tool), reasons.get((entry.case, None), ""))
        entries.append(Entry(entry.case, entry.verdict, entry.tool, entry.actions, reason, entry.seen))
    entries.sort(key=lambda e: (e.case, e.tool or ""))
    body = {FORMAT_KEY: 1, "accepted": [e.to_json() for e in entries]}
    return orjson.dumps(body, option=orjson.OPT_INDENT_2) + b"\n"
