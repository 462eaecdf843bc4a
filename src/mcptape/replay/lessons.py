"""What `mcptape replay --learn N` prints: the proposed rules with the values they were learned
from, what was not learned and why, and how many replays the rules make `same`."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from mcptape.diff.compare import MISSING
from mcptape.diff.ignore import render_pattern
from mcptape.diff.learn import Place
from mcptape.replay.guard import held_message
from mcptape.replay.learn import Learned
from mcptape.replay.render import show_value
from mcptape.textsafe import escape_text

SHOWN_VALUES = 3
SHOWN_PLACES = 10
STEADY = "not learned, the same in every replay but not as recorded (accept it with --update)"
MINTED = "not learned, values the server minted and the client sent back (carried over)"


def render_learned(
    learned: Learned, saved: tuple[Path, list[str]] | None, *, save_to: Path | None, scope: str = ""
) -> str:
    """The text report. `saved` is (file, rules added) after `--save`; `save_to` the file it would
    use; `scope` the server the rules are saved for (`server 'rp-server'`)."""
    runs = learned.runs
    out = [
        f"mcptape replay --learn {len(runs)}: {escape_text(str(learned.transcript))} "
        f"against {escape_text(shlex.join(learned.command))}"
    ]
    seconds = ", ".join(f"{r.run.seconds:.1f}s" for r in runs)
    out.append(f"  {len(runs)} replay(s) ({seconds}); {len(learned.rules_before)} rule(s) already in force")
    if not learned.completed:
        failed = runs[-1]
        out.append(f"learning stopped: replay {len(runs)} did not complete, so nothing was learned")
        out.extend(f"    {line}" for line in failed.render().splitlines())
        return "\n".join(out) + "\n"
    lesson = learned.lesson
    if lesson.proposals:
        out.append(f"learned {len(lesson.proposals)} ignore rule(s):")
        for proposal in lesson.proposals:
            out.append(f"  {escape_text(proposal.rule.text)}")
            out.append(f"      {proposal.why}; seen: {_values(proposal.values)}")
    else:
        out.append("learned nothing: the replays did not vary")
    _places(out, STEADY, lesson.steady)
    _places(out, MINTED, lesson.minted)
    if lesson.unpaired:
        out.append("not learned, messages that are not in every session (a rule cannot pair them):")
        out.extend(f"  {escape_text(title)}" for title in lesson.unpaired[:SHOWN_PLACES])
    same = sum(learned.same_after)
    out.append(f"with these rules: {same} of {len(runs)} replays same")
    held = runs[-1].run.held if runs else []
    if held:  # what was learned was learned without these calls
        out.append(escape_text(held_message(held)))
    if saved is not None:
        path, added = saved
        kept = len(lesson.proposals) - len(added)
        note = f" ({kept} already there)" if kept else ""
        out.append(f"saved {len(added)} rule(s) to {escape_text(str(path))}{_for(scope)}{note}")
    elif lesson.proposals and save_to is not None:
        out.append(f"not saved: add --save to put them in {escape_text(str(save_to))}{_for(scope)}")
    return "\n".join(out) + "\n"


def _for(scope: str) -> str:
    """` for server 'rp-server'`: the rules apply to that server's recordings only."""
    return f" for {escape_text(scope)}" if scope else ""


def _places(out: list[str], heading: str, places: list[Place]) -> None:
    if not places:
        return
    out.append(f"{heading}:")
    for place in places[:SHOWN_PLACES]:
        where = escape_text(render_pattern(place.pattern))
        out.append(f"  {escape_text(place.title)}: {where}: {_values(place.values)}")
    if len(places) > SHOWN_PLACES:
        out.append(f"  ... and {len(places) - SHOWN_PLACES} more")


def _values(values: list[Any]) -> str:
    shown = ", ".join(show_value(v, 60) for v in values[:SHOWN_VALUES])
    more = len(values) - SHOWN_VALUES
    return shown + (f" (+{more} more)" if more > 0 else "")


def learned_to_json(
    learned: Learned, saved: tuple[Path, list[str]] | None, *, scope: str = ""
) -> dict[str, Any]:
    """The same report as one JSON document (values as JSON; a missing member is null)."""
    lesson = learned.lesson
    return {
        "transcript": str(learned.transcript),
        "command": learned.command,
        "replays": [
            {"completed": r.run.completed, "seconds": round(r.run.seconds, 3), "same": r.same}
            for r in learned.runs
        ],
        "completed": learned.completed,
        "rules_before": [r.text for r in learned.rules_before],
        "proposed": [
            {"rule": p.rule.text, "why": p.why, "values": [_json(v) for v in p.values]}
            for p in lesson.proposals
        ],
        "steady": [_place_json(p) for p in lesson.steady],
        "minted": [_place_json(p) for p in lesson.minted],
        "unpaired": list(lesson.unpaired),
        "same_after": learned.same_after,
        "saved": None if saved is None else {"file": str(saved[0]), "added": saved[1]},
        "scope": scope or None,
    }


def _place_json(place: Place) -> dict[str, Any]:
    return {
        "message": place.title,
        "path": render_pattern(place.pattern),
        "values": [_json(v) for v in place.values],
    }


def _json(value: Any) -> Any:
    return None if value is MISSING else value
