"""`mcptape check FILE... [--json]`: the verdict on transcripts (exit 0 clean, 1 findings, 2 unreadable)."""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING

import click

from mcptape.commands.output import write, write_json
from mcptape.commands.outputs import Outputs, report_options
from mcptape.errors import EXIT_ERROR, EXIT_FINDINGS

if TYPE_CHECKING:
    from mcptape.check.model import Analysis, Finding
    from mcptape.commands.ci.check import Checked
    from mcptape.surface.findings import SessionSurface
    from mcptape.surface.model import Surface


@click.command(
    "check",
    epilog="""\b
Examples:
  mcptape check session.jsonl                    # the report: first bad line, findings, stderr
  mcptape check session.jsonl --json | jq .clean # one JSON object for CI
  mcptape check session.jsonl --policy request   # a server that keeps serving after a bad line
  mcptape check tapes/*.jsonl                    # several: one report each, then a summary line
  mcptape check tapes/                           # every *.jsonl under a folder
  mcptape check tapes/ --format github --sarif mcptape.sarif --junit mcptape.xml   # CI (docs/ci.md)""",
)
@click.argument("files", metavar="FILE|FOLDER...", nargs=-1, required=True)
@click.option(
    "--policy",
    type=click.Choice(["session", "request"]),
    default="session",
    show_default=True,
    help="After a rejected input line: `session` flags every later executor call (the peer lost "
    "framing; nothing may run), `request` only calls no valid request accounts for.",
)
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning", "info"]),
    default="warning",
    show_default=True,
    help="The lowest severity that makes the exit code 1 (info: a client mistake the server handled).",
)
@click.option(
    "--party",
    type=click.Choice(["server", "client"]),
    help="Only findings of this party count for the exit code (who broke the rule); an incomplete "
    "recording (party capture) always counts.",
)
@report_options(
    json_help="Print one JSON object (schema in docs/check.md); with several files, one per line, "
    'each with its "file" (or "file" and "error" when it cannot be read).',
    format_help="What stdout gets: the report, JSON (as --json), or GitHub workflow annotations (one "
    "::error/::warning/::notice line per finding, at its transcript line) and a summary line.",
    each={"junit": "a test case per finding", "sarif": "a result per finding"},
)
@click.option(
    "--tools-lock",
    "tools_lock",
    metavar="FILE",
    help="Also compare each session's tool surface with this lock (mcptape tools lock): a breaking "
    "change is an error, a rewritten description a warning (rule tools-lock; docs/tools.md).",
)
def check_command(
    files: tuple[str, ...],
    policy: str,
    outputs: Outputs,
    fail_on: str = "warning",
    party: str | None = None,
    tools_lock: str | None = None,
) -> None:
    """Check transcripts: the first non-protocol line per direction, protocol violations,
    unanswered and duplicate ids, executor calls after a reject, and a tool surface that changed
    during the session (or from --tools-lock).

    \b
    Exit codes: 0 clean, 1 findings (errors and warnings; see --fail-on and --party), 2 unreadable
    input (with several files: the worst of them; an unreadable one is reported and the others are
    still checked).
    """
    mode = outputs.mode
    gate = (fail_on, party)
    lock = _read_lock(tools_lock)
    folders = [f for f in files if os.path.isdir(f)]
    if folders:
        files = _expand(files)
    ci: CiRun | None = None
    if outputs.report:
        outputs.check(files)  # before any work: a typo fails at once
        ci = CiRun()
    if len(files) == 1 and not folders:
        ok = _check_one(files[0], mode, policy, gate=gate, ci=ci, lock=lock)
        _ci_outputs(ci, outputs, gate)
        if not ok:
            # SystemExit, not ctx.exit: click's non-standalone mode turns ctx.exit(n) into a return.
            raise SystemExit(EXIT_FINDINGS)
        return
    outcomes = _check_several(files, mode, policy, gate, ci, lock)
    _ci_outputs(ci, outputs, gate)
    if outcomes[UNREADABLE]:
        raise SystemExit(EXIT_ERROR)
    if outcomes[Outcome.FAILING]:
        raise SystemExit(EXIT_FINDINGS)


UNREADABLE = "unreadable"


def _check_several(
    files: tuple[str, ...],
    mode: str,
    policy: str,
    gate: tuple[str, str | None],
    ci: CiRun | None,
    lock: tuple[Surface, str] | None,
) -> Counter[Outcome | str]:
    """Check each file and print its report (an unreadable one is said and the others checked),
    then the summary line; how many of each outcome."""
    from mcptape.errors import TranscriptError
    from mcptape.textsafe import escape_controls, escape_text

    outcomes: Counter[Outcome | str] = Counter()
    for number, file in enumerate(files):
        if number and mode == "text":
            write("\n")
        try:
            outcomes[_check_one(file, mode, policy, several=True, gate=gate, ci=ci, lock=lock)] += 1
        except TranscriptError as exc:  # this one cannot be read: say so, check the others
            outcomes[UNREADABLE] += 1
            if mode == "json":
                write_json({"file": escape_controls(file), "error": escape_controls(str(exc))}, indent=False)
            elif mode == "text":
                write(f"mcptape check: {escape_text(file)}\n  unreadable: see the error below\n")
            if ci is not None:
                ci.unreadable.append((file, str(exc)))
            exc.show()
    if mode == "text":
        below = outcomes[Outcome.PASSING]
        passing = f"{below} passing with findings below the gate, " if below else ""
        summary = (
            f"{outcomes[Outcome.CLEAN]} clean, {passing}{outcomes[Outcome.FAILING]} with findings, "
            f"{outcomes[UNREADABLE]} unreadable"
        )
        write(f"\n{len(files)} transcripts: {summary}\n")
    return outcomes


