"""What `tools diff` found, as a `Report`: a test case and a result per change (breaking, suspicious,
compatible), each located at the definition's line in NEW (or BASE, for a removed one)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcptape.commands.ci.report import FAILURE, PASSED, Case, Report, Result, Rule, Suite, Where
from mcptape.textsafe import escape_controls

if TYPE_CHECKING:
    from mcptape.surface.compare import Diff
    from mcptape.surface.model import Surface

RULES = {
    "breaking": ("a change that may break a client that worked before", "error"),
    "suspicious": ("text the model reads changed, or a change that could not be compared", "warning"),
    "compatible": ("a change nothing that worked before depends on", "note"),
}


def tools_diff_report(
    diff: Diff, accepted: list[bool], base: str, new: str, failing: int, surfaces: tuple[Surface, Surface]
) -> Report:
    """The diff as the CI formats' `Report`: a test case and a result per change, each located at
    the definition's line in NEW (or BASE, for a removed one)."""
    from mcptape.surface.model import GATING
    from mcptape.surface.report import summary, title

    places = (_places(base, surfaces[0]), _places(new, surfaces[1]))
    suite = Suite(f"tools diff {base} -> {new}")
    report = Report(
        "tools diff", suites=[suite], summary=f"mcptape tools diff: {summary(diff, accepted, failing)}"
    )
    report.rules = [
        Rule(f"tools-{name}", summary_, f"{summary_} (see docs/tools.md).", level)
        for name, (summary_, level) in RULES.items()
    ]
    for change, ok in zip(diff.changes, accepted, strict=True):
        key = (change.kind, change.name)
        where = places[1].get(key) or places[0].get(key)
        heading = f"{title(change)} {escape_controls(change.path) or ''}".strip()
        message = (
            change.detail
            + (f"\nwords: {change.words}" if change.words else "")
            + (" (accepted)" if ok else "")
        )
        gating = change.severity in GATING and not ok
        level = RULES[change.severity.value][1] if not ok else "note"
        report.results.append(
            Result(
                f"tools-{change.severity.value}", level, f"{change.severity.value}: {heading}", message, where
            )
        )
        suite.cases.append(
            Case(
                heading,
                "mcptape.tools",
                FAILURE if gating else PASSED,
                change.detail if gating else "",
                message,
                change.severity.value,
                where=where,
            )
        )
    return report


def _places(path: str, surface: Surface) -> dict[tuple[str, str], Where]:
    """Where each definition is in its file (its line when known: see `Definition.line`)."""
    from mcptape.surface.compare import SERVER
    from mcptape.surface.model import KINDS

    found: dict[tuple[str, str], Where] = {(SERVER, ""): Where(path)}
    for kind in KINDS:
        for name, definition in surface.of_kind(kind).items():
            found[(kind.noun, name)] = Where(path, definition.line)
    return found
