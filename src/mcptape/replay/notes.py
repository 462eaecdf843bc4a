"""What a replay report says besides the differences: what was not compared (and what differed
there), the server-minted values the replay substituted, and what made two sessions differ, in one
line. Text here; the JSON members are built in `render`.
"""

from __future__ import annotations

from typing import Any

from mcptape.diff.ignore import render_path
from mcptape.diff.sessions import Diff
from mcptape.replay.outcome import HELD_CALLS, Issue, Substitution
from mcptape.replay.titles import VALUE_LIMIT, pair_title, show_value, source_title, value_of
from mcptape.textsafe import escape, escape_text

MAX_LINES = 10
NEWLINE = b"\n"


def stderr_lines(diff: Diff) -> list[str]:
    """The stderr lines that differ, new then gone (at most MAX_LINES of each)."""
    out: list[str] = []
    for sign, lines, what in (("+", diff.stderr_added, "new"), ("-", diff.stderr_removed, "gone")):
        if lines:
            out.append(f"stderr: {len(lines)} {what} line(s)")
            out.extend(
                f"  {sign} {escape(line.rstrip(NEWLINE), limit=VALUE_LIMIT)}" for line in lines[:MAX_LINES]
            )
            if len(lines) > MAX_LINES:
                out.append(f"  ... and {len(lines) - MAX_LINES} more")
    return out


def render_not_compared(diff: Diff) -> list[str]:
    """What the diff did not compare, and what differed there: minted values (by presence), the
    executor calls of a channel one session did not watch, stderr without --stderr."""
    out: list[str] = []
    carried = diff.carried
    if carried:
        out.append(f"note: {len(carried)} server-minted value(s) compared by presence and place, not value")
        for pair, item in carried[:MAX_LINES]:
            out.append(
                f"  {pair_title(pair)}: {escape_text(render_path(item.path))}: "
                f"{show_value(item.old, 80)} -> {show_value(item.new, 80)}"
            )
        if len(carried) > MAX_LINES:
            out.append(f"  ... and {len(carried) - MAX_LINES} more")
    unobserved = diff.unobserved
    if unobserved:
        channels = sorted({p.scope for p in unobserved})
        for channel in channels:
            pairs = [p for p in unobserved if p.scope == channel]
            only_new = [p for p in pairs if p.old is None]
            name = "HTTP" if channel == "http" else escape_text(channel)
            if only_new:
                out.append(
                    f"note: the new session's {name} calls could not be compared: the recording did not "
                    f"watch them ({len(only_new)} call(s))"
                )
            if len(only_new) < len(pairs):
                out.append(
                    f"note: the recording's {name} calls could not be compared: the new session did not "
                    f"watch them ({len(pairs) - len(only_new)} call(s))"
                )
            for pair in pairs[:MAX_LINES]:
                out.append(f"  {pair_title(pair)}: {_call_summary(value_of(pair.new or pair.old))}")
            if len(pairs) > MAX_LINES:
                out.append(f"  ... and {len(pairs) - MAX_LINES} more")
    if not diff.stderr_compared and (diff.stderr_added or diff.stderr_removed):
        out.append("note: stderr differs, not compared (--stderr compares it):")
        out.extend(f"  {line}" for line in stderr_lines(diff))
    out.extend(environment_notes(diff))
    if not diff.stderr_compared and diff.stderr_numbers_only:
        out.append(
            f"note: {diff.stderr_numbers_only} stderr line(s) differ only in numbers (times, counts, ids): "
            "not compared, not listed (--stderr compares every byte)"
        )
    return out


# What a replay (and a recording) sets in the server's environment, pointing at this run's own HTTP
# sink and executor tap: a tool that shows its environment differs there from run to run.
SET_BY_MCPTAPE = (
    "MCPTAPE_EXEC_FD",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "NODE_USE_ENV_PROXY",
)


def environment_notes(diff: Diff) -> list[str]:
    """A note for each differing message whose changed values name a variable mcptape sets."""
    out = []
    for pair in diff.differing:
        texts = [v.upper() for c in pair.changes for v in (c.old, c.new) if isinstance(v, str)]
        named = [name for name in SET_BY_MCPTAPE if any(name in text for text in texts)]
        if named:
            out.append(
                f"note: {pair_title(pair)} shows the server's environment, where mcptape sets "
                f"{', '.join(named)} to this run's own sink and tap: a difference there is expected "
                "(an --ignore rule on that path hides it)"
            )
    return out[:MAX_LINES]


def _call_summary(value: Any) -> str:
    """An executor line in short: `GET http://host/path` for an HTTP call, else the value."""
    if (
        isinstance(value, dict)
        and isinstance(value.get("method"), str)
        and isinstance(value.get("target"), str)
    ):
        return escape_text(f"{value['method']} {value['target']}"[:VALUE_LIMIT])
    return show_value(value, 120)


def render_substitutions(subs: list[Substitution]) -> list[str]:
    """The server-minted values the replay sent in place of the recorded ones."""
    if not subs:
        return []
    out = [f"substituted {len(subs)} server-minted value(s) in the client's bytes (the new server's own):"]
    for sub in subs[:MAX_LINES]:
        use = sub.use
        out.append(
            f"  in line {use.line} {escape_text(render_path(use.path))}: {show_value(use.value, 60)} -> "
            f"{show_value(sub.new, 60)} (minted at {escape_text(render_path(use.source_path))} of the "
            f"{source_title(use.scope, use.source)})"
        )
    if len(subs) > MAX_LINES:
        out.append(f"  ... and {len(subs) - MAX_LINES} more (see --json)")
    return out


def what_differed(diff: Diff, issues: list[Issue]) -> str:
    """One line: what made the sessions differ (`1 message, exit status`)."""
    counts = (
        (len(diff.differing), "message"),
        (len(diff.stdout_added) + len(diff.stdout_removed), "stdout line"),
        (len(diff.findings_added) + len(diff.findings_removed), "finding"),
    )
    parts = [f"{n} {what}{'' if n == 1 else 's'}" for n, what in counts if n]
    if diff.exit_differs:
        parts.append(f"exit status ({diff.exit_old} -> {diff.exit_new})")
    if diff.stderr_compared and (diff.stderr_added or diff.stderr_removed):
        parts.append("stderr")
    if any(i.kind == HELD_CALLS for i in issues):
        parts.append("calls held back (they may change data)")
    if any(i.error and i.kind != HELD_CALLS for i in issues):
        parts.append("the replay's own errors")
    return ", ".join(parts) or "nothing"