def _read_lock(path: str | None) -> tuple[Surface, str] | None:
    """The --tools-lock surface and its name, read before any work (LockError: exit 2)."""
    if path is None:
        return None
    from mcptape.surface.lockfile import read_lock
    from mcptape.textsafe import escape_controls

    return read_lock(path), escape_controls(path)


def _expand(paths: tuple[str, ...]) -> tuple[str, ...]:
    """Each folder replaced by the `*.jsonl` files under it, sorted (as `replay FOLDER` takes them)."""
    from pathlib import Path

    from mcptape.errors import UsageError

    out: list[str] = []
    for path in paths:
        if not os.path.isdir(path):
            out.append(path)
            continue
        found = sorted(str(p) for p in Path(path).rglob("*.jsonl") if p.is_file())
        if not found:
            raise UsageError(f"no *.jsonl transcript under {path}", hint="record one with mcptape record")
        out.extend(found)
    return tuple(out)


FAILING = {"error": ("error",), "warning": ("error", "warning"), "info": ("error", "warning", "info")}


def counts(finding: Finding, gate: tuple[str, str | None]) -> bool:
    """Does `finding` fail the gate: severity at least `gate[0]`, of party `gate[1]` when given?
    A cut recording counts whatever the party: no gate may pass what it could not read whole."""
    fail_on, party = gate
    return finding.severity in FAILING[fail_on] and (
        party is None or finding.party == party or finding.party == "capture"
    )


@dataclass
class CiRun:
    """What the CI formats need of a run: every transcript checked, every one that was not."""

    checked: list[Checked] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)


def _ci_outputs(ci: CiRun | None, outputs: Outputs, gate: tuple[str, str | None]) -> None:
    """Write the report's files (--junit, --sarif) and its stdout format (--format github) from what
    was checked."""
    if ci is None:
        return
    from mcptape.commands.ci.check import check_report

    outputs.write(check_report(ci.checked, ci.unreadable, lambda finding: counts(finding, gate)))


def _check_one(
    file: str,
    mode: str,
    policy: str,
    *,
    several: bool = False,
    gate: tuple[str, str | None] = ("warning", None),
    ci: CiRun | None = None,
    lock: tuple[Surface, str] | None = None,
) -> Outcome:
    """Check one transcript and print its report; true when no finding fails the gate (severity
    at least `gate[0]`, of party `gate[1]` when given): CLEAN without any finding, else PASSING;
    raises TranscriptError when unreadable."""
    from mcptape.check.analyze import analyze_file
    from mcptape.check.report import render_text, to_json
    from mcptape.surface.findings import SessionSurface

    progress = _progress_line(file)
    started = time.monotonic()
    surface = SessionSurface()  # the tool surface, watched as the analysis goes (docs/tools.md)
    try:
        header, analysis = analyze_file(file, policy=policy, progress=progress, watch=surface)
    finally:
        if progress is not None:
            sys.stderr.write("\r\x1b[K")  # erase the progress line before the report
            sys.stderr.flush()
    _add_surface_findings(analysis, surface, lock)
    if ci is not None:
        from mcptape.commands.ci.check import Checked

        ci.checked.append(Checked(file, analysis, header.command, time.monotonic() - started))
    if mode == "json":
        from mcptape.textsafe import escape_controls

        document = to_json(analysis, header)
        if several:  # JSON Lines: a compact object per file
            write_json({"file": escape_controls(file), **document}, indent=False)
        else:
            write_json(document)
    elif mode == "text":
        write(render_text(analysis, header, file))
    # else a report format on stdout (--format github): every file's, at the end (_ci_outputs)
    counted = [f for f in analysis.findings if counts(f, gate)]
    if counted or (analysis.findings_truncated and analysis.errors_truncated):
        return Outcome.FAILING
    return Outcome.CLEAN if not analysis.findings and not analysis.findings_truncated else Outcome.PASSING


def _add_surface_findings(
    analysis: Analysis, surface: SessionSurface, lock: tuple[Surface, str] | None
) -> None:
    """The surface's findings (in-session drift, the --tools-lock comparison) join the analysis's,
    kept and counted as its own are."""
    from mcptape.check.findings import Findings
    from mcptape.check.model import Callbacks

    found, notes = surface.findings(*lock) if lock is not None else surface.findings()
    findings = Findings(analysis, Callbacks())
    for one in found:
        findings.add(one)
    analysis.notes.extend(notes)


class Outcome(Enum):
    """One file's verdict against the gate; true unless it fails it."""

    CLEAN = "clean"  # no finding at all
    PASSING = "passing"  # findings, none failing the gate (info, or below --fail-on)
    FAILING = "failing"

    def __bool__(self) -> bool:
        return self is not Outcome.FAILING


PROGRESS_FROM = 32 << 20  # files smaller than this are checked before anyone would wait


def _progress_line(file: str) -> Callable[[int], None] | None:
    """A `progress` callback drawing one self-erasing line on stderr, for a long file on a terminal."""
    import os

    try:
        size = os.path.getsize(file)
    except OSError:
        return None
    if size < PROGRESS_FROM or not sys.stderr.isatty():
        return None
    shown = -1

    def progress(done: int) -> None:
        nonlocal shown
        percent = min(100, done * 100 // size)
        if percent != shown:
            shown = percent
            try:  # best-effort: a terminal that went away loses the line, never the check
                sys.stderr.write(f"mcptape check: {percent:3d}% of {size >> 20} MiB\r")
                sys.stderr.flush()
            except OSError:
                pass

    return progress
